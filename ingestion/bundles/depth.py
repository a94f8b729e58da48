"""How deeply a JSON text nests, measured without parsing it (parsers recurse per level).

A value nested thousands of levels deep makes every recursive parser, encoder and
walker fail with RecursionError (and makes a streaming parser's path prefixes grow
with the square of the depth). `too_deep` finds one first, from the bytes, so that the
error can be named; `StreamDepth` does the same for a text read in chunks.
"""

from __future__ import annotations

import re
from array import array

from ingestion.bundles.limits import JSON_DEPTH_MAX

# The rest of a string after its opening quote, up to and with its closing quote if the
# text holds it. Its alternatives never overlap, so a match never backtracks: one pass.
_STRING_REST = re.compile(rb'[^"\\]*(?:\\.[^"\\]*)*(")?', re.S)
_STRING = re.compile(rb'"' + _STRING_REST.pattern, re.S)  # a string, and its end if closed
# Every opening bracket becomes "(", every closing one ")", anything else is dropped.
_BRACKETS = bytes.maketrans(b"[{]}", b"(())")
_OTHERS = bytes(set(range(256)) - set(b"[]{}"))
_OPEN = ord("(")


def too_deep(data: bytes | bytearray | memoryview | str, limit: int = JSON_DEPTH_MAX) -> bool:
    """True when arrays and objects nest more than `limit` levels deep in `data`.

    One pass over the text (no step rescans it: an unclosed string once cost time
    quadratic in the line). Brackets left open count too: parsers recurse into them
    before they find the text invalid (`{"a": [[[[…` without an end). A stray closing
    bracket matches nothing.
    """
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    elif not isinstance(data, bytes):
        data = bytes(data)
    if data.count(b"[") + data.count(b"{") <= limit:  # the common case: too few to nest
        return False
    return _deepest_pair_above(_structure(data), limit)


def _structure(data: bytes) -> bytes:
    """The brackets of `data` outside its strings, as "(" and ")".

    A quote that is never closed is invalid JSON: the text after it is read as
    structure (so its brackets still count), not as a string.
    """
    # One substitution in C first (a session of 200,000 turns holds 800,000 strings):
    # each string becomes its closing quote, so when as many quotes are left as strings
    # were found, every string was closed. Else one is not: read them one by one.
    stripped, strings = _STRING.subn(rb"\1", data)
    if stripped.count(b'"') == strings:
        return stripped.translate(_BRACKETS, _OTHERS)
    parts, pos = [], 0
    while (quote := data.find(b'"', pos)) >= 0:
        parts.append(data[pos:quote])
        match = _STRING_REST.match(data, quote + 1)
        assert match is not None  # every part of the pattern may match empty
        if match[1] is None:  # unclosed: every later quote is escaped, none closes either
            parts.append(data[quote + 1 :])
            pos = len(data)
            break
        pos = match.end()
    parts.append(data[pos:])
    return b"".join(parts).translate(_BRACKETS, _OTHERS)


def _deepest_pair_above(shape: bytes, limit: int) -> bool:
    """True when a matched pair of `shape` holds pairs more than `limit` levels deep.

    The stack holds, for each bracket still open, the depth of the deepest pair closed
    inside it so far; it never holds a depth above `limit`, so a byte per entry does
    (array for a larger limit). A ")" with nothing open matches nothing: skipped.
    """
    stack: bytearray | array[int] = bytearray() if limit < 255 else array("q")
    for byte in shape:
        if byte == _OPEN:
            stack.append(0)
            if len(stack) > limit:  # still open: parsers recurse into it all the same
                return True
        elif stack:
            depth = stack.pop() + 1
            if depth > limit:
                return True
            if stack and stack[-1] < depth:
                stack[-1] = depth
    return False


def too_deep_message(limit: int = JSON_DEPTH_MAX) -> str:
    return f"is nested more than {limit} levels deep (arrays and objects inside each other)"


class StreamDepth:
    """The nesting depth of one JSON text fed chunk by chunk.

    `feed` returns True as soon as the depth passes `limit`. A string cut by a chunk
    boundary is remembered (inside a string, after a backslash), so brackets inside
    strings never count. Memory: one chunk; time: one pass over each chunk.
    """

    def __init__(self, limit: int = JSON_DEPTH_MAX):
        self.limit = limit
        self.depth = 0
        self._in_string = False
        self._escaped = False  # the last chunk ended on a backslash inside a string

    def feed(self, chunk: bytes) -> bool:
        pos: int | None = 0
        if self._in_string:
            pos = self._finish_string(chunk, 0)
        parts = []
        while pos is not None:
            quote = chunk.find(b'"', pos)
            parts.append(chunk[pos : None if quote < 0 else quote])
            if quote < 0:
                break
            self._in_string = True
            pos = self._finish_string(chunk, quote + 1)
        for byte in b"".join(parts).translate(_BRACKETS, _OTHERS):
            self.depth += 1 if byte == _OPEN else -1
            if self.depth > self.limit:
                return True
        return False

    def _finish_string(self, chunk: bytes, pos: int) -> int | None:
        """Where the string being read ends in `chunk` (past its closing quote), or None
        when it goes on into the next chunk."""
        if self._escaped:
            if pos >= len(chunk):
                return None
            pos, self._escaped = pos + 1, False
        match = _STRING_REST.match(chunk, pos)
        assert match is not None  # every part of the pattern may match empty
        if match[1] is not None:
            self._in_string = False
            return match.end()
        self._escaped = match.end() < len(chunk)  # stopped before a final backslash
        return None
