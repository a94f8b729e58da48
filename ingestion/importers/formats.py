"""Which native format a path holds, and the one dispatch the command and the API use."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ingestion.bundles.lines import strip_bom
from ingestion.importers.common import MAX_DOCUMENT_BYTES, Conversion, Output, load_or_reason
from ingestion.importers.harbor import RESULT_FILE, convert_harbor, is_trial, walk_results
from ingestion.importers.tau_bench import convert_tau_bench

FORMATS = ("arena", "harbor", "tau-bench")
_DETECT_BYTES = 64 * 1024


def detect_format(path: Path | str) -> str:
    """Which format `path` holds ("arena", "harbor" or "tau-bench"), for `--format auto`.

    Anything not recognisably native is "arena", so the normal path rejects it with
    its own, precise errors.
    """
    path = Path(path)
    if path.is_dir():
        if (path / "manifest.json").is_file():
            return "arena"
        trials = (obj for _, obj in walk_results(path) if is_trial(obj))
        return "harbor" if next(trials, None) is not None else "arena"
    head = _head(path)
    if head.startswith(b"["):  # an arena JSON document is an object, never a list
        return "tau-bench"
    if head.startswith(b"{") and path.name == RESULT_FILE and is_trial(load_or_reason(path)):
        return "harbor"
    return "arena"


def _head(path: Path) -> bytes:
    try:
        with path.open("rb") as fh:
            return strip_bom(fh.read(_DETECT_BYTES)).lstrip()
    except OSError:
        return b""


def convert_native(
    fmt: str,
    path: Path | str,
    *,
    harness: dict[str, Any],
    suite: str,
    suite_version: str,
    model: str | None,
    out: Output,
    max_document_bytes: int = MAX_DOCUMENT_BYTES,
) -> Conversion:
    """Convert a Harbor job folder or a τ-bench results file, by `fmt`, into a bundle.

    `max_document_bytes` caps what is parsed at once: one Harbor result.json, one
    τ-bench item (the list itself is parsed incrementally).
    """
    common = {"harness": harness, "suite": suite, "suite_version": suite_version, "out": out}
    if fmt == "harbor":
        return convert_harbor(path, model=model, max_file_bytes=max_document_bytes, **common)
    if fmt == "tau-bench":
        return convert_tau_bench(
            path, model=model or "", max_item_bytes=max_document_bytes, **common
        )
    raise ValueError(f"not a native format: {fmt!r}")
