"""Reading an `arena-bundle/1` upload: the container, its limits, hostile archives.

Pure Python: no Django, no database. The caller (the ingest service) does:

    with open_bundle(upload, limits=limits, name="upload.tar.gz") as bundle:
        for run in bundle.iter_runs(task_lookup):
            ...                     # stream the row out (COPY)
        bundle.raise_if_errors()    # BundleRejected listing every problem

`open_bundle` refuses a hostile or broken container before any member content is
read: every archive header is checked first (count, paths, links, device files,
declared sizes, compression ratio). Records are then validated while they stream;
their errors are collected, not raised, so one pass reports them all.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import pathlib
import stat
import struct
import tarfile
import tempfile
import zipfile
import zlib
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, BinaryIO

import msgspec

from ingestion.records import (
    MAX_REPORTED_ERRORS,
    TRAJECTORY_DIR,
    BundleError,
    BundleRejected,
    ErrorCollector,
    Manifest,
    RunRecord,
    RunValidator,
    SessionRecord,
    SessionValidator,
    TaskLookup,
    normalize_trajectory_path,
    parse_manifest,
    rejected,
    validate_trajectory,
)

__all__ = [
    "MAX_REPORTED_ERRORS",
    "Bundle",
    "BundleError",
    "BundleLimits",
    "BundleRejected",
    "ErrorCollector",
    "Manifest",
    "RunRecord",
    "SessionRecord",
    "open_bundle",
    "sha256_of",
]

CHUNK = 1024 * 1024  # how much of a member is read at a time
# tarfile reads a pax or GNU long-name header in one read() call; refusing larger
# reads bounds the memory a forged header can take.
_MAX_TAR_READ = 4 * 1024 * 1024
# A member smaller than this is never judged by its compression ratio: small files
# (a padded JSON file, a repetitive trajectory) can compress 100:1 without harm, and
# the total uncompressed limit bounds what many of them can add up to.
RATIO_MIN_BYTES = 1024 * 1024
_RATIO_SLACK = 4096  # compressed bytes counted around a tar member boundary
_TAR_FRAMING_PER_MEMBER = 2048  # header + padding, beyond the declared sizes
_GZIP_MAGIC = b"\x1f\x8b"
_ZIP_MAGICS = (b"PK\x03\x04", b"PK\x05\x06")
_BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True)
class BundleLimits:
    max_upload_bytes: int = 200 * 1024**2
    max_uncompressed_bytes: int = 2 * 1024**3
    max_members: int = 100_000
    max_compression_ratio: float = 100.0
    max_line_bytes: int = 10 * 1024**2  # also the cap for one JSON document


Source = pathlib.Path | str | bytes | bytearray | memoryview | BinaryIO


# --------------------------------------------------------------------- public API


def open_bundle(source: Source, *, limits: BundleLimits, name: str = "upload") -> Bundle:
    """Open and vet a bundle: a directory, a .tar.gz/.tgz, a .zip or a JSON document.

    Raises BundleRejected if the container is unreadable or hostile, or if the
    manifest is invalid. Use the result as a context manager (it may hold temporary
    files).
    """
    if isinstance(source, str):
        source = pathlib.Path(source)
    if isinstance(source, pathlib.Path) and source.is_dir():
        container: _Container = _Directory(source, limits, name)
    else:
        upload = _Upload.of(source, limits, name)
        try:
            container = _open_container(upload, limits, name)
        except BaseException:
            upload.close()
            raise
    try:
        manifest = _read_manifest(container, limits)
        return Bundle(container, manifest, limits, name)
    except BaseException:
        container.close()
        raise


def sha256_of(source: Source) -> str:
    """SHA-256 of the uploaded bytes (for a directory: of its files' paths and bytes).

    The same value as `Bundle.sha256`, without opening the bundle: for recording a
    rejected upload, or finding an earlier submission of the same bytes first.
    """
    if isinstance(source, str):
        source = pathlib.Path(source)
    if isinstance(source, pathlib.Path) and source.is_dir():
        return _Directory(
            source, BundleLimits(max_members=2**62, max_uncompressed_bytes=2**62), ""
        ).sha256()
    upload = _Upload.of(source, BundleLimits(max_upload_bytes=2**62), "")
    try:
        return upload.sha256()
    finally:
        upload.close()


class Bundle:
    """An opened, vetted bundle. Its records are validated as they are iterated.

    Attributes: manifest, sha256, name, kind ("tar.gz", "zip", "directory", "json"),
    has_runs, has_sessions, limits, errors (an ErrorCollector).
    """

    def __init__(self, container: _Container, manifest: Manifest, limits: BundleLimits, name: str):
        self._container = container
        self.manifest = manifest
        self.limits = limits
        self.name = name
        self.kind = container.kind
        self.has_runs = container.has("runs")
        self.has_sessions = container.has("sessions")
        self.errors = ErrorCollector()
        self._sha256: str | None = None

    @property
    def sha256(self) -> str:
        # Computed on first use (one read of the upload), then remembered.
        if self._sha256 is None:
            self._sha256 = self._container.sha256()
        return self._sha256

    def iter_runs(self, task_lookup: TaskLookup) -> Iterator[RunRecord]:
        """Valid runs, streamed line by line. Invalid lines are skipped and their
        errors collected in `self.errors`; call `raise_if_errors()` after the loop.

        `task_lookup(suite, suite_version, task_id)` returns the primary key of an
        approved task, else None; it is called once per distinct task.
        """
        validator = RunValidator(
            self.errors,
            task_lookup,
            file=self._container.label("runs"),
            trajectory_exists=self._container.has_trajectory,
        )
        yield from self._validated("runs", validator)

    def iter_sessions(self) -> Iterator[SessionRecord]:
        """Valid sessions, streamed line by line; errors go to `self.errors`."""
        validator = SessionValidator(self.errors, file=self._container.label("sessions"))
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

    def iter_trajectories(self) -> Iterator[tuple[str, list[Any]]]:
        """Every valid trajectory file as (path, turns), in archive order, in one pass."""
        for path, data in self._container.iter_trajectory_files(
            self.limits.max_line_bytes, self.errors
        ):
            turns = validate_trajectory(data, path, self.errors)
            if turns is not None:
                yield path, turns

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
        for line_no, item in items:
            record = check(line_no, item)
            if record is not None:
                yield record


# ------------------------------------------------------------------- jsonl lines


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
            chunk = chunk.removeprefix(_BOM)  # tolerated, as editors on Windows add it
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
    errors.add(file, line_no, "", f"line is longer than the limit of {_size(limit)}")
    return True


# ------------------------------------------------------------------------- upload


class _Upload:
    """The uploaded bytes, readable any number of times through independent streams."""

    def __init__(self, opener: Callable[[], BinaryIO], size: int, owned: BinaryIO | None = None):
        self.open = opener
        self.size = size
        self._owned = owned  # a temporary copy to close with the upload

    @classmethod
    def of(cls, source: Source, limits: BundleLimits, name: str) -> _Upload:
        """Checks the upload size first, before anything is read."""
        if isinstance(source, (bytes, bytearray, memoryview)):
            data = bytes(source)
            _check_upload_size(len(data), limits, name)
            return cls(lambda: io.BytesIO(data), len(data))
        if isinstance(source, pathlib.Path):
            size = source.stat().st_size
            _check_upload_size(size, limits, name)
            return cls(lambda: open(source, "rb"), size)
        if getattr(source, "seekable", lambda: False)():
            start = source.tell()
            source.seek(0, io.SEEK_END)
            size = source.tell() - start
            source.seek(start)
            _check_upload_size(size, limits, name)
            return cls(lambda: _Window(source, start, size), size)
        return cls._spooled(source, limits, name)

    @classmethod
    def _spooled(cls, source: BinaryIO, limits: BundleLimits, name: str) -> _Upload:
        # A stream that cannot seek is copied once, stopping as soon as it is too big.
        copy = tempfile.TemporaryFile()  # noqa: SIM115 (kept open by the _Upload, closed by close())
        size = 0
        while data := source.read(CHUNK):
            size += len(data)
            if size > limits.max_upload_bytes:
                copy.close()
                _check_upload_size(size, limits, name)
            copy.write(data)
        return cls(lambda: _Window(copy, 0, size), size, owned=copy)

    def head(self, n: int) -> bytes:
        with self.open() as f:
            return f.read(n)

    def read_all(self) -> bytes:
        with self.open() as f:
            return f.read()

    def sha256(self) -> str:
        digest = hashlib.sha256()
        with self.open() as f:
            while data := f.read(CHUNK):
                digest.update(data)
        return digest.hexdigest()

    def close(self) -> None:
        if self._owned is not None:
            self._owned.close()


def _check_upload_size(size: int, limits: BundleLimits, name: str) -> None:
    if size > limits.max_upload_bytes:
        raise rejected(
            name, f"upload is {size:,} bytes, over the limit of {_size(limits.max_upload_bytes)}"
        )


class _Window(io.RawIOBase):
    """A read position of its own over a seekable stream that others also read."""

    def __init__(self, base: BinaryIO, start: int, size: int):
        self._base, self._start, self._size, self._pos = base, start, size, 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        n = min(len(buffer), self._size - self._pos)
        if n <= 0:
            return 0
        self._base.seek(self._start + self._pos)
        data = self._base.read(n)
        buffer[: len(data)] = data
        self._pos += len(data)
        return len(data)

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._pos, io.SEEK_END: self._size}[whence]
        self._pos = max(0, base + offset)
        return self._pos

    def tell(self) -> int:
        return self._pos

    def close(self) -> None:  # never closes the shared stream
        super().close()


def _open_container(upload: _Upload, limits: BundleLimits, name: str) -> _Container:
    head = upload.head(1024)
    if head.startswith(_GZIP_MAGIC):
        return _TarGz(upload, limits, name)
    if head.startswith(_ZIP_MAGICS):
        return _Zip(upload, limits, name)
    if head.removeprefix(_BOM).lstrip().startswith(b"{"):
        return _Document(upload, limits, name)
    raise rejected(name, "not a valid archive: expected a .tar.gz, a .zip or a JSON document")


def _read_manifest(container: _Container, limits: BundleLimits) -> Manifest:
    errors = ErrorCollector()
    data = container.manifest_bytes(limits.max_line_bytes, errors)
    errors.raise_if_any()
    assert data is not None
    return parse_manifest(data, has_runs=container.has("runs"), file=container.label("manifest"))


# ------------------------------------------------------------------ header checks


class _HeaderScan:
    """Checks archive member headers before any content is read.

    A broken limit (member count, declared size, ratio) rejects at once, so a hostile
    archive is never walked further; path and type problems are collected so the
    submitter sees them all.
    """

    def __init__(self, limits: BundleLimits, name: str, archive_size: int):
        self.limits = limits
        self.name = name
        self.archive_size = archive_size
        self.problems = ErrorCollector()
        self.files: dict[str, int] = {}  # normalized path → declared size
        self.nested_manifest: str | None = None
        self._members = 0
        self._declared = 0

    def check(
        self, raw_name: str, kind: str, size: int, compressed: int | None = None
    ) -> str | None:
        """The normalized path of a regular file that passes, else None.

        `compressed` is the member's own compressed size (zip); None for tar.gz,
        where only the whole archive's size is known.
        """
        self._members += 1
        if self._members > self.limits.max_members:
            raise rejected(
                self.name, f"archive has more than {self.limits.max_members:,} members, the limit"
            )
        path, problem = _safe_member_path(raw_name)
        if problem is None and kind not in ("file", "dir"):
            problem = _KIND_PROBLEMS.get(
                kind, "has an unsupported type; only regular files and directories are allowed"
            )
        if problem is not None:
            self.problems.add(self.name, None, "", f"member {raw_name!r} {problem}")
            return None
        if kind == "dir":
            return None
        self._check_sizes(raw_name, size, compressed)
        if path in self.files:
            self.problems.add(self.name, None, "", f"member {raw_name!r} appears more than once")
            return None
        if path.endswith("/manifest.json") and self.nested_manifest is None:
            self.nested_manifest = path
        self.files[path] = size
        return path

    def _check_sizes(self, raw_name: str, size: int, compressed: int | None) -> None:
        self._declared += size
        if self._declared > self.limits.max_uncompressed_bytes:
            raise rejected(
                self.name,
                f"uncompressed size exceeds the limit of {_size(self.limits.max_uncompressed_bytes)} "
                f"(the headers declare at least {self._declared:,} bytes)",
            )
        limit = self.limits.max_compression_ratio
        # For tar.gz a member's own compressed size is unknown, but it cannot exceed
        # the whole archive: declared > limit × archive size is certainly a bomb.
        packed = self.archive_size if compressed is None else compressed
        if size > RATIO_MIN_BYTES and size > limit * packed:
            ratio = size // max(packed, 1)
            source = (
                f"{packed:,} compressed" if compressed is not None else f"a {packed:,}-byte archive"
            )
            raise rejected(
                self.name,
                f"member {raw_name!r}: compression ratio {ratio:,}:1 exceeds the limit of {limit:g}:1 "
                f"({size:,} bytes from {source})",
            )

    def raise_if_problems(self) -> None:
        self.problems.raise_if_any()


_KIND_PROBLEMS = {
    "symlink": "is a symbolic link; links are not allowed",
    "hardlink": "is a hard link; links are not allowed",
    "device": "is a device file; only regular files and directories are allowed",
    "fifo": "is a FIFO; only regular files and directories are allowed",
    "encrypted": "is encrypted",
}


def _safe_member_path(name: str) -> tuple[str, str | None]:
    """(normalized relative path, problem or None). `./x` and `a//b` are tidied."""
    if "\0" in name:
        return name, "has a NUL character in its path"
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:  # tarfile keeps undecodable bytes as surrogates
        return name, "has a path that is not valid UTF-8"
    if name.startswith(("/", "\\")) or (len(name) > 1 and name[1] == ":" and name[0].isalpha()):
        return name, "has an absolute path"
    parts = name.replace("\\", "/").split("/")
    if ".." in parts:
        return name, "has '..' in its path"
    if "\\" in name:
        return name, "has a backslash in its path"
    return "/".join(p for p in parts if p not in ("", ".")), None


# --------------------------------------------------------------------- containers


class _Container:
    """What a Bundle reads from: an archive, a directory or a JSON document."""

    kind: str
    name: str  # the upload's name, for errors about the container
    files: dict[str, int]  # normalized path → size, regular files only
    nested_manifest: str | None = None  # e.g. bundle/manifest.json, for a hint

    def has(self, kind: str) -> bool:
        return f"{kind}.jsonl" in self.files

    def label(self, kind: str) -> str:
        return "manifest.json" if kind == "manifest" else f"{kind}.jsonl"

    def has_trajectory(self, path: str) -> bool:
        return path in self.files and path.startswith(TRAJECTORY_DIR)

    def manifest_bytes(self, cap: int, errors: ErrorCollector) -> bytes | None:
        if "manifest.json" not in self.files:
            hint = self.nested_manifest
            extra = f" (found {hint}: pack the bundle's contents, not its folder)" if hint else ""
            raise rejected(self.name, f"no manifest.json at the archive root{extra}")
        if not (self.has("runs") or self.has("sessions")):
            raise rejected(self.name, "the bundle has neither runs.jsonl nor sessions.jsonl")
        return self.read_document("manifest.json", cap, errors)

    def items(
        self, kind: str, limits: BundleLimits, errors: ErrorCollector
    ) -> tuple[Iterator[tuple[int, Any]], bool]:
        """(line number, line bytes) of `<kind>.jsonl`, and False: not yet parsed."""
        name = f"{kind}.jsonl"
        if name not in self.files:
            return iter(()), False
        lines = iter_lines(
            self.iter_chunks(name), file=name, max_line_bytes=limits.max_line_bytes, errors=errors
        )
        return lines, False

    def read_document(self, path: str, cap: int, errors: ErrorCollector) -> bytes | None:
        """A whole member, if it is not over `cap` bytes (else an error and None)."""
        size = self.files[path]
        if size > cap:
            errors.add(
                path,
                None,
                "",
                f"is {size:,} bytes, over the limit of {_size(cap)} for one JSON document",
            )
            return None
        return b"".join(self.iter_chunks(path))

    def iter_trajectory_files(
        self, cap: int, errors: ErrorCollector
    ) -> Iterator[tuple[str, bytes]]:
        for path in list(self.files):
            if self.has_trajectory(path) and normalize_trajectory_path(path) == path:
                data = self.read_document(path, cap, errors)
                if data is not None:
                    yield path, data

    def iter_chunks(self, path: str) -> Iterator[bytes]:
        raise NotImplementedError

    def sha256(self) -> str:
        raise NotImplementedError

    def close(self) -> None:
        pass


# --------------------------------------------------------------------------- tar.gz


class _Inflater:
    """Forward-only reader of (possibly multi-member) gzip data.

    Counts compressed bytes consumed and bytes produced exactly, which the limits
    need, and never inflates more than asked for: a bomb is stopped one read in.
    """

    _INPUT_CHUNK = 64 * 1024

    def __init__(self, raw: BinaryIO):
        self._raw = raw
        self._z = zlib.decompressobj(wbits=31)  # gzip framing; checks CRC and length
        self._input = b""
        self.bytes_in = 0
        self.bytes_out = 0
        self.finished = False

    def read(self, n: int) -> bytes:
        parts = []
        while n > 0 and not self.finished:
            if not self._input:
                self._refill()  # may stay empty: zlib can still owe output (a cut match)
            before = len(self._input)
            out = self._z.decompress(self._input, n)
            if not out and not before and not self._z.eof:
                raise EOFError("the gzip stream is truncated")
            if self._z.eof:
                self._input = self._z.unused_data
                self.bytes_in += before - len(self._input)
                self._next_gzip_member()
            else:
                self._input = self._z.unconsumed_tail
                self.bytes_in += before - len(self._input)
            if out:
                parts.append(out)
                n -= len(out)
                self.bytes_out += len(out)
        return b"".join(parts)

    def _refill(self) -> None:
        self._input = self._raw.read(self._INPUT_CHUNK)

    def _next_gzip_member(self) -> None:
        # After one gzip member: another member, zero padding, or the end.
        while True:
            if len(self._input) < 2:
                more = self._raw.read(self._INPUT_CHUNK)
                if not more:
                    if self._input.strip(b"\0"):
                        raise zlib.error("unexpected data after the end of the gzip stream")
                    self.finished = True
                    return
                self._input += more
                continue
            if self._input.startswith(_GZIP_MAGIC):
                self._z = zlib.decompressobj(wbits=31)
                return
            if self._input.strip(b"\0"):
                raise zlib.error("unexpected data after the end of the gzip stream")
            self._input = b""


class _TarStream:
    """What tarfile reads: inflated bytes, with the limits checked on every read.

    Guards the bytes actually inflated, not just what headers declare: the total, and
    each member's own compression ratio (bytes out of its data against compressed
    bytes consumed meanwhile).
    """

    def __init__(self, inflater: _Inflater, limits: BundleLimits, name: str):
        self._inflater = inflater
        self._limits = limits
        self._name = name
        self._max_out = (
            limits.max_uncompressed_bytes + limits.max_members * _TAR_FRAMING_PER_MEMBER + CHUNK
        )
        self._member = ""
        self._in0 = self._out0 = 0

    def begin_member(self, name: str) -> None:
        self._member = name
        self._in0, self._out0 = self._inflater.bytes_in, self._inflater.bytes_out

    def read(self, n: int = -1) -> bytes:
        if n is None or n < 0 or n > _MAX_TAR_READ:
            raise rejected(self._name, f"an archive header is larger than {_size(_MAX_TAR_READ)}")
        data = self._inflater.read(n)
        self._check_limits()
        return data

    def tell(self) -> int:
        return self._inflater.bytes_out

    def seek(self, pos: int, whence: int = io.SEEK_SET) -> int:
        # tarfile seeks forward to skip member data; inflating is the only way there.
        if whence != io.SEEK_SET or pos < self.tell():
            raise OSError("cannot seek backwards in a gzip stream")
        while self.tell() < pos:
            if not self.read(min(CHUNK, pos - self.tell())):
                break  # tarfile reports the truncation itself
        return self.tell()

    def drain(self) -> None:
        """Inflate to the end, checking the limits and the gzip CRC.

        After tarfile's end of archive only zero blocks may follow: tarfile also
        stops, silently, at a damaged header, and the members after it would be lost.
        """
        while not self._inflater.finished:
            if self.read(CHUNK).strip(b"\0"):
                raise tarfile.ReadError("damaged tar header, or data after the end of the archive")

    def _check_limits(self) -> None:
        out = self._inflater.bytes_out
        if out > self._max_out:
            raise rejected(
                self._name,
                f"uncompressed size exceeds the limit of {_size(self._limits.max_uncompressed_bytes)}",
            )
        member_out = out - self._out0
        if member_out > RATIO_MIN_BYTES:
            member_in = self._inflater.bytes_in - self._in0
            limit = self._limits.max_compression_ratio
            if member_out > limit * (member_in + _RATIO_SLACK):
                ratio = member_out // max(member_in, 1)
                raise rejected(
                    self._name,
                    f"member {self._member!r}: compression ratio {ratio:,}:1 exceeds the limit of {limit:g}:1",
                )


_TAR_ERRORS = (tarfile.TarError, zlib.error, EOFError, OSError, UnicodeError)


class _TarGz(_Container):
    kind = "tar.gz"

    def __init__(self, upload: _Upload, limits: BundleLimits, name: str):
        self._upload, self._limits, self.name = upload, limits, name
        self._spool: _TrajectorySpool | None = None
        scan = _HeaderScan(limits, name, upload.size)
        with self._tar() as (tar, stream):
            for info in self._headers(tar, stream):
                scan.check(info.name, _tar_kind(info), info.size)
            stream.drain()
        scan.raise_if_problems()
        self.files = scan.files
        self.nested_manifest = scan.nested_manifest

    @contextmanager
    def _tar(self) -> Iterator[tuple[tarfile.TarFile, _TarStream]]:
        raw = self._upload.open()
        try:
            stream = _TarStream(_Inflater(raw), self._limits, self.name)
            with tarfile.open(fileobj=stream, mode="r:") as tar:  # type: ignore[call-overload]
                yield tar, stream
        except _TAR_ERRORS as exc:
            raise rejected(self.name, f"not a valid archive: {_tar_error_text(exc)}") from exc
        finally:
            raw.close()

    @staticmethod
    def _headers(tar: tarfile.TarFile, stream: _TarStream) -> Iterator[tarfile.TarInfo]:
        while (info := tar.next()) is not None:
            tar.members.clear()  # tarfile keeps every header; 100,000 of them add up
            stream.begin_member(info.name)
            yield info

    def _members(
        self, tar: tarfile.TarFile, stream: _TarStream
    ) -> Iterator[tuple[str, tarfile.TarInfo]]:
        """(path, header) of the regular files, re-checked: the source is read anew."""
        scan = _HeaderScan(self._limits, self.name, self._upload.size)
        for info in self._headers(tar, stream):
            path = scan.check(info.name, _tar_kind(info), info.size)
            scan.raise_if_problems()
            if path is not None:
                yield path, info

    def iter_chunks(self, path: str) -> Iterator[bytes]:
        with self._tar() as (tar, stream):
            for member, info in self._members(tar, stream):
                if member == path:
                    yield from _read_tar_data(stream, info)
                    return

    def read_document(self, path: str, cap: int, errors: ErrorCollector) -> bytes | None:
        if not path.startswith(TRAJECTORY_DIR):
            return super().read_document(path, cap, errors)
        # Reaching one member of a gzip stream means inflating all before it, so the
        # first trajectory read copies them all to a temporary file in one pass.
        if self._spool is None:
            self._spool = _TrajectorySpool(self._iter_trajectory_members(), cap)
        return self._spool.read(path, cap, errors)

    def iter_trajectory_files(
        self, cap: int, errors: ErrorCollector
    ) -> Iterator[tuple[str, bytes]]:
        for path, size, chunks in self._iter_trajectory_members():
            if size > cap:
                errors.add(
                    path,
                    None,
                    "",
                    f"is {size:,} bytes, over the limit of {_size(cap)} for one JSON document",
                )
                continue
            yield path, b"".join(chunks)

    def _iter_trajectory_members(self) -> Iterator[tuple[str, int, Iterator[bytes]]]:
        with self._tar() as (tar, stream):
            for path, info in self._members(tar, stream):
                if self.has_trajectory(path) and normalize_trajectory_path(path) == path:
                    yield path, info.size, _read_tar_data(stream, info)

    def sha256(self) -> str:
        return self._upload.sha256()

    def close(self) -> None:
        if self._spool is not None:
            self._spool.close()
        self._upload.close()


def _read_tar_data(stream: _TarStream, info: tarfile.TarInfo) -> Iterator[bytes]:
    # Read the member straight from the stream: tarfile left it at the data.
    if stream.tell() != info.offset_data:
        stream.seek(info.offset_data)
    remaining = info.size
    while remaining:
        data = stream.read(min(CHUNK, remaining))
        if not data:
            raise EOFError("unexpected end of data")
        remaining -= len(data)
        yield data


def _tar_kind(info: tarfile.TarInfo) -> str:
    if info.issparse():
        return "other"
    if info.isreg():
        return "file"
    if info.isdir():
        return "dir"
    if info.issym():
        return "symlink"
    if info.islnk():
        return "hardlink"
    if info.ischr() or info.isblk():
        return "device"
    if info.isfifo():
        return "fifo"
    return "other"


def _tar_error_text(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    if isinstance(exc, tarfile.ReadError) and "\n" in text:  # tarfile lists each method it tried
        text = text.splitlines()[-1].lstrip("- ")
    return text


class _TrajectorySpool:
    """Trajectory files of a tar.gz, copied into one temporary file for random access."""

    def __init__(self, members: Iterator[tuple[str, int, Iterator[bytes]]], cap: int):
        self._file = tempfile.TemporaryFile()  # noqa: SIM115 (closed by close())
        self._index: dict[str, tuple[int, int]] = {}  # path → (offset or -1, size)
        for path, size, chunks in members:
            if size > cap:
                self._index[path] = (-1, size)
                continue
            self._index[path] = (self._file.tell(), size)
            for chunk in chunks:
                self._file.write(chunk)

    def read(self, path: str, cap: int, errors: ErrorCollector) -> bytes | None:
        offset, size = self._index[path]
        if offset < 0 or size > cap:
            errors.add(
                path,
                None,
                "",
                f"is {size:,} bytes, over the limit of {_size(cap)} for one JSON document",
            )
            return None
        self._file.seek(offset)
        return self._file.read(size)

    def close(self) -> None:
        self._file.close()


# ------------------------------------------------------------------------------ zip


class _Zip(_Container):
    kind = "zip"

    def __init__(self, upload: _Upload, limits: BundleLimits, name: str):
        self._upload, self._limits, self.name = upload, limits, name
        self._fp = upload.open()
        try:
            self._zip = self._open_zip()
            scan = _HeaderScan(limits, name, upload.size)
            self._infos: dict[str, zipfile.ZipInfo] = {}
            for info in self._zip.infolist():
                path = scan.check(
                    info.filename, _zip_kind(info), info.file_size, info.compress_size
                )
                if path is not None:
                    self._infos[path] = info
            scan.raise_if_problems()
        except BaseException:
            self._fp.close()
            raise
        self.files = scan.files
        self.nested_manifest = scan.nested_manifest

    def _open_zip(self) -> zipfile.ZipFile:
        # zipfile loads the whole central directory at once: check its declared
        # entry count first, so a forged directory of millions of entries is refused.
        count = _zip_entry_count(self._fp)
        if count is not None and count > self._limits.max_members:
            raise rejected(
                self.name, f"archive has more than {self._limits.max_members:,} members, the limit"
            )
        self._fp.seek(0)
        try:
            return zipfile.ZipFile(self._fp)
        except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError) as exc:
            raise rejected(self.name, f"not a valid archive: {exc}") from exc

    def iter_chunks(self, path: str) -> Iterator[bytes]:
        info = self._infos[path]
        read = 0
        try:
            with self._zip.open(info) as member:
                while data := member.read(CHUNK):
                    read += len(data)
                    if read > info.file_size:  # zipfile stops at the declared size; be sure
                        raise rejected(
                            self.name, f"member {info.filename!r} is larger than its header says"
                        )
                    yield data
        except (
            zipfile.BadZipFile,
            zlib.error,
            EOFError,
            OSError,
            NotImplementedError,
            RuntimeError,
        ) as exc:
            raise rejected(
                self.name, f"not a valid archive: member {info.filename!r}: {exc}"
            ) from exc

    def sha256(self) -> str:
        return self._upload.sha256()

    def close(self) -> None:
        self._zip.close()
        self._fp.close()
        self._upload.close()


def _zip_kind(info: zipfile.ZipInfo) -> str:
    if info.flag_bits & 0x1:
        return "encrypted"
    mode = info.external_attr >> 16  # Unix mode, when the archiver recorded one
    kinds = {
        stat.S_IFLNK: "symlink",
        stat.S_IFCHR: "device",
        stat.S_IFBLK: "device",
        stat.S_IFIFO: "fifo",
    }
    kind = kinds.get(stat.S_IFMT(mode)) if info.create_system == 3 else None
    if kind is None and stat.S_IFMT(mode) == stat.S_IFSOCK and info.create_system == 3:
        kind = "other"
    return kind or ("dir" if info.is_dir() else "file")


def _zip_entry_count(fp: BinaryIO) -> int | None:
    """Entry count declared by the end-of-central-directory record (zip64 aware)."""
    size = fp.seek(0, io.SEEK_END)
    tail_size = min(size, 22 + 65535 + 20)
    fp.seek(size - tail_size)
    tail = fp.read(tail_size)
    end = tail.rfind(b"PK\x05\x06")
    if end < 0 or end + 22 > len(tail):
        return None  # zipfile will say what is wrong
    (count,) = struct.unpack_from("<H", tail, end + 10)
    locator = end - 20
    if count == 0xFFFF and locator >= 0 and tail[locator : locator + 4] == b"PK\x06\x07":
        (offset,) = struct.unpack_from("<Q", tail, locator + 8)
        fp.seek(offset)
        record = fp.read(56)
        if record[:4] == b"PK\x06\x06" and len(record) == 56:
            (count,) = struct.unpack_from("<Q", record, 32)
    return count


# ------------------------------------------------------------------------ directory


class _Directory(_Container):
    """A bundle laid out as a directory (command line only). No upload size limit
    applies; the member count and uncompressed size limits do."""

    kind = "directory"

    def __init__(self, root: pathlib.Path, limits: BundleLimits, name: str):
        self.root, self.name = root, name
        scan = _HeaderScan(limits, name, archive_size=2**62)  # nothing is compressed
        for rel, kind, size in self._walk():
            scan.check(rel, kind, size)
        scan.raise_if_problems()
        self.files = scan.files
        self.nested_manifest = scan.nested_manifest

    def _walk(self, rel: str = "") -> Iterator[tuple[str, str, int]]:
        with os.scandir(self.root / rel if rel else self.root) as entries:
            for entry in sorted(entries, key=lambda e: e.name):
                path = f"{rel}{entry.name}"
                st = entry.stat(follow_symlinks=False)
                kind = _mode_kind(st.st_mode)
                yield path, kind, st.st_size if kind == "file" else 0
                if kind == "dir":
                    yield from self._walk(path + "/")

    def iter_chunks(self, path: str) -> Iterator[bytes]:
        # O_NOFOLLOW: the file checked at open time must not have become a link.
        fd = os.open(self.root / path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        remaining = self.files[path]
        with os.fdopen(fd, "rb") as f:
            while remaining and (data := f.read(min(CHUNK, remaining))):
                remaining -= len(data)
                yield data

    def sha256(self) -> str:
        # Stable over paths and bytes: sorted relative paths, each length-prefixed.
        digest = hashlib.sha256()
        for path in sorted(self.files):
            encoded = path.encode()
            digest.update(struct.pack("<Q", len(encoded)) + encoded)
            digest.update(struct.pack("<Q", self.files[path]))
            for chunk in self.iter_chunks(path):
                digest.update(chunk)
        return digest.hexdigest()


def _mode_kind(mode: int) -> str:
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISDIR(mode):
        return "dir"
    if stat.S_ISLNK(mode):
        return "symlink"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    if stat.S_ISFIFO(mode):
        return "fifo"
    return "other"


# -------------------------------------------------------------------- JSON document

_decode_top = msgspec.json.Decoder(dict[str, msgspec.Raw]).decode
_decode_items = msgspec.json.Decoder(list[msgspec.Raw] | None).decode


class _Document(_Container):
    """`{"manifest": {...}, "runs": [...], "sessions": [...]}` (API, small bundles).

    Parsed into raw slices first (msgspec.Raw), so each run is decoded by the same
    typed path as a jsonl line. Errors name the array: file "runs", line = item
    number (1-based).
    """

    kind = "json"
    files: dict[str, int] = {}

    def __init__(self, upload: _Upload, limits: BundleLimits, name: str):
        self._upload, self.name = upload, name
        data = upload.read_all()
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
            raise rejected(
                self.name, "a JSON bundle must be an object with manifest, runs and sessions"
            ) from exc
        if "manifest" not in top:
            raise rejected(self.name, "is required", field="manifest")
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
            top = json.loads(data.removeprefix(_BOM).decode("utf-8"))
        except (ValueError, UnicodeDecodeError):
            raise rejected(self.name, f"not valid JSON: {error}") from error
        if not isinstance(top, dict):
            raise rejected(
                self.name, "a JSON bundle must be an object with manifest, runs and sessions"
            )
        if "manifest" not in top:
            raise rejected(self.name, "is required", field="manifest")
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

    def iter_trajectory_files(
        self, cap: int, errors: ErrorCollector
    ) -> Iterator[tuple[str, bytes]]:
        return iter(())

    def sha256(self) -> str:
        return self._upload.sha256()

    def close(self) -> None:
        self._upload.close()


# -------------------------------------------------------------------------- helpers


def _size(n: int) -> str:
    """2 GiB, 200 MiB, 10 MiB, or an exact byte count."""
    for unit, scale in (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if n >= scale and n % scale == 0:
            return f"{n // scale} {unit}"
    return f"{n:,} bytes"
