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


def deploy_check(**env: str) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("SECURE_", "ARENA_"))}
    environment.update(
        DATABASE_URL="postgres://arena:pw@db:5432/arena",  # the checks never connect
        SECRET_KEY="x7#Vq2!mR9pL$w4Zt8&nB3^kY6*hJ1@dF5%gS0(cX)eU+aQ-oI=",
        ALLOWED_HOSTS="arena.example.org",
        DEBUG="0",
        **env,
    )
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT, env=environment, capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def test_check_deploy_is_clean_with_production_https_settings():
    result = deploy_check(ARENA_HTTPS="1", ARENA_PROXY_SSL_HEADER="1")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout


def test_check_deploy_names_what_plain_http_lacks():
    result = deploy_check()
    assert result.returncode != 0
    for warning in ("W004", "W008", "W012", "W016"):  # HSTS, redirect, cookies
        assert f"security.{warning}" in result.stderr
