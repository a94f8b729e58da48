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
from ingestion.bundles.limits import ZIP_METHODS, BundleLimits

CHUNK = 1024 * 1024  # how much of a member is read at a time

_KIND_PROBLEMS = {
    "symlink": "is a symbolic link; links are not allowed",
    "hardlink": "is a hard link; links are not allowed",
    "device": "is a device file; only regular files and directories are allowed",
    "fifo": "is a FIFO; only regular files and directories are allowed",
    "encrypted": "is encrypted",
    "unknown-method": (
        f"uses a compression method that is not supported (only {', '.join(ZIP_METHODS.values())})"
    ),
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
        if ratio_broken(size, packed, self.limits):
            source = (
                f"{packed:,} compressed" if compressed is not None else f"a {packed:,}-byte archive"
            )
            raise rejected(
                self.name,
                f"member {raw_name!r}: {ratio_text(size, packed, limit)} ({size:,} bytes from {source})",
            )
        if ratio_broken(self._declared, self.archive_size, self.limits):
            raise rejected(
                self.name,
                f"the archive inflates past its size: {ratio_text(self._declared, self.archive_size, limit)}"
                f" (the headers declare at least {self._declared:,} bytes"
                f" from a {self.archive_size:,}-byte archive)",
            )

    def raise_if_problems(self) -> None:
        self.problems.raise_if_any()


def ratio_broken(inflated: int, packed: int, limits: BundleLimits) -> bool:
    """Past the floor, more than max_compression_ratio bytes out per byte in.

    Below the floor any ratio is honest (repetitive text compresses 400:1); above it,
    of one member or of all of them together, such a ratio is a bomb: this also caps
    what an upload inflates to, at max(floor, ratio × its size).
    """
    return inflated > limits.ratio_floor_bytes and inflated > limits.max_compression_ratio * packed


def ratio_text(inflated: int, packed: int, limit: float) -> str:
    ratio = inflated // max(packed, 1)
    return f"compression ratio {ratio:,}:1 exceeds the limit of {limit:g}:1"


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
    # tarfile reads a "contiguous file" (type 7) and a sparse one as regular files;
    # neither is what a bundle tool writes, and a sparse one's size is not its data.
    if info.issparse() or info.type == tarfile.CONTTYPE:
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
    if info.compress_type not in ZIP_METHODS:
        return "unknown-method"
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


_LOCAL_HEADER_BYTES = 30  # a zip local file header before its name and extra field


def zip_directory_problem(
    infos: list[zipfile.ZipInfo], declared: int | None, directory_offset: int
) -> str | None:
    """What makes a zip's central directory disagree with its entries, or None.

    zipfile trusts the directory: it ignores the entry count the end record declares,
    and lets entries share bytes or sit inside the directory itself. A tool that wrote
    the archive never does either, so such an archive is forged.
    """
    if declared is not None and declared != len(infos):
        return f"the central directory declares {declared:,} entries but holds {len(infos):,}"
    end = 0
    for info in sorted(infos, key=lambda i: i.header_offset):
        if info.compress_type == zipfile.ZIP_STORED and info.compress_size != info.file_size:
            return f"member {info.filename!r} is stored uncompressed, yet its sizes differ"
        if info.header_offset < end:
            return f"member {info.filename!r} overlaps the member before it"
        end = info.header_offset + _LOCAL_HEADER_BYTES + info.compress_size
    if end > directory_offset:
        return "the last member runs into the central directory"
    return None
