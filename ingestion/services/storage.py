"""Where received uploads wait for processing: one file per SHA-256 under ARENA_UPLOAD_DIR."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings


def upload_dir() -> Path:
    """The upload folder, created on first use."""
    directory = Path(settings.ARENA_UPLOAD_DIR)
    directory.mkdir(parents=True, exist_ok=True)
    return directory


def upload_path(sha256: str) -> Path:
    """Where a received upload waits for processing (deleted once processed)."""
    return Path(settings.ARENA_UPLOAD_DIR) / f"{sha256}.bundle"
