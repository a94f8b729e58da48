"""Unpacking an uploaded Harbor job archive (ingestion/importers/extract.py) goes through
the bundles' own archive safety: the same refusals, before anything is written.

Pure: no Django, no database. Hostile archives are built here, in memory.
"""

from __future__ import annotations

import stat
import tarfile
import zipfile
from pathlib import Path

import pytest

from ingestion.bundles import BundleRejected
from ingestion.bundles.archive import CHUNK
from ingestion.importers import extract_job_archive
from tests.ingestion.bundles.archives import special, tar_gz, zip_bytes

JOB = {
    "job/result.json": b'{"n_total_trials": 1, "stats": {}}',
    "job/fix-git__1/result.json": b'{"task_name": "fix-git"}',
    "job/fix-git__1/agent/log.txt": b"started\n",
}


def extract(tmp_path: Path, data: bytes, name: str = "job.tar.gz", **limits: float) -> Path:
    archive, target = tmp_path / name, tmp_path / "out"
    archive.write_bytes(data)
    limits = {"max_members": 100, "max_bytes": 10 * CHUNK, **limits}
    extract_job_archive(archive, target, **limits)  # type: ignore[arg-type]
    return target


def refusal(tmp_path: Path, data: bytes, **limits: float) -> str:
    with pytest.raises(BundleRejected) as caught:
        extract(tmp_path, data, **limits)
    assert not (tmp_path / "out").exists(), "nothing is written before every header passed"
    return caught.value.errors[0].message


def files_under(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def zip_entry(name: str, mode: int) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name)
    info.create_system = 3  # Unix: the mode bits below mean something
    info.external_attr = mode << 16
    return info


@pytest.mark.parametrize("container", [tar_gz, zip_bytes], ids=["tar.gz", "zip"])
def test_it_unpacks_a_job_folder_exactly(tmp_path, container):
    assert files_under(extract(tmp_path, container(JOB))) == JOB


@pytest.mark.parametrize(
    ("entry", "words"),
    [
        (special("job/evil", tarfile.SYMTYPE, "/etc/passwd"), "is a symbolic link"),
        (special("job/hard", tarfile.LNKTYPE, "job/result.json"), "is a hard link"),
        (special("job/null", tarfile.CHRTYPE), "is a device file"),
        (special("job/pipe", tarfile.FIFOTYPE), "is a FIFO"),
        (("../evil", b"x"), "has '..' in its path"),
        (("/etc/cron.d/evil", b"x"), "has an absolute path"),
    ],
    ids=["symlink", "hard-link", "device", "fifo", "dotdot", "absolute"],
)
def test_it_refuses_a_hostile_tar_member(tmp_path, entry, words):
    message = refusal(tmp_path, tar_gz([*JOB.items(), entry]))
    assert words in message


@pytest.mark.parametrize(
    ("entry", "words"),
    [
        (zip_entry("job/link", stat.S_IFLNK | 0o777), "is a symbolic link"),
        (zip_entry("job/dev", stat.S_IFCHR | 0o644), "is a device file"),
        (zip_entry("job/fifo", stat.S_IFIFO | 0o644), "is a FIFO"),
        ("job/../../evil", "has '..' in its path"),
    ],
    ids=["symlink", "device", "fifo", "dotdot"],
)
def test_it_refuses_a_hostile_zip_entry(tmp_path, entry, words):
    message = refusal(tmp_path, zip_bytes([*JOB.items(), (entry, b"/etc/passwd")]))
    assert words in message


@pytest.mark.parametrize("container", [tar_gz, zip_bytes], ids=["tar.gz", "zip"])
def test_it_refuses_a_bomb_by_its_compression_ratio(tmp_path, container):
    data = container(JOB | {"job/zeros.bin": bytes(8 * CHUNK)})
    message = refusal(tmp_path, data, max_bytes=100 * CHUNK, ratio_floor_bytes=CHUNK)
    assert "compression ratio" in message and "exceeds the limit of 100:1" in message


def test_it_applies_the_compression_ratio_it_is_given(tmp_path):
    data = zip_bytes(JOB | {"job/zeros.bin": bytes(2 * CHUNK)})
    refused = refusal(tmp_path, data, max_compression_ratio=5, ratio_floor_bytes=CHUNK)
    assert "exceeds the limit of 5:1" in refused
    unpacked = files_under(extract(tmp_path, data, max_compression_ratio=1e9))
    assert unpacked["job/zeros.bin"] == bytes(2 * CHUNK)


@pytest.mark.parametrize("container", [tar_gz, zip_bytes], ids=["tar.gz", "zip"])
def test_it_refuses_more_members_or_bytes_than_the_limits(tmp_path, container):
    data = container(JOB)
    assert refusal(tmp_path, data, max_members=2) == "archive has more than 2 members, the limit"
    assert refusal(tmp_path, data, max_bytes=10).startswith(
        "uncompressed size exceeds the limit of 10 bytes"
    )


def test_it_refuses_what_is_not_a_tar_gz_or_a_zip(tmp_path):
    assert refusal(tmp_path, b"just text") == "not a valid archive (.tar.gz or .zip)"


def test_it_names_a_member_that_cannot_be_unpacked(tmp_path):
    data = tar_gz({"job/a": b"a file", "job/a/b": b"under a file"})
    with pytest.raises(BundleRejected) as caught:
        extract(tmp_path, data)
    assert caught.value.errors[0].message.startswith("member 'job/a/b' cannot be unpacked")


def test_it_reads_a_tar_gz_in_one_pass(tmp_path, monkeypatch):
    from ingestion.bundles import tar_gz as tar_gz_module

    opened = []
    original = tar_gz_module.TarGz._tar

    def counting(self):
        opened.append(1)
        return original(self)

    monkeypatch.setattr(tar_gz_module.TarGz, "_tar", counting)
    many = JOB | {f"job/t{i}/result.json": b"{}" for i in range(20)}
    assert len(files_under(extract(tmp_path, tar_gz(many)))) == len(many)
    assert len(opened) == 2  # the header scan, then one pass for every member
