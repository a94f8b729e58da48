"""Fixtures that watch what the bundle reader inflates and reads."""

from __future__ import annotations

import zipfile

import pytest

from ingestion.bundles import inflate, tar_gz


@pytest.fixture
def inflated(monkeypatch):
    """Counts the bytes inflated out of any tar.gz."""
    counter = {"bytes": 0}
    original = inflate.Inflater.read

    def counting(self, n):
        data = original(self, n)
        counter["bytes"] += len(data)
        return data

    monkeypatch.setattr(inflate.Inflater, "read", counting)
    return counter


@pytest.fixture
def no_content_reads(monkeypatch):
    """Fails the test if any member's content is read (tar.gz and zip)."""

    def forbidden(*args, **kwargs):
        raise AssertionError("member content was read")

    open_member = zipfile.ZipFile.open

    def open_for_writing_only(self, name, mode="r", *args, **kwargs):
        if mode == "r":
            forbidden()
        return open_member(self, name, mode, *args, **kwargs)

    monkeypatch.setattr(tar_gz, "read_tar_data", forbidden)
    monkeypatch.setattr(zipfile.ZipFile, "open", open_for_writing_only)
