"""Bounded gzip inflation: what tarfile reads from a .tar.gz, with the limits checked
on every read, so a bomb is stopped one read in rather than once it has been inflated.
"""

from __future__ import annotations

import io
import tarfile
import zlib
from typing import BinaryIO

from ingestion.bundles.archive import CHUNK, ratio_broken, ratio_text
from ingestion.bundles.errors import human_size, rejected
from ingestion.bundles.limits import BundleLimits

GZIP_MAGIC = b"\x1f\x8b"
# tarfile reads a pax or GNU long-name header in one read() call; refusing larger
# reads bounds the memory a forged header can take.
MAX_TAR_READ = 4 * 1024 * 1024
_RATIO_SLACK = 4096  # compressed bytes counted around a tar member boundary
_TAR_FRAMING_PER_MEMBER = 2048  # header + padding, beyond the declared sizes


class Inflater:
    """Forward-only reader of (possibly multi-member) gzip data.

    Counts compressed bytes consumed and bytes produced exactly, which the limits
    need, and never inflates more than asked for.
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
            if self._input.startswith(GZIP_MAGIC):
                self._z = zlib.decompressobj(wbits=31)
                return
            if self._input.strip(b"\0"):
                raise zlib.error("unexpected data after the end of the gzip stream")
            self._input = b""


class TarStream:
    """What tarfile reads: inflated bytes, with the limits checked on every read.

    Guards the bytes actually inflated, not just what headers declare: the total, the
    total against the archive's size, and each member's own compression ratio (bytes
    out of its data against compressed bytes consumed meanwhile).
    """

    def __init__(self, inflater: Inflater, limits: BundleLimits, name: str, archive_size: int):
        self._inflater = inflater
        self._archive_size = archive_size
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
        if n is None or n < 0 or n > MAX_TAR_READ:
            raise rejected(
                self._name, f"an archive header is larger than {human_size(MAX_TAR_READ)}"
            )
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
        limit = self._limits.max_compression_ratio
        if out > self._max_out:
            raise rejected(
                self._name,
                f"uncompressed size exceeds the limit of {human_size(self._limits.max_uncompressed_bytes)}",
            )
        slack = _RATIO_SLACK
        member_out = out - self._out0
        if ratio_broken(member_out, self._inflater.bytes_in - self._in0 + slack, self._limits):
            ratio = ratio_text(member_out, self._inflater.bytes_in - self._in0, limit)
            raise rejected(self._name, f"member {self._member!r}: {ratio}")
        # All members together (many members, each below the floor), and the framing
        # no header declares: at most max(floor, ratio × the archive's size).
        if ratio_broken(out, self._archive_size, self._limits):
            ratio = ratio_text(out, self._archive_size, limit)
            raise rejected(self._name, f"the archive inflates past its size: {ratio}")
