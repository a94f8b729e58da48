"""Opening an uploaded file: `open_bundle` (the Bundle API) and `open_archive` (the
same vetted archive, for importers that unpack a native job folder).

The caller (the ingest service) does:

    with open_bundle(path, limits=limits, name="upload.tar.gz") as bundle:
        for run in bundle.iter_runs(task_lookup):
            ...                     # stream the row out (COPY)
        bundle.raise_if_errors()    # BundleRejected listing every problem

`open_bundle` refuses a hostile or broken container before any member content is
read: every archive header is checked first (count, paths, links, device files,
declared sizes, compression ratio). Records are then validated while they stream;
their errors are collected, not raised, so one pass reports them all.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ingestion.bundles.container import Container, Upload
from ingestion.bundles.documents import parse_manifest, validate_trajectory
from ingestion.bundles.errors import ErrorCollector, empty_file_error, rejected
from ingestion.bundles.inflate import GZIP_MAGIC
from ingestion.bundles.json_document import JsonDocument
from ingestion.bundles.limits import VERIFICATION_FILE, BundleLimits
from ingestion.bundles.lines import strip_bom
from ingestion.bundles.schema import Manifest, RunRecord, SessionRecord, normalize_trajectory_path
from ingestion.bundles.tar_gz import TarGz
from ingestion.bundles.validators import (
    AgentLookup,
    RunValidator,
    SessionValidator,
    SuiteKnown,
    TaskLookup,
)
from ingestion.bundles.verification import (
    SIGNED_FILES,
    STATEMENT_MAX_BYTES,
    Statement,
    parse_statement,
    verification_error,
)
from ingestion.bundles.zip_archive import ZIP_MAGICS, Zip


def open_bundle(path: Path | str, *, limits: BundleLimits, name: str = "upload") -> Bundle:
    """Open and vet a bundle file: a .tar.gz/.tgz, a .zip or a JSON document.

    Raises BundleRejected if the container is unreadable or hostile, or if the
    manifest is invalid. Use the result as a context manager (it may hold temporary
    files).
    """
    upload = Upload(Path(path), limits, name)
    head = upload.head(1024)
    if head.startswith(GZIP_MAGIC):
        container: Container = TarGz(upload, limits, name)
    elif head.startswith(ZIP_MAGICS):
        container = Zip(upload, limits, name)
    elif strip_bom(head).lstrip().startswith(b"{"):
        container = JsonDocument(upload, limits, name)
    else:
        raise rejected(name, "not a valid archive: expected a .tar.gz, a .zip or a JSON document")
    try:
        return Bundle(container, _read_manifest(container, limits), limits, name)
    except BaseException:
        container.close()
        raise


def open_archive(path: Path, *, limits: BundleLimits, name: str) -> Container:
    """Open and vet a .tar.gz/.tgz or .zip archive of any files (not a bundle): the
    same header checks as `open_bundle`. Close it after use."""
    upload = Upload(path, limits, name)
    head = upload.head(4)
    if head.startswith(GZIP_MAGIC):
        return TarGz(upload, limits, name)
    if head.startswith(ZIP_MAGICS):
        return Zip(upload, limits, name)
    raise rejected(name, "not a valid archive (.tar.gz or .zip)")


def _read_manifest(container: Container, limits: BundleLimits) -> Manifest:
    errors = ErrorCollector()
    data = container.manifest_bytes(limits.max_line_bytes, errors)
    errors.raise_if_any()
    assert data is not None
    return parse_manifest(data, has_runs=container.has("runs"), file=container.label("manifest"))


class Bundle:
    """An opened, vetted bundle. Its records are validated as they are iterated.

    Attributes: manifest, name, kind ("tar.gz", "zip", "json"), has_runs,
    has_sessions, limits, errors (an ErrorCollector).
    """

    def __init__(self, container: Container, manifest: Manifest, limits: BundleLimits, name: str):
        self._container = container
        self.manifest = manifest
        self.limits = limits
        self.name = name
        self.kind = container.kind
        self.has_runs = container.has("runs")
        self.has_sessions = container.has("sessions")
        self.errors = ErrorCollector()

    def iter_runs(
        self, task_lookup: TaskLookup, suite_known: SuiteKnown | None = None
    ) -> Iterator[RunRecord]:
        """Valid runs, streamed line by line. Invalid lines are skipped and their
        errors collected in `self.errors`; call `raise_if_errors()` after the loop.

        `task_lookup(suite, suite_version, task_id)` returns the primary key of an
        approved task, else None; it is called once per distinct task.
        `suite_known(suite, suite_version)` tells a missing suite from a missing task.
        """
        validator = RunValidator(
            self.errors,
            task_lookup,
            file=self._container.label("runs"),
            trajectory_exists=self._container.has_trajectory,
            suite_known=suite_known or (lambda suite, version: True),
        )
        yield from self._validated("runs", validator)

    def iter_sessions(self, agent_lookup: AgentLookup | None = None) -> Iterator[SessionRecord]:
        """Valid sessions, streamed line by line; errors go to `self.errors`.

        `agent_lookup(harness, version)` resolves a session's `agent` to its Harness
        row (or names why it cannot); without one, agents are checked for shape only.
        """
        validator = SessionValidator(
            self.errors, file=self._container.label("sessions"), agent_lookup=agent_lookup
        )
        yield from self._validated("sessions", validator)

    def read_trajectory(self, path: str) -> list[Any] | None:
        """The trajectory file `trajectories/<run_id>.json`, validated: its parsed list
        of turns (unknown keys kept), or None if the bundle has no such file or it is
        invalid (then its errors are in `self.errors`)."""
        normalized = normalize_trajectory_path(path)
        if normalized is None or not self._container.has_trajectory(normalized):
            return None
        data = self._container.read_document(normalized, self.limits.max_line_bytes, self.errors)
        return None if data is None else validate_trajectory(data, normalized, self.errors)

    def verification(self) -> Statement | None:
        """The parsed verification.json at the archive root, or None if it has none
        (a JSON document never has one: it is refused at open if it tries)."""
        if VERIFICATION_FILE not in self._container.files:
            return None
        data = self._container.read_document(
            VERIFICATION_FILE, STATEMENT_MAX_BYTES, ErrorCollector()
        )
        if data is None:
            raise verification_error(
                f"malformed verification.json: over {STATEMENT_MAX_BYTES:,} bytes"
            )
        return parse_statement(data)

    def signed_files(self) -> list[str]:
        """The files a verifier's signature must cover that this archive holds."""
        return [path for path in SIGNED_FILES if path in self._container.files]

    def results_digests(self) -> dict[str, str]:
        """SHA-256 hex of each results file the archive holds, byte for byte (computed
        while its records streamed, so after iterating them no file is read twice)."""
        files = self._container.files
        return {path: self._container.sha256(path) for path in SIGNED_FILES if path in files}

    def raise_if_errors(self) -> None:
        self.errors.raise_if_any()

    def close(self) -> None:
        self._container.close()

    def __enter__(self) -> Bundle:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _validated(self, kind: str, validator: RunValidator | SessionValidator) -> Iterator[Any]:
        items, parsed = self._container.items(kind, self.limits, self.errors)
        check = validator.from_object if parsed else validator.from_json
        errors_before, records = self.errors.total, 0
        for line_no, item in items:
            record = check(line_no, item)
            if record is not None:
                records += 1
                yield record
        if self._container.has(kind) and not records and self.errors.total == errors_before:
            # Present yet holding nothing (empty, or blank lines only): a submission of
            # nothing is a mistake, most often a converter that wrote no line.
            self.errors.add(self._container.label(kind), None, "", empty_file_error(kind))
