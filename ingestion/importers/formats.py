"""Which native format a path holds, and the one dispatch the command and the API use.

Each format is one module exposing `convert(path, *, params, out, max_document_bytes)`
and, for detection, `looks_like(path, head)`; adding a format is one more module and
one more line in CONVERTERS (and its name in limits.NATIVE_FORMATS).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ingestion.bundles.limits import NATIVE_FORMATS
from ingestion.bundles.lines import strip_bom
from ingestion.importers import agentdojo, harbor, swebench, task_matrix, tau2_bench, tau_bench
from ingestion.importers.common import Conversion, NativeParams, Output
from ingestion.importers.native_json import MAX_DOCUMENT_BYTES
from ingestion.importers.transcripts import claude_code

FORMATS = ("arena", *NATIVE_FORMATS)
_DETECT_BYTES = 64 * 1024

Converter = Callable[..., Conversion]
CONVERTERS: dict[str, Converter] = {
    "harbor": harbor.convert,
    "tau-bench": tau_bench.convert,
    "tau2-bench": tau2_bench.convert,
    "claude-code": claude_code.convert,
    "agentdojo": agentdojo.convert,
    "swebench": swebench.convert,
    "task-matrix": task_matrix.convert,
}
# What the submitter must give for each format, because its files never say it
# (names as in NativeParams / the API's form fields). The command and the API read this.
_RUN_PARAMS = ("harness", "harness_version", "suite", "suite_version")
REQUIRED_PARAMS: dict[str, tuple[str, ...]] = {
    "harbor": _RUN_PARAMS,
    "tau-bench": (*_RUN_PARAMS, "model"),
    "tau2-bench": _RUN_PARAMS,
    "claude-code": (),
    "agentdojo": _RUN_PARAMS,
    "swebench": _RUN_PARAMS,
    "task-matrix": _RUN_PARAMS,
}
DESCRIPTIONS = {
    "harbor": "a Harbor job folder",
    "tau-bench": "a τ-bench results file",
    "tau2-bench": "a τ²-bench results file",
    "claude-code": "Claude Code transcripts",
    "agentdojo": "an AgentDojo pipeline's run folder",
    "swebench": "SWE-bench results (leaderboard per-instance details or resolved id lists)",
    "task-matrix": "a task matrix (CSV or JSON rows: task, agent, model, outcome)",
}
# Tried in this order by detect_format; the first that recognises the path wins.
_DETECTORS: tuple[tuple[str, Callable[[Path, bytes], bool]], ...] = (
    ("harbor", harbor.looks_like),
    ("agentdojo", agentdojo.looks_like),
    ("tau2-bench", tau2_bench.looks_like),
    ("swebench", swebench.looks_like),
    ("task-matrix", task_matrix.looks_like),
    ("tau-bench", tau_bench.looks_like),
    ("claude-code", claude_code.looks_like),
)
assert set(CONVERTERS) == set(NATIVE_FORMATS) == set(REQUIRED_PARAMS) == set(DESCRIPTIONS)


def detect_format(path: Path | str) -> str:
    """Which format `path` holds ("arena" or one of NATIVE_FORMATS), for `--format auto`.

    Anything not recognisably native is "arena", so the normal path rejects it with
    its own, precise errors.
    """
    path = Path(path)
    if path.is_dir() and (path / "manifest.json").is_file():
        return "arena"
    head = b"" if path.is_dir() else _head(path)
    for name, looks_like in _DETECTORS:
        if looks_like(path, head):
            return name
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
    params: NativeParams,
    out: Output,
    max_document_bytes: int = MAX_DOCUMENT_BYTES,
) -> Conversion:
    """Convert native results at `path`, by `fmt`, into an arena bundle written to `out`.

    `max_document_bytes` caps what is parsed at once (one Harbor result.json, one
    τ-bench item, one transcript line). Raises ValueError for an unknown format or
    missing parameters, BundleRejected for native files with errors.
    """
    converter = CONVERTERS.get(fmt)
    if converter is None:
        raise ValueError(f"not a native format: {fmt!r}")
    return converter(Path(path), params=params, out=out, max_document_bytes=max_document_bytes)
