"""Reading native JSON as strictly as a bundle is read: a size cap before parsing, no
NaN or Infinity, no number past a float's range or rounding to zero, no nesting deep
enough to exhaust the parser, no unpaired surrogate escape. Every failure is a NotJson
whose text says why, for the importer to name with its file. A file too large to read
whole is streamed item by item (`CappedReader` for ijson), with the same limits per item
and its failures named by `parse_errors_named`."""

from __future__ import annotations

import contextlib
import decimal
import json
import math
import mmap
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

import ijson

from ingestion.bundles import BundleLimits, rejected
from ingestion.bundles.depth import StreamDepth, too_deep, too_deep_message
from ingestion.bundles.fields import UNDERFLOW_MESSAGE, rounds_to_zero
from ingestion.bundles.limits import JSON_DEPTH_MAX
from ingestion.bundles.lines import strip_bom

# The largest native JSON document read whole (one Harbor result.json, one τ-bench
# item): the bundles' own cap for one JSON document or line.
MAX_DOCUMENT_BYTES = BundleLimits.max_line_bytes
PARSE_BUFFER = 64 * 1024  # bytes the incremental parser reads at a time


class NotJson(ValueError):
    """Why a native file is not valid JSON (NaN and Infinity included)."""


def reject_constant(name: str) -> Any:
    """json.loads's parse_constant: NaN and Infinity are not JSON."""
    raise NotJson(f"{name} is not allowed in JSON")


def finite_float(text: str) -> float:
    """json.loads's parse_float: a number past a float's range (1e400) is refused
    rather than read as an infinity, which no JSON (nor PostgreSQL) can hold, and one
    too small for it (1e-400) rather than read as 0, as a bundle's are."""
    value = float(text)
    if not math.isfinite(value):
        raise NotJson(f"the number {text[:40]} is out of range")
    if rounds_to_zero(text, value):
        raise NotJson(f"the number {text[:40]} {UNDERFLOW_MESSAGE}")
    return value


_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


def unpaired_surrogate(data: bytes, value: Any) -> bool:
    """Whether the parsed `value` of the JSON text `data` holds a string with an
    unpaired surrogate escape ("\\ud800"): the stdlib parser takes it, but it is no
    Unicode text and cannot be written as UTF-8. Only text holding such an escape is
    looked at twice."""
    if not _SURROGATE_ESCAPE.search(data):
        return False
    try:
        json.dumps(value, ensure_ascii=False).encode()
    except UnicodeEncodeError:
        return True
    return False


SURROGATE_MESSAGE = "is not valid JSON (an unpaired surrogate escape: not Unicode text)"
_SURROGATE_ESCAPE_WHOLE = re.compile(rb"\\u[dD]([89abAB]|[c-fC-F])[0-9a-fA-F]{2}")


def unpaired_surrogate_in_file(path: Path) -> bool:
    """Whether the JSON text in `path` holds an unpaired surrogate escape, looked for
    in the bytes (mapped, never read whole): the incremental parser puts "?" in its
    place without a word, so a streamed file is looked at before it is parsed. An
    escape whose backslash is itself escaped (`\\\\ud800`) is text, not an escape."""
    with path.open("rb") as fh:
        if not fh.seek(0, 2):
            return False
        with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as data:
            low_expected_at = -1  # where a high surrogate's low half must start
            for match in _SURROGATE_ESCAPE_WHOLE.finditer(data):
                if _escaped_backslash(data, match.start()):
                    continue
                high = match[1] in b"89abAB"
                if low_expected_at >= 0:
                    if match.start() != low_expected_at or high:
                        return True
                    low_expected_at = -1
                elif high:
                    low_expected_at = match.end()
                else:
                    return True  # a low half alone
            return low_expected_at >= 0


def _escaped_backslash(data: Any, at: int) -> bool:
    """Whether the backslash at `at` follows an odd run of backslashes (is escaped)."""
    start = at
    while start > 0 and data[start - 1] == 0x5C:
        start -= 1
    return (at - start) % 2 == 1


