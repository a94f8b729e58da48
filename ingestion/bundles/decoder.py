"""The fast path: one typed msgspec decode per line, unknown top-level fields kept."""

from __future__ import annotations

import re
from typing import Any

import msgspec
from msgspec import UNSET, Struct, UnsetType

_decode_any = msgspec.json.decode
_decode_raw_object = msgspec.json.Decoder(dict[str, msgspec.Raw]).decode
_UNKNOWN_TOP_FIELD = re.compile(r"Object contains unknown field `(.*)`", re.S)
# What msgspec refuses in a renamed field: such a key is kept by the two-pass decode.
_UNRENAMABLE = re.compile(r'["\\\x00-\x1f]')


class RecordDecoder:
    """Decodes one JSON line into (record, unknown top-level fields) in one pass.

    The strict decoder of `record` refuses an unknown field and names it. Each name
    learnt that way becomes an optional field of an extended Struct (a subclass of
    `record`, renamed to the JSON key), so a producer that adds, say, `harness_url`
    to every line still costs one decode per line. After _MAX_LEARNED names (a
    hostile bundle), lines with yet other names are decoded twice instead: leniently
    for the typed part, and as raw slices for the extras.

    `decode` raises msgspec.DecodeError (or ValidationError, UnicodeDecodeError)
    for an invalid line: the caller then diagnoses it slowly.
    """

    _MAX_LEARNED = 64

    def __init__(self, record: type[Struct], lenient: type[Struct]):
        self._record = record
        self._plain = msgspec.json.Decoder(record).decode
        self._lenient = msgspec.json.Decoder(lenient).decode
        self._names = frozenset(f.encode_name for f in msgspec.structs.fields(record))
        self._learned: dict[str, str] = {}  # Struct field name → JSON key
        self._extended = self._plain
        self._prefer_extended = False  # the last line had extras: try them first

    def decode(self, data: bytes) -> tuple[Any, dict[str, Any]]:
        if not self._prefer_extended:  # the hot path: a line without extras
            try:
                return self._plain(data), {}
            except msgspec.ValidationError as exc:
                if _UNKNOWN_TOP_FIELD.fullmatch(str(exc)) is None:
                    raise
        return self._decode_extended(data)

    def _decode_extended(self, data: bytes) -> tuple[Any, dict[str, Any]]:
        # Each failed attempt learns one more name, so this loop is bounded.
        while True:
            try:
                return self._split(self._extended(data))
            except msgspec.ValidationError as exc:
                unknown = _UNKNOWN_TOP_FIELD.fullmatch(str(exc))
                if unknown is None:
                    raise
                key = unknown[1]
                if (
                    len(self._learned) >= self._MAX_LEARNED
                    or key in self._learned.values()
                    or _UNRENAMABLE.search(key)
                ):
                    return self._decode_twice(data)
                self._learn(key)

    def _learn(self, key: str) -> None:
        self._learned[f"_extra{len(self._learned)}"] = key
        extended = msgspec.defstruct(
            f"{self._record.__name__}WithExtra",
            [(field, Any | UnsetType, UNSET) for field in self._learned],
            bases=(self._record,),
            rename=dict(self._learned),
        )
        self._extended = msgspec.json.Decoder(extended).decode

    def _split(self, decoded: Struct) -> tuple[Any, dict[str, Any]]:
        values = msgspec.structs.asdict(decoded)
        extra = {}
        for field, key in self._learned.items():
            value = values.pop(field)
            if value is not UNSET:
                extra[key] = value
        self._prefer_extended = bool(extra)
        return self._record(**values), extra

    def _decode_twice(self, data: bytes) -> tuple[Any, dict[str, Any]]:
        typed = self._lenient(data)
        raw = _decode_raw_object(data)
        extra = {k: _decode_any(v) for k, v in raw.items() if k not in self._names}
        return self._record(**msgspec.structs.asdict(typed)), extra
