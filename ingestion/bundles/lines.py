"""Line streaming for `.jsonl` members, and the byte-order mark, handled here only.

Editors on Windows put a UTF-8 byte-order mark at the start of a file; every reader
of bundle text (jsonl lines, JSON documents, native result files) tolerates it
through `strip_bom`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from ingestion.bundles.errors import ErrorCollector, human_size

BOM = b"\xef\xbb\xbf"


def strip_bom(data: bytes) -> bytes:
    """`data` without a leading UTF-8 byte-order mark."""
    return data.removeprefix(BOM)


def iter_lines(
    chunks: Iterable[bytes], *, file: str, max_line_bytes: int, errors: ErrorCollector
) -> Iterator[tuple[int, bytes]]:
    """(1-based line number, line) from a stream of byte chunks.

    Splits bytes, not text: a UTF-8 multi-byte sequence never contains b"\\n", so no
    decoding is needed here (the JSON decoder checks UTF-8). Memory stays at one
    chunk plus one line; a line over `max_line_bytes` is reported and skipped
    without being accumulated.
    """
    line_no = 0
    pending = b""  # the unfinished last line of the previous chunk
    skipping = False  # inside a line already reported as too long
    first = True
    for chunk in chunks:
        if first:
            chunk = strip_bom(chunk)
            first = False
        if pending or skipping:
            newline = chunk.find(b"\n")
            if newline < 0:
                if not skipping:
                    pending += chunk
                    skipping = _too_long(pending, line_no + 1, file, max_line_bytes, errors)
                    if skipping:
                        pending = b""
                continue
            line_no += 1
            if not skipping:
                line = pending + chunk[:newline]
                if not _too_long(line, line_no, file, max_line_bytes, errors):
                    yield line_no, line
            pending, skipping = b"", False
            chunk = chunk[newline + 1 :]
        lines = chunk.split(b"\n")
        tail = lines.pop()
        if len(chunk) > max_line_bytes:  # only then can a whole line be too long
            for line in lines:
                line_no += 1
                if not _too_long(line, line_no, file, max_line_bytes, errors):
                    yield line_no, line
        else:
            yield from enumerate(lines, line_no + 1)
            line_no += len(lines)
        skipping = _too_long(tail, line_no + 1, file, max_line_bytes, errors)
        pending = b"" if skipping else tail
    if pending:
        yield line_no + 1, pending


def _too_long(line: bytes, line_no: int, file: str, limit: int, errors: ErrorCollector) -> bool:
    if len(line) <= limit:
        return False
    errors.add(file, line_no, "", f"line is longer than the limit of {human_size(limit)}")
    return True
