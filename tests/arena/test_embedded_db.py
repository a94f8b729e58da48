"""`make stop` (arena.embedded_db): the embedded PostgreSQL started without DATABASE_URL
is stopped, and stopping one that is not running says so."""

from __future__ import annotations

import subprocess
import sys

import psycopg
import pytest

from arena.embedded_db import embedded_database_url, embedded_server_stop

pytestmark = pytest.mark.slow


def test_it_stops_the_embedded_server_it_started(tmp_path):
    pgdata = tmp_path / "pgdata"
    url = embedded_database_url(pgdata)
    with psycopg.connect(url) as connection:
        assert connection.execute("SELECT 1").fetchone() == (1,)

    assert embedded_server_stop(pgdata) is True

    assert not (pgdata / "postmaster.pid").exists()
    with pytest.raises(psycopg.OperationalError):
        psycopg.connect(url, connect_timeout=2)


def test_it_reports_when_no_embedded_server_runs(tmp_path):
    assert embedded_server_stop(tmp_path / "never-started") is False


def test_it_refuses_an_unknown_command():
    result = subprocess.run(
        [sys.executable, "-m", "arena.embedded_db", "start"], capture_output=True, text=True
    )
    assert result.returncode != 0
    assert "usage: python -m arena.embedded_db stop" in result.stderr
