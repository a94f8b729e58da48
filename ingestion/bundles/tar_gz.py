"""The .tar.gz container: every header vetted in a first pass, members read as streams.

A gzip stream cannot seek, so each read inflates from the start again; the limits
(inflate.TarStream) are checked on every pass, since the source is read anew.
"""

from __future__ import annotations

import tarfile
import tempfile
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from ingestion.bundles.archive import CHUNK, HeaderScan, tar_kind
from ingestion.bundles.container import Container, Upload
from ingestion.bundles.errors import ErrorCollector, rejected, too_big_document
from ingestion.bundles.inflate import Inflater, TarStream
from ingestion.bundles.limits import BundleLimits
from ingestion.bundles.schema import TRAJECTORY_DIR, normalize_trajectory_path

_TAR_ERRORS = (tarfile.TarError, zlib.error, EOFError, OSError, UnicodeError)

Member = tuple[str, int, Iterator[bytes]]  # path, declared size, chunks


class TarGz(Container):
    kind = "tar.gz"

    def __init__(self, upload: Upload, limits: BundleLimits, name: str):
        self._upload, self._limits, self.name = upload, limits, name
        self._spool: _TrajectorySpool | None = None
        scan = HeaderScan(limits, name, upload.size)
        with self._tar() as (tar, stream):
            for info in self._headers(tar, stream):
                scan.check(info.name, tar_kind(info), info.size)
            stream.drain()
        scan.raise_if_problems()
        self.files = scan.files
        self.nested_manifest = scan.nested_manifest

    @contextmanager
    def _tar(self) -> Iterator[tuple[tarfile.TarFile, TarStream]]:
        raw = self._upload.open()
        try:
            stream = TarStream(Inflater(raw), self._limits, self.name, self._upload.size)
            with tarfile.open(fileobj=stream, mode="r:") as tar:  # type: ignore[call-overload]
                yield tar, stream
        except _TAR_ERRORS as exc:
            raise rejected(self.name, f"not a valid archive: {_tar_error_text(exc)}") from exc
        finally:
            raw.close()

    @staticmethod
    def _headers(tar: tarfile.TarFile, stream: TarStream) -> Iterator[tarfile.TarInfo]:
        while (info := tar.next()) is not None:
            tar.members.clear()  # tarfile keeps every header; 100,000 of them add up
            stream.begin_member(info.name)
            yield info

    def _members(
        self, tar: tarfile.TarFile, stream: TarStream
    ) -> Iterator[tuple[str, tarfile.TarInfo]]:
        """(path, header) of the regular files, re-checked: the source is read anew."""
        scan = HeaderScan(self._limits, self.name, self._upload.size)
        for info in self._headers(tar, stream):
            path = scan.check(info.name, tar_kind(info), info.size)
            scan.raise_if_problems()
            if path is not None:
                yield path, info

    def iter_chunks(self, path: str) -> Iterator[bytes]:
        with self._tar() as (tar, stream):
            for member, info in self._members(tar, stream):
                if member == path:
                    yield from read_tar_data(stream, info)
                    return

    def iter_files(self) -> Iterator[tuple[str, Iterator[bytes]]]:
        # One pass over the gzip stream, not one per file.
        for path, _, chunks in self._iter_members(lambda path: True):
            yield path, chunks

    def read_document(self, path: str, cap: int, errors: ErrorCollector) -> bytes | None:
        if not path.startswith(TRAJECTORY_DIR):
            return super().read_document(path, cap, errors)
        # Reaching one member of a gzip stream means inflating all before it, so the
        # first trajectory read copies them all to a temporary file in one pass.
        if self._spool is None:
            self._spool = _TrajectorySpool(self._iter_members(self._is_trajectory), cap)
        return self._spool.read(path, cap, errors)

    def _is_trajectory(self, path: str) -> bool:
        return self.has_trajectory(path) and normalize_trajectory_path(path) == path

    def _iter_members(self, wanted: Callable[[str], bool]) -> Iterator[Member]:
        with self._tar() as (tar, stream):
            for path, info in self._members(tar, stream):
                if wanted(path):
                    yield path, info.size, read_tar_data(stream, info)

    def close(self) -> None:
        if self._spool is not None:
            self._spool.close()


def read_tar_data(stream: TarStream, info: tarfile.TarInfo) -> Iterator[bytes]:
    """The member's data, read straight from the stream (tarfile left it there)."""
    if stream.tell() != info.offset_data:
        stream.seek(info.offset_data)
    remaining = info.size
    while remaining:
        data = stream.read(min(CHUNK, remaining))
        if not data:
            raise EOFError("unexpected end of data")
        remaining -= len(data)
        yield data


def _tar_error_text(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    if isinstance(exc, tarfile.ReadError) and "\n" in text:  # tarfile lists each method it tried
        text = text.splitlines()[-1].lstrip("- ")
    return text


class _TrajectorySpool:
    """Trajectory files of a tar.gz, copied into one temporary file for random access."""

    def __init__(self, members: Iterator[Member], cap: int):
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
            errors.add(path, None, "", too_big_document(size, cap))
            return None
        self._file.seek(offset)
        return self._file.read(size)

    def close(self) -> None:
        self._file.close()
