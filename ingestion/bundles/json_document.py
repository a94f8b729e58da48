"""The single JSON document container: `{"manifest": {...}, "runs": [...], "sessions": [...]}`
(small bundles, through the API)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import msgspec

from ingestion.bundles.container import Container, Upload
from ingestion.bundles.depth import too_deep, too_deep_message
from ingestion.bundles.errors import ErrorCollector, rejected, too_big_document
from ingestion.bundles.limits import JSON_DEPTH_MAX, BundleLimits
from ingestion.bundles.lines import strip_bom
from ingestion.bundles.verification import only_archives_error

_decode_top = msgspec.json.Decoder(dict[str, msgspec.Raw]).decode
_decode_items = msgspec.json.Decoder(list[msgspec.Raw] | None).decode
_NOT_A_BUNDLE = "a JSON bundle must be an object with manifest, runs and sessions"


class JsonDocument(Container):
    """Parsed into raw slices first (msgspec.Raw), so each run is decoded by the same
    typed path as a jsonl line. Errors name the array: file "runs", line = item
    number (1-based).
    """

    kind = "json"
    files: dict[str, int] = {}

    def __init__(self, upload: Upload, limits: BundleLimits, name: str):
        self.name = name
        # Parsed whole, so held to the one-document cap before a byte is read: larger
        # bundles come as archives, whose records stream.
        if upload.size > limits.max_line_bytes:
            raise rejected(
                name,
                f"a JSON bundle {too_big_document(upload.size, limits.max_line_bytes)}; send a .tar.gz or .zip instead",
            )
        data = upload.read_all()
        # Two levels are the document's own ({"runs": [...]}): each record may nest as
        # deep as a jsonl line (its own check then names it).
        if too_deep(data, JSON_DEPTH_MAX + 2):
            raise rejected(name, f"a record {too_deep_message()}")
        self._parsed = False
        try:
            self._manifest, self._items = self._split(data)
        except msgspec.DecodeError as exc:
            self._manifest, self._items = self._split_leniently(data, limits, exc)
            self._parsed = True

    def _split(self, data: bytes) -> tuple[bytes, dict[str, list[Any] | None]]:
        try:
            top = _decode_top(data)
        except msgspec.ValidationError as exc:
            raise rejected(self.name, _NOT_A_BUNDLE) from exc
        if "manifest" not in top:
            raise rejected(self.name, "is required", field="manifest")
        if "verification" in top:
            raise only_archives_error(self.name)
        items: dict[str, list[Any] | None] = {}
        for kind in ("runs", "sessions"):
            try:
                raws = _decode_items(top[kind]) if kind in top else None
            except msgspec.ValidationError as exc:
                raise rejected(self.name, "must be an array", field=kind) from exc
            items[kind] = raws  # slices of `data`, not copies: decoded as they are
        return bytes(top["manifest"]), items

    def _split_leniently(
        self, data: bytes, limits: BundleLimits, error: msgspec.DecodeError
    ) -> tuple[bytes, dict[str, list[Any] | None]]:
        # Not strict JSON. The stdlib parser (which takes NaN and Infinity) then lets
        # the record checks name the field; only for small documents, as it is slow
        # and memory-hungry.
        try:
            if len(data) > limits.max_line_bytes:
                raise ValueError
            top = json.loads(strip_bom(data).decode("utf-8"))
        except (ValueError, UnicodeDecodeError):
            raise rejected(self.name, f"not valid JSON: {error}") from error
        if not isinstance(top, dict):
            raise rejected(self.name, _NOT_A_BUNDLE)
        if "manifest" not in top:
            raise rejected(self.name, "is required", field="manifest")
        if "verification" in top:
            raise only_archives_error(self.name)
        items: dict[str, list[Any] | None] = {}
        for kind in ("runs", "sessions"):
            value = top.get(kind)
            if value is not None and not isinstance(value, list):
                raise rejected(self.name, "must be an array", field=kind)
            items[kind] = value
        return json.dumps(top["manifest"]).encode(), items

    def has(self, kind: str) -> bool:
        return self._items.get(kind) is not None

    def label(self, kind: str) -> str:
        return kind

    def manifest_bytes(self, cap: int, errors: ErrorCollector) -> bytes | None:
        if not (self.has("runs") or self.has("sessions")):
            raise rejected(self.name, "the bundle has neither runs nor sessions")
        return self._manifest

    def items(
        self, kind: str, limits: BundleLimits, errors: ErrorCollector
    ) -> tuple[Iterator[tuple[int, Any]], bool]:
        return enumerate(self._items.get(kind) or (), 1), self._parsed
