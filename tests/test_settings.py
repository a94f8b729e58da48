"""Settings come from the environment, and a misconfiguration stops start-up loudly."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def load_settings(**env: str) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if k not in {"SECRET_KEY", "ALLOWED_HOSTS"}}
    environment.update(env)
    return subprocess.run(
        [sys.executable, "-c", "import arena.settings as s; print(s.CELERY_TASK_ALWAYS_EAGER, s.DEBUG)"],
        cwd=ROOT, env=environment, capture_output=True, text=True, timeout=60,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"DATABASE_URL": "sqlite:///arena.db"}, "DATABASE_URL must be a postgres"),
        ({"ALLOWED_HOSTS": "arena.example.org"}, "SECRET_KEY must be set"),
        ({"ARENA_MAX_UPLOAD_BYTES": "lots"}, "ARENA_MAX_UPLOAD_BYTES must be an integer"),
        ({"DEBUG": "maybe"}, "DEBUG must be a boolean"),
    ],
)
def test_it_refuses_a_misconfiguration(env, message):
    result = load_settings(**{"DATABASE_URL": "postgres://x@127.0.0.1/x", **env})
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert message in result.stderr


def test_it_runs_tasks_eagerly_only_without_a_broker():
    url = "postgres://x@127.0.0.1/x"
    eager = load_settings(DATABASE_URL=url, CELERY_BROKER_URL="")
    queued = load_settings(DATABASE_URL=url, CELERY_BROKER_URL="redis://127.0.0.1:6379/0")
    assert eager.stdout.split()[0] == "True"
    assert queued.stdout.split()[0] == "False"


def test_it_accepts_a_production_configuration():
    result = load_settings(
        CELERY_BROKER_URL="redis://redis:6379/0",
        DATABASE_URL="postgres://arena:pw@db:5432/arena",
        SECRET_KEY="s3cret",
        ALLOWED_HOSTS="arena.example.org",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["False", "False"]  # tasks queued, no debug pages