def load_json(
    path: Path,
    max_bytes: int = MAX_DOCUMENT_BYTES,
    object_pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None = None,
) -> Any:
    """Parse a JSON file of at most `max_bytes`; NotJson says why it is not valid
    (NaN and Infinity too, and a file too large to be read whole). `object_pairs_hook`
    is json.loads's (to see duplicate keys)."""
    with path.open("rb") as fh:
        data = fh.read(max_bytes + 1)  # never more than the cap, whatever the file claims
    if len(data) > max_bytes:
        raise NotJson(f"is larger than the limit of {max_bytes:,} bytes for one JSON document")
    data = strip_bom(data)
    if too_deep(data):  # the parser would recurse until RecursionError
        raise NotJson(too_deep_message())
    try:
        value = json.loads(
            data, parse_constant=reject_constant, parse_float=finite_float,
            object_pairs_hook=object_pairs_hook,
        )  # fmt: skip
    except UnicodeDecodeError as exc:
        raise NotJson("is not UTF-8 text") from exc
    except json.JSONDecodeError as exc:
        raise NotJson(f"is not valid JSON ({exc.msg} at line {exc.lineno})") from exc
    except NotJson as exc:
        raise NotJson(f"is not valid JSON: {exc}") from exc
    if unpaired_surrogate(data, value):
        raise NotJson(SURROGATE_MESSAGE)
    return value


def load_or_reason(path: Path, max_bytes: int = MAX_DOCUMENT_BYTES) -> Any:
    """The parsed file, or the NotJson saying why it cannot be read."""
    try:
        return load_json(path, max_bytes)
    except (OSError, NotJson) as exc:
        return NotJson(exc.strerror or str(exc)) if isinstance(exc, OSError) else exc


# ------------------------------------------------------------------ streamed


class ItemTooDeep(Exception):
    pass


class ItemTooLarge(Exception):
    pass


class CappedReader:
    """A file read through for ijson that refuses to read more than `cap` bytes (plus
    one parser buffer) since `mark` was last moved (at the end of an item): no single
    item fills the memory.

    `levels` is how deep the items sit in the document (1 for a list's items); each
    item may nest as deep as a bundle record below that.
    """

    def __init__(self, file: BinaryIO, cap: int, levels: int = 1) -> None:
        self.file, self.cap = file, cap
        self.read_bytes = self.mark = 0
        # Checked before the parser sees the bytes: its path prefixes grow with the
        # square of the depth (a few hundred KB nested deeply would exhaust the memory).
        self.depth = StreamDepth(JSON_DEPTH_MAX + levels)

    def read(self, size: int = -1) -> bytes:
        if self.read_bytes - self.mark > self.cap:
            raise ItemTooLarge
        data = self.file.read(PARSE_BUFFER if size < 0 else min(size, PARSE_BUFFER))
        self.read_bytes += len(data)
        if self.depth.feed(data):
            raise ItemTooDeep
        return data


# A number a float holds only as 0 (1e-400) is written with an exponent of three digits
# or more after "e-", or after 200 zeros or more: only a file holding such text, in a
# number or a string, is parsed with exact numbers, each checked (the others keep the
# parser's floats, a quarter faster). Found with bytes.find: a regex over every byte
# would cost more than the parse.
_EXPONENT_MARKS = (b"e-", b"E-")
_EXPONENT_DIGITS = re.compile(rb"-0*[0-9]{3}")  # matched at the mark's "-"
_MANY_ZEROS = b"." + b"0" * 200
_DIGITS = b"0123456789"


def streamed_events(reader: CappedReader, path: Path) -> Iterator[tuple[str, str, Any]]:
    """ijson's (prefix, event, value) stream of the file `reader` reads (`path`),
    numbers as floats; a number that is not 0 but would be read as 0 raises NotJson, as
    finite_float does for a file read whole (the parser alone would give 0.0)."""
    if not _tiny_number_text(path):
        return ijson.parse(reader, use_float=True, buf_size=PARSE_BUFFER)
    return _floats_checked(ijson.parse(reader, use_float=False, buf_size=PARSE_BUFFER))


