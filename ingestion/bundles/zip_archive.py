"""The .zip container: the central directory vetted before any entry is read."""

from __future__ import annotations

import zipfile
import zlib
from collections.abc import Iterator

from ingestion.bundles.archive import (
    CHUNK,
    HeaderScan,
    zip_directory_problem,
    zip_entry_count,
    zip_kind,
)
from ingestion.bundles.container import Container, Upload
from ingestion.bundles.errors import rejected
from ingestion.bundles.limits import BundleLimits

ZIP_MAGICS = (b"PK\x03\x04", b"PK\x05\x06")

_ENTRY_ERRORS = (
    zipfile.BadZipFile,
    zlib.error,
    EOFError,
    OSError,
    NotImplementedError,
    RuntimeError,
)


class Zip(Container):
    kind = "zip"

    def __init__(self, upload: Upload, limits: BundleLimits, name: str):
        self._limits, self.name = limits, name
        self._fp = upload.open()
        try:
            self._zip = self._open_zip()
            scan = HeaderScan(limits, name, upload.size)
            self._infos: dict[str, zipfile.ZipInfo] = {}
            for info in self._zip.infolist():
                path = scan.check(info.filename, zip_kind(info), info.file_size, info.compress_size)
                if path is not None:
                    self._infos[path] = info
            scan.raise_if_problems()
        except BaseException:
            self._fp.close()
            raise
        self.files = scan.files
        self.nested_manifest = scan.nested_manifest

    def _open_zip(self) -> zipfile.ZipFile:
        count = zip_entry_count(self._fp)
        if count is not None and count > self._limits.max_members:
            raise rejected(
                self.name, f"archive has more than {self._limits.max_members:,} members, the limit"
            )
        self._fp.seek(0)
        try:
            archive = zipfile.ZipFile(self._fp)
        except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError) as exc:
            raise rejected(self.name, f"not a valid archive: {exc}") from exc
        problem = zip_directory_problem(archive.infolist(), count, archive.start_dir)
        if problem is not None:
            archive.close()
            raise rejected(self.name, f"not a valid archive: {problem}")
        return archive

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
        except _ENTRY_ERRORS as exc:
            raise rejected(
                self.name, f"not a valid archive: member {info.filename!r}: {exc}"
            ) from exc

    def close(self) -> None:
        self._zip.close()
        self._fp.close()
