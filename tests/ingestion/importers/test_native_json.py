"""Reading native JSON (ingestion/importers/native_json.py): streamed numbers are held
to the rule of a file read whole, with the parser's own floats everywhere else."""

from __future__ import annotations

import json

import ijson
import pytest

from ingestion.importers.native_json import (
    CappedReader,
    NotJson,
    load_json,
    streamed_events,
    streamed_items,
)

pytestmark = pytest.mark.pure

ZEROS = "0" * 250
# Each is not 0, and a float holds it only as 0.
TINY = ["1e-400", "-2.5E-0400", "0." + "0" * 400 + "1", f"0.{ZEROS}1e-90", "1234e-330"]
# Each is a float other than 0 (the smallest are subnormal).
SMALL = ["2e-320", "1e-300", f"0.{'0' * 199}1", "5e-324", "0.0", "0e-400"]


def _items(tmp_path, text: str) -> list:
    path = tmp_path / "items.json"
    path.write_text(text)
    with path.open("rb") as fh:
        return list(streamed_items(CappedReader(fh, 1 << 20), path, "item"))


@pytest.mark.parametrize("number", TINY)
def test_it_refuses_a_streamed_number_read_as_zero_as_a_whole_file_is(number, tmp_path):
    with pytest.raises(NotJson, match="too small to be stored"):
        _items(tmp_path, f'[{{"reward": {number}}}]')

    path = tmp_path / "whole.json"
    path.write_text(f'{{"reward": {number}}}')
    with pytest.raises(NotJson, match="too small to be stored"):
        load_json(path)


@pytest.mark.parametrize("number", SMALL)
def test_it_reads_a_small_streamed_number_as_the_float_a_whole_file_gives(number, tmp_path):
    [item] = _items(tmp_path, f'[{{"reward": {number}, "note": "1e-400"}}]')

    assert item == {"reward": json.loads(number), "note": "1e-400"}
    assert type(item["reward"]) is float


def test_it_gives_the_same_items_whichever_path_reads_them(tmp_path):
    items = [{"task_id": 3, "reward": 0.1, "info": {"cost": 1e-7, "n": [1, 2.5, -3e-5]}}]
    plain = _items(tmp_path, json.dumps(items))
    careful = _items(tmp_path, json.dumps([*items, {"note": "0." + ZEROS}]))

    assert careful[:1] == plain == items
    assert [type(v) for v in careful[0]["info"]["n"]] == [int, float, float]


def test_it_streams_events_with_the_numbers_checked(tmp_path):
    path = tmp_path / "results.json"
    path.write_text('{"a": [1.5, "1e-999", 1e-999]}')

    with path.open("rb") as fh, pytest.raises(NotJson, match=r"the number 1E-999 is too small"):
        list(streamed_events(CappedReader(fh, 1 << 20), path))
    path.write_bytes(b"")  # the parser's own word on an empty file, no mapping error
    with path.open("rb") as fh, pytest.raises(ijson.JSONError, match="premature EOF"):
        list(streamed_events(CappedReader(fh, 10), path))


@pytest.mark.parametrize("number", [str(2**63), str(-(2**63) - 1), "1e99999999999999999999"])
def test_it_refuses_on_the_exact_path_what_the_fast_path_refuses(number, tmp_path):
    with pytest.raises(ijson.JSONError, match="overflow"):
        _items(tmp_path, f'[{{"n": {number}}}]')
    # "1e-400" in a string sends the same number down the exact path.
    with pytest.raises(NotJson, match="out of range"):
        _items(tmp_path, f'[{{"note": "1e-400", "n": {number}}}]')


def test_it_refuses_an_exponent_past_what_an_exact_number_holds(tmp_path):
    with pytest.raises(NotJson, match="a number is out of range"):
        _items(tmp_path, '[{"n": 1e-99999999999999999999}]')


def test_it_keeps_the_largest_integers_the_fast_path_reads(tmp_path):
    edges = [2**63 - 1, -(2**63)]
    assert _items(tmp_path, json.dumps([{"note": "1e-400", "n": edges}])) == [
        {"note": "1e-400", "n": edges}
    ]
