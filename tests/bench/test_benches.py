"""Every bench runs, at a tiny size, on a fresh database: none of them can rot.

Each runs as `make bench` runs it (a child process from the project root) against a
database created empty for this module and dropped after it, so the benches' own
migration of a fresh database is what is exercised, and nothing they write is left
behind. No figure is checked (timings are no assertions); a bench that fails exits
non-zero. Celery is eager in the children, as on a fresh clone; when the suite has a
Redis broker, its server is the children's shared page cache (so that bench/pages.py
measures first visits after an ingest too), and their keys are deleted afterwards.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from django.db import connection
from psycopg import sql

from arena.embedded_db import database_url_of

pytestmark = [pytest.mark.slow, pytest.mark.bench]

ROOT = Path(__file__).resolve().parents[2]
# The options that make each bench tiny; every bench `make bench` runs is here.
TINY = {
    "ingest": ["--runs", "300", "--repeats", "1"],
    "recompute": ["--runs", "4000"],
    "pages": ["--seconds", "1", "--rounds", "1", "--entries", "20", "--after-seconds", "1"],
    "load": ["--slow", "2", "--requests", "10", "--max-seconds", "300"],
    "importers": ["--trials", "10", "--simulations", "10", "--sessions", "3"],
    "signals": ["--sessions", "200", "--new", "20", "--repeat", "1", "--shuffles", "200"],
    "traces": ["--results", "20", "--repeats", "1"],
    "merge": ["--runs", "2000", "--merges", "1"],
    "partitions": ["--rows", "20000", "--copy", "1000", "--partitions", "4"],
}


def makefile_benches() -> list[str]:
    text = (ROOT / "Makefile").read_text()
    return re.search(r"^BENCHES = (.+)$", text, re.MULTILINE).group(1).split()


def test_it_runs_every_bench_the_makefile_names():
    assert sorted(makefile_benches()) == sorted(TINY)


@pytest.fixture(scope="module")
def fresh_database(django_db_blocker) -> Iterator[dict[str, str]]:
    """The children's environment: an empty database of its own on the suite's server."""
    with django_db_blocker.unblock():
        settings_dict = dict(connection.settings_dict)
    name = f"bench_{uuid.uuid4().hex[:12]}"
    server = database_url_of({**settings_dict, "NAME": "postgres"})
    with psycopg.connect(server, autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    env = {**os.environ, "DATABASE_URL": database_url_of({**settings_dict, "NAME": name})}
    broker = env.pop("CELERY_BROKER_URL", "")
    env.pop("DATABASE_REPLICA_URLS", None)
    if broker.startswith("redis://"):
        env["REDIS_CACHE_URL"] = broker
    try:
        yield env
    finally:
        with psycopg.connect(server, autocommit=True) as admin:
            admin.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )
        if env.get("REDIS_CACHE_URL"):
            _cache_keys_delete(env["REDIS_CACHE_URL"])


def _cache_keys_delete(url: str) -> None:
    import redis

    client = redis.Redis.from_url(url)
    # The "pages" cache's KEY_PREFIX, and the default cache's keys (no prefix).
    for pattern in ("pages:*", ":1:*"):
        for key in client.scan_iter(pattern):
            client.delete(key)


@pytest.mark.parametrize("bench", list(TINY))
def test_it_runs_the_bench_at_a_tiny_size_on_a_fresh_database(fresh_database, bench):
    if bench == "pages" and not shutil.which("wrk"):
        pytest.skip("bench/pages.py drives the server with wrk (apt-get install wrk)")
    # A session of its own: a bench that overruns is stopped with the servers it started.
    child = subprocess.Popen(
        [sys.executable, f"bench/{bench}.py", *TINY[bench]], cwd=ROOT, env=fresh_database,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
    )  # fmt: skip
    try:
        stdout, stderr = child.communicate(timeout=1500)
    except subprocess.TimeoutExpired:
        os.killpg(child.pid, signal.SIGTERM)
        stdout, stderr = child.communicate()
    assert child.returncode == 0, stdout[-3000:] + stderr[-3000:]
    assert re.search(r"ratio|\d\.\d+x", stdout), stdout[-2000:]  # it reported