def streamed_items(reader: CappedReader, path: Path, prefix: str) -> Iterator[Any]:
    """The objects at `prefix` of the file `reader` reads, one at a time, numbers checked
    as by streamed_events; built by the parser's own fast path when no number needs it."""
    if not _tiny_number_text(path):
        return ijson.items(reader, prefix, use_float=True, buf_size=PARSE_BUFFER)
    events = ijson.parse(reader, use_float=False, buf_size=PARSE_BUFFER)
    return ijson.items(_floats_checked(events), prefix)


def _tiny_number_text(path: Path) -> bool:
    with path.open("rb") as fh:
        if not fh.seek(0, 2):
            return False
        with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as data:
            if data.find(_MANY_ZEROS) >= 0:
                return True
            for mark in _EXPONENT_MARKS:
                at = data.find(mark)
                while at >= 0:
                    # A number's mantissa ends with a digit: "uuid-ae-123" is no number.
                    if at and data[at - 1] in _DIGITS and _EXPONENT_DIGITS.match(data, at + 1):
                        return True
                    at = data.find(mark, at + 2)
    return False


# The integers the parser's fast path reads (past them it refuses "integer overflow").
_INT64 = range(-(2**63), 2**63)


def _floats_checked(events: Iterator[tuple[str, str, Any]]) -> Iterator[tuple[str, str, Any]]:
    """The exact path's events with the fast path's numbers: each Decimal as its float,
    refused where the fast path refuses or would silently read 0."""
    try:
        for prefix, event, value in events:
            if event == "number":
                value = _as_fast_path_number(value)
            yield prefix, event, value
    except decimal.InvalidOperation:  # an exponent past what Decimal holds
        raise NotJson("a number is out of range") from None


def _as_fast_path_number(value: int | decimal.Decimal) -> int | float:
    if isinstance(value, int):
        if value not in _INT64:
            raise NotJson(f"the number {str(value)[:40]} is out of range")
        return value
    number = float(value)  # the Decimal's nearest float, as the parser's own
    if not math.isfinite(number):
        raise NotJson(f"the number {str(value)[:40]} is out of range")
    if number == 0.0 and value != 0:
        raise NotJson(f"the number {str(value)[:40]} {UNDERFLOW_MESSAGE}")
    return number


@contextlib.contextmanager
def parse_errors_named(label: str, where: Callable[[], str], cap: int) -> Iterator[None]:
    """A streamed file's parse failures as one named rejection of `label`; `where()`
    names what was being read (an item, a simulation) when it failed."""
    try:
        yield
    except ItemTooDeep:
        raise rejected(label, f"{where()} {too_deep_message()}") from None
    except ItemTooLarge:
        raise rejected(label, f"{where()} is larger than the limit of {cap:,} bytes") from None
    except ijson.JSONError as exc:
        raise rejected(label, f"is not valid JSON ({json_error_reason(exc)})") from None
    except UnicodeDecodeError:
        raise rejected(label, "is not UTF-8 text") from None
    except NotJson as exc:
        raise rejected(label, f"{where()} is not valid JSON: {exc}") from None


def json_error_reason(exc: Exception) -> str:
    """The parser's message, with the text it stopped at: `lexical error … at 'NaN]'`."""
    lines = str(exc).replace("\\n", "\n").strip("b'\n").splitlines() or [type(exc).__name__]
    reason = lines[0].strip().rstrip(".")
    if len(lines) >= 3 and "^" in lines[2]:
        # yajl's caret stands one character past where it stopped.
        near = lines[1][max(lines[2].index("^") - 1, 0) :][:20].strip()
        for constant in ("NaN", "Infinity", "-Infinity"):
            if near.startswith(constant):
                return f"{constant} is not allowed in JSON"
        if near:
            reason = f"{reason} at {near!r}"
    return reason[:200]
