"""Archive safety: what a member of an uploaded archive may be, judged from its header.

Used for bundles and for the native job archives the importers unpack, so both
refuse the same things before any member content is read: too many members, a
declared size or compression ratio past the limits, absolute or `..` paths, links,
devices, FIFOs and encrypted entries.
"""

from __future__ import annotations

import io
import stat
import struct
import tarfile
import zipfile
from typing import BinaryIO

from ingestion.bundles.errors import ErrorCollector, human_size, rejected
from ingestion.bundles.limits import BundleLimits

CHUNK = 1024 * 1024  # how much of a member is read at a time
# A member smaller than this is never judged by its compression ratio: small files
# (a padded JSON file, a repetitive trajectory) can compress 100:1 without harm, and
# the total uncompressed limit bounds what many of them can add up to.
RATIO_MIN_BYTES = 1024 * 1024

_KIND_PROBLEMS = {
    "symlink": "is a symbolic link; links are not allowed",
    "hardlink": "is a hard link; links are not allowed",
    "device": "is a device file; only regular files and directories are allowed",
    "fifo": "is a FIFO; only regular files and directories are allowed",
    "encrypted": "is encrypted",
}


class HeaderScan:
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

        `kind` is what `tar_kind` or `zip_kind` says. `compressed` is the member's own
        compressed size (zip); None for tar.gz, where only the whole archive's size
        is known.
        """
        self._members += 1
        if self._members > self.limits.max_members:
            raise rejected(
                self.name, f"archive has more than {self.limits.max_members:,} members, the limit"
            )
        path, problem = safe_member_path(raw_name)
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
                f"uncompressed size exceeds the limit of {human_size(self.limits.max_uncompressed_bytes)} "
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


def safe_member_path(name: str) -> tuple[str, str | None]:
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


def tar_kind(info: tarfile.TarInfo) -> str:
    """What a tar member is, in the words HeaderScan.check takes."""
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


def zip_kind(info: zipfile.ZipInfo) -> str:
    """What a zip entry is: zip files record Unix types (links, devices) in their mode."""
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


def zip_entry_count(fp: BinaryIO) -> int | None:
    """Entry count declared by the end-of-central-directory record (zip64 aware).

    zipfile loads the whole central directory at once: checking this count first
    refuses a forged directory of millions of entries before it is parsed.
    """
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
