"""Line streaming (ingestion/bundles/lines.py): blank lines, line ends, the BOM, chunks."""

from __future__ import annotations

import json

import pytest

from ingestion.bundles import ErrorCollector
from ingestion.bundles.lines import iter_lines, strip_bom
from tests.ingestion.bundles.archives import (
    MANIFEST,
    a_run,
    jsonl,
    read_everything,
    rejection,
    tar_gz,
)


def test_it_ignores_blank_lines_but_counts_them_in_line_numbers():
    lines = b"\n" + jsonl(a_run(1)) + b"  \n\r\n" + jsonl(a_run(2, cost_usd=-1))
    error = rejection(tar_gz({"manifest.json": json.dumps(MANIFEST).encode(), "runs.jsonl": lines}))
    assert [(e.line, e.field) for e in error.errors] == [(5, "cost_usd")]


def test_it_accepts_crlf_line_ends_a_bom_and_no_final_newline():
    lines = (
        b"\xef\xbb\xbf" + jsonl(a_run(1)).replace(b"\n", b"\r\n") + json.dumps(a_run(2)).encode()
    )
    runs, _ = read_everything(
        tar_gz({"manifest.json": json.dumps(MANIFEST).encode(), "runs.jsonl": lines})
    )
    assert [(r.run_id, r.line) for r in runs] == [("r-1", 1), ("r-2", 2)]


@pytest.mark.parametrize("chunk_size", [1, 7, 64, 1000])
def test_it_splits_lines_across_chunk_boundaries(chunk_size):
    data = b'{"a": 1}\n\n{"b": "\xc3\xa9t\xc3\xa9"}\r\n' + b"y" * 120 + b'\n{"c": 3}'
    chunks = [data[i : i + chunk_size] for i in range(0, len(data), chunk_size)]
    errors = ErrorCollector()
    lines = list(iter_lines(chunks, file="f", max_line_bytes=100, errors=errors))
    assert lines == [
        (1, b'{"a": 1}'),
        (2, b""),
        (3, b'{"b": "\xc3\xa9t\xc3\xa9"}\r'),
        (5, b'{"c": 3}'),
    ]
    assert [(e.line, e.message) for e in errors] == [
        (4, "line is longer than the limit of 100 bytes")
    ]


def test_it_strips_one_byte_order_mark_and_nothing_else():
    assert strip_bom(b"\xef\xbb\xbf{}") == b"{}"
    assert strip_bom(b"\xef\xbb\xbf\xef\xbb\xbf{}") == b"\xef\xbb\xbf{}"
    assert strip_bom(b" \xef\xbb\xbf{}") == b" \xef\xbb\xbf{}"
