"""Archive safety (ingestion/bundles/archive.py, inflate.py and the containers): every
limit and every hostile member is refused, from the headers when they tell.

Pure: no Django, no database. Hostile archives are built here, in memory.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import stat
import tarfile
import zipfile

import pytest

from ingestion.bundles import BundleLimits, zip_archive
from ingestion.bundles.archive import CHUNK
from ingestion.bundles.container import Upload
from tests.conftest import BUNDLES_DIR, INVALID_DIR
from tests.ingestion.bundles.archives import (
    MANIFEST,
    Entry,
    a_run,
    bundle_files,
    jsonl,
    lookup,
    opened,
    read_everything,
    rejection,
    special,
    tar_gz,
    zip_bytes,
)

# The ratio is judged past a floor of inflated bytes; these bombs are built small.
FLOOR_1_MIB = BundleLimits(ratio_floor_bytes=CHUNK)


def test_it_refuses_the_example_bomb_from_its_header(inflated, no_content_reads):
    rejection(INVALID_DIR / "bomb.tar.gz")
    # manifest.json and two headers: nothing of the 300 MB member
    assert inflated["bytes"] < 64 * 1024


# ------------------------------------------------------------------ hostile archives


def test_it_refuses_an_upload_over_the_size_limit_before_reading_it(tmp_path, monkeypatch):
    path = tmp_path / "up.tar.gz"
    path.write_bytes(bytes(1000))

    def unreadable(self):
        raise AssertionError("read before the size check")

    monkeypatch.setattr(Upload, "open", unreadable)
    error = rejection(path, BundleLimits(max_upload_bytes=999), name="up.tar.gz")
    assert str(error.errors[0]) == "up.tar.gz: upload is 1,000 bytes, over the limit of 999 bytes"
    monkeypatch.undo()
    message = (
        rejection(BUNDLES_DIR / "sessions.tar.gz", BundleLimits(max_upload_bytes=1024))
        .errors[0]
        .message
    )
    assert "over the limit of 1 KiB" in message


@pytest.mark.parametrize("container", [tar_gz, zip_bytes])
def test_it_refuses_more_members_than_the_limit_before_reading_content(container, no_content_reads):
    files = bundle_files([a_run()]) | {f"trajectories/t{i}.json": b"[]" for i in range(4)}
    error = rejection(container(files), BundleLimits(max_members=5))
    assert error.errors[0].message == "archive has more than 5 members, the limit"


def test_it_refuses_a_zip_whose_directory_declares_too_many_entries_before_parsing_it(monkeypatch):
    data = zip_bytes(bundle_files([a_run()]) | {f"t{i}": b"" for i in range(10)})

    def forbidden(*args, **kwargs):
        raise AssertionError("the central directory was parsed")

    monkeypatch.setattr(zip_archive.zipfile, "ZipFile", forbidden)
    assert "more than 5 members" in rejection(data, BundleLimits(max_members=5)).errors[0].message


@pytest.mark.parametrize("container", [tar_gz, zip_bytes])
def test_it_refuses_a_declared_total_over_the_uncompressed_limit(container, no_content_reads):
    files = bundle_files([a_run()]) | {"trajectories/a.json": b"[" + b" " * 3000 + b"]"}
    error = rejection(container(files), BundleLimits(max_uncompressed_bytes=3000))
    assert error.errors[0].message.startswith("uncompressed size exceeds the limit of 3,000 bytes")


def test_it_guards_the_bytes_actually_inflated_past_the_declared_sizes(inflated):
    # Zero padding after the tar's end is legal, and no header declares it: only the
    # count of inflated bytes can stop it (the ratio limit is lifted to show that).
    tar = gzip.decompress(tar_gz(bundle_files([a_run()])))
    data = gzip.compress(tar + bytes(8 * CHUNK))
    limits = BundleLimits(max_uncompressed_bytes=50_000, max_members=10, max_compression_ratio=1e9)
    error = rejection(data, limits)
    assert error.errors[0].message == "uncompressed size exceeds the limit of 50,000 bytes"
    assert inflated["bytes"] < 2 * CHUNK + len(tar) + 50_000


def test_it_rejects_data_after_the_end_of_the_tar(inflated):
    tar = gzip.decompress(tar_gz(bundle_files([a_run()])))
    data = gzip.compress(tar + os.urandom(3 * CHUNK), compresslevel=1)
    message = rejection(data).errors[0].message
    assert (
        message == "not a valid archive: damaged tar header, or data after the end of the archive"
    )
    assert inflated["bytes"] < len(tar) + 2 * CHUNK


@pytest.mark.parametrize(
    ("entry", "words"),
    [
        (special("trajectories/r.json", tarfile.LNKTYPE, "runs.jsonl"), "is a hard link"),
        (special("trajectories/r.json", tarfile.SYMTYPE, "/etc/passwd"), "is a symbolic link"),
        (special("dev/null", tarfile.CHRTYPE), "is a device file"),
        (special("dev/sda", tarfile.BLKTYPE), "is a device file"),
        (special("pipe", tarfile.FIFOTYPE), "is a FIFO"),
        (("../evil.json", b"x"), "has '..' in its path"),
        (("trajectories/../../evil.json", b"x"), "has '..' in its path"),
        (("/etc/cron.d/evil", b"x"), "has an absolute path"),
        (("C:/evil", b"x"), "has an absolute path"),
        (("a\\..\\evil", b"x"), "has '..' in its path"),
    ],
    ids=[
        "hard-link",
        "symlink",
        "char-device",
        "block-device",
        "fifo",
        "dotdot",
        "nested-dotdot",
        "absolute",
        "drive",
        "backslash",
    ],
)
def test_it_refuses_a_hostile_tar_member_before_reading_content(entry, words, no_content_reads):
    # The hostile member comes last, after a runs.jsonl that is not even JSON: the
    # rejection names the member, so no content was looked at.
    files: list[Entry] = [
        ("manifest.json", json.dumps(MANIFEST).encode()),
        ("runs.jsonl", b"{oops\n"),
        entry,
    ]
    error = rejection(tar_gz(files))
    assert error.total == 1
    assert words in error.errors[0].message


def test_it_lists_every_hostile_member_not_just_the_first():
    files: list[Entry] = [
        ("manifest.json", json.dumps(MANIFEST).encode()),
        ("runs.jsonl", jsonl(a_run())),
        ("../a", b""),
        special("b", tarfile.LNKTYPE, "runs.jsonl"),
        ("/c", b""),
    ]
    assert rejection(tar_gz(files)).total == 3


def zip_member(name: str, mode: int) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name)
    info.create_system = 3  # Unix: the mode bits below mean something
    info.external_attr = mode << 16
    return info


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("../evil.json", "has '..' in its path"),
        ("trajectories/../../evil.json", "has '..' in its path"),
        ("/etc/evil", "has an absolute path"),
        (zip_member("trajectories/link.json", stat.S_IFLNK | 0o777), "is a symbolic link"),
        (zip_member("fifo", stat.S_IFIFO | 0o644), "is a FIFO"),
        (zip_member("dev", stat.S_IFCHR | 0o644), "is a device file"),
    ],
    ids=["dotdot", "nested-dotdot", "absolute", "symlink", "fifo", "device"],
)
def test_it_refuses_a_hostile_zip_member_before_reading_content(name, words, no_content_reads):
    files = [
        ("manifest.json", json.dumps(MANIFEST).encode()),
        ("runs.jsonl", b"{oops\n"),
        (name, b"/etc/passwd"),
    ]
    error = rejection(zip_bytes(files))
    assert error.total == 1
    assert words in error.errors[0].message


def test_it_refuses_an_encrypted_zip_member(no_content_reads):
    data = bytearray(zip_bytes(bundle_files([a_run()])))
    # set the "encrypted" flag in the central directory entry of runs.jsonl
    entry = data.rfind(b"PK\x01\x02", 0, data.rfind(b"runs.jsonl"))
    data[entry + 8] |= 0x01
    assert "is encrypted" in rejection(bytes(data)).errors[0].message


def test_it_refuses_a_zip_bomb_by_its_compression_ratio(no_content_reads):
    data = zip_bytes(bundle_files([a_run()]) | {"trajectories/zeros.json": b"\0" * (8 * CHUNK)})
    assert len(data) < 20_000
    message = rejection(data, FLOOR_1_MIB, name="bomb.zip").errors[0].message
    assert re.fullmatch(
        r"member 'trajectories/zeros\.json': compression ratio [\d,]+:1 exceeds the limit of 100:1 .*",
        message,
    )


def test_it_refuses_a_tar_gz_member_too_large_for_the_archive_from_its_header(
    inflated, no_content_reads
):
    data = tar_gz(bundle_files([a_run()]) | {"trajectories/zeros.json": b"\0" * (12 * CHUNK)})
    message = rejection(data, FLOOR_1_MIB).errors[0].message
    assert "member 'trajectories/zeros.json': compression ratio" in message
    assert "exceeds the limit of 100:1" in message
    assert inflated["bytes"] < 64 * 1024  # stopped at the header, before its data


def test_it_refuses_a_tar_gz_member_whose_inflated_bytes_break_the_ratio(inflated):
    # Its header is plausible (a random member makes the archive big), so the ratio
    # can only be seen while inflating: it must stop soon after 1 MiB, not at 12.
    files = bundle_files([a_run()]) | {
        "trajectories/noise.json": os.urandom(CHUNK),
        "trajectories/zeros.json": b"\0" * (12 * CHUNK),
    }
    limits = BundleLimits(max_compression_ratio=20, ratio_floor_bytes=CHUNK)
    message = rejection(tar_gz(files), limits).errors[0].message
    assert message.startswith("member 'trajectories/zeros.json': compression ratio")
    assert message.endswith("exceeds the limit of 20:1")
    assert inflated["bytes"] < 4 * CHUNK


def test_it_refuses_an_oversized_tar_header():
    info = tarfile.TarInfo("trajectories/a.json")
    info.pax_headers = {"comment": "x" * (5 * CHUNK)}
    files: list[Entry] = [
        ("manifest.json", json.dumps(MANIFEST).encode()),
        ("runs.jsonl", jsonl(a_run())),
        info,
    ]
    assert rejection(tar_gz(files)).errors[0].message == "an archive header is larger than 4 MiB"


def test_it_judges_small_members_by_size_not_ratio():
    # 500 KB of spaces compresses far better than 100:1 but cannot hurt anyone.
    files = bundle_files([a_run(1, trajectory="trajectories/r-1.json")]) | {
        "trajectories/r-1.json": b"[" + b" " * 500_000 + b"]"
    }
    for data in (tar_gz(files), zip_bytes(files)):
        with opened(data) as bundle:
            (run,) = bundle.iter_runs(lookup)
            assert bundle.read_trajectory(run.trajectory) == []
            bundle.raise_if_errors()


def test_it_rejects_a_tar_whose_header_is_damaged_midway():
    tar = bytearray(
        gzip.decompress(tar_gz(bundle_files([a_run()]) | {"trajectories/x.json": b"[]"}))
    )
    header = tar.find(b"trajectories/x.json")
    tar[header + 148 : header + 156] = b"0000000\0"  # a wrong checksum
    message = rejection(gzip.compress(bytes(tar))).errors[0].message
    assert (
        message == "not a valid archive: damaged tar header, or data after the end of the archive"
    )


# ------------------------------------------------------------ archive structure


def test_it_refuses_a_zip_whose_directory_claims_more_entries_than_it_holds(no_content_reads):
    data = bytearray(zip_bytes(bundle_files([a_run()])))
    end = data.rfind(b"PK\x05\x06")
    data[end + 8 : end + 12] = (65_534).to_bytes(2, "little") * 2  # on this disk, and in all
    message = rejection(bytes(data)).errors[0].message
    assert (
        message == "not a valid archive: the central directory declares 65,534 entries but holds 2"
    )


def test_it_refuses_zip_members_that_share_their_bytes(no_content_reads):
    data = bytearray(zip_bytes(bundle_files([a_run()]) | {"notes.txt": b"x" * 500}))
    # point the last directory entry at the first member's local header
    entry = data.rfind(b"PK\x01\x02")
    data[entry + 42 : entry + 46] = (0).to_bytes(4, "little")
    message = rejection(bytes(data)).errors[0].message
    assert message.startswith("not a valid archive: member ") and "overlaps" in message


def test_it_refuses_a_zip_member_of_an_unknown_compression_method(no_content_reads):
    files = [("manifest.json", json.dumps(MANIFEST).encode()), ("runs.jsonl", jsonl(a_run()))]
    data = bytearray(zip_bytes([*files, ("extra.bin", b"payload")]))
    entry = data.rfind(b"PK\x01\x02")  # extra.bin, never read by the bundle reader
    data[entry + 10 : entry + 12] = (99).to_bytes(2, "little")
    error = rejection(bytes(data))
    assert [e.message for e in error.errors] == [
        "member 'extra.bin' uses a compression method that is not supported"
        " (only stored, deflate, bzip2, lzma)"
    ]


def test_it_refuses_a_tar_of_contiguous_members(no_content_reads):
    info = tarfile.TarInfo("trajectories/r-1.json")
    info.type = tarfile.CONTTYPE
    files: list[Entry] = [
        ("manifest.json", json.dumps(MANIFEST).encode()),
        ("runs.jsonl", jsonl(a_run())),
        info,
    ]
    error = rejection(tar_gz(files))
    assert [e.message for e in error.errors] == [
        "member 'trajectories/r-1.json' has an unsupported type;"
        " only regular files and directories are allowed"
    ]


# ------------------------------------------------- what compresses well, and bombs


def a_long_session(turns: int) -> dict:
    """A session of many short turns: highly repetitive, so it compresses about 400:1."""
    said = [{"role": "user", "text": "ok"}, {"role": "assistant", "text": "ok"}]
    return {"session_id": "s-long", "model": "frontier-large", "turns": said * (turns // 2)}


@pytest.mark.slow
@pytest.mark.parametrize("container", [tar_gz, zip_bytes], ids=["tar.gz", "zip"])
def test_it_lands_a_long_repetitive_session_whatever_its_ratio(container):
    files = {
        "manifest.json": json.dumps({"format": "arena-bundle/1"}).encode(),
        "sessions.jsonl": jsonl(a_long_session(200_000)),
    }
    data = container(files)
    assert len(files["sessions.jsonl"]) > 6_000_000
    assert len(files["sessions.jsonl"]) > 200 * len(data)  # past the 100:1 ratio
    _, (session,) = read_everything(data)
    assert len(session.turns) == 200_000


MEMBER = 1_040_000  # just under 1 MiB: a member this size was never judged by its ratio


@pytest.mark.parametrize("container", [tar_gz, zip_bytes], ids=["tar.gz", "zip"])
def test_it_refuses_many_small_zero_members_by_the_whole_archive_ratio(container, inflated):
    members = 70  # 72.8 MB in all: past the floor (64 MiB), at about 1,000:1
    files = bundle_files([a_run()]) | {
        f"trajectories/z{i}.json": bytes(MEMBER) for i in range(members)
    }
    data = container(files)
    message = rejection(data).errors[0].message
    assert message.startswith("the archive inflates past its size: compression ratio ")
    assert "exceeds the limit of 100:1" in message
    # A zip is refused from its directory; a tar.gz's headers are read by inflating
    # the members between them, up to the floor.
    most = 2 * CHUNK if container is zip_bytes else BundleLimits().ratio_floor_bytes + 2 * CHUNK
    assert inflated["bytes"] < most


def test_it_stops_inflating_a_tar_gz_at_its_size_times_the_ratio(inflated):
    # No header declares the zero padding after the tar's end: only the count of
    # inflated bytes against the archive's size stops it, soon past the floor.
    tar = gzip.decompress(tar_gz(bundle_files([a_run()])))
    data = gzip.compress(tar + bytes(80 * CHUNK))
    message = rejection(data).errors[0].message
    assert "compression ratio" in message and "exceeds the limit of 100:1" in message
    floor = BundleLimits().ratio_floor_bytes
    assert floor < inflated["bytes"] < floor + 2 * CHUNK
