"""Unpacking an uploaded archive of a native job folder, through the bundles' own
archive safety (ingestion/bundles/archive.py and inflate.py)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

from ingestion.bundles import BundleLimits, open_archive, rejected


def extract_job_archive(
    archive: Path,
    target: Path,
    *,
    max_members: int,
    max_bytes: int,
    max_compression_ratio: float = BundleLimits.max_compression_ratio,
    ratio_floor_bytes: int = BundleLimits.ratio_floor_bytes,
) -> None:
    """Unpack an uploaded .tar.gz/.tgz/.zip of a Harbor job folder into `target`.

    Refuses, before writing anything, what bundles refuse too: more than
    `max_members` members, more than `max_bytes` declared bytes, a member (or the
    whole) past `ratio_floor_bytes` whose compression ratio is over
    `max_compression_ratio`, absolute or `..` paths, links,
    devices, FIFOs and encrypted entries. While unpacking, the bytes actually
    inflated are held to the same limits.
    """
    limits = BundleLimits(
        max_upload_bytes=sys.maxsize,  # the caller stored the upload within its own limit
        max_uncompressed_bytes=max_bytes,
        max_members=max_members,
        max_compression_ratio=max_compression_ratio,
        ratio_floor_bytes=ratio_floor_bytes,
    )
    label = archive.name
    with closing(open_archive(archive, limits=limits, name=label)) as container:
        target.mkdir(parents=True, exist_ok=True)
        for path, chunks in container.iter_files():
            _write(target, path, chunks, label)


def _write(target: Path, path: str, chunks: Iterator[bytes], label: str) -> None:
    # `path` is normalized and relative (no `..`, no absolute path), and nothing but
    # regular files and folders is ever created, so it cannot leave `target`.
    destination = target.joinpath(*path.split("/"))
    try:
        destination.parent.mkdir(parents=True, exist_ok=True)
        with destination.open("xb") as out:  # "x": a member never overwrites another
            for chunk in chunks:
                out.write(chunk)
    except OSError as exc:  # e.g. a file where a folder of the same name must go
        raise rejected(label, f"member {path!r} cannot be unpacked: {exc.strerror}") from exc
