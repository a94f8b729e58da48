"""Real processes for the end-to-end tests: Celery workers, a Redis server, and waiting.

A worker is a separate process connected to the test database and to a queue of its
own, so nothing but the test's tasks reach it. Every process is started in a session of
its own and killed with its whole process group, even when the test fails.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import pytest
from django.db import connection

from arena.celery import app as celery_app
from arena.embedded_db import database_url_of

ROOT = Path(__file__).resolve().parents[2]
DEBOUNCE_S = 1


def redis_answers(url: str) -> bool:
    import redis

    try:
        return bool(redis.Redis.from_url(url, socket_connect_timeout=1).ping())
    except redis.RedisError:
        return False


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def process_stop(process: subprocess.Popen, *, kill: bool = False) -> None:
    """Stop a process and everything it started (its own process group)."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGKILL if kill else signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=30)
    with suppress(ProcessLookupError):  # a child left behind (the embedded beat) goes too
        os.killpg(process.pid, signal.SIGKILL)


class RedisServer:
    """A throwaway redis-server without persistence: stopping it loses every message,
    like a broker that crashed."""

    def __init__(self, workdir: Path) -> None:
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.workdir = workdir
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(self.workdir)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        )  # fmt: skip
        wait_until(lambda: redis_answers(self.url), seconds=20, what="redis-server to start")

    def stop(self) -> None:
        if self.process is not None:
            process_stop(self.process)
            self.process = None


class Worker:
    """A Celery worker (solo pool: the task runs in the process we kill) on the test
    database; `beat=True` embeds Celery beat with a one-second sweep."""

    def __init__(
        self, broker_url: str, queue: str, upload_dir: Path, log: Path, env: dict | None = None
    ) -> None:
        self.queue, self.log = queue, log
        self.env = {
            **os.environ,
            "DATABASE_URL": database_url_of(connection.settings_dict),
            "CELERY_BROKER_URL": broker_url,
            "ARENA_CELERY_QUEUE": queue,
            "ARENA_UPLOAD_DIR": str(upload_dir),
            "ARENA_RECOMPUTE_DEBOUNCE_S": str(DEBOUNCE_S),
            "ARENA_SWEEP_INTERVAL_S": "1",
            "ARENA_REQUEUE_AFTER_S": "1",
            # As in the test process (tests/conftest.py): no page renders after each
            # swap, which need collected static files and would bury the log's tail.
            "ARENA_PAGE_WARM": "0",
            **(env or {}),
        }
        self.process: subprocess.Popen | None = None
        self.starts = 0

    def start(self, *, beat: bool = False) -> None:
        self.starts += 1
        command = [sys.executable, "-m", "celery", "-A", "arena", "worker", "--pool=solo",
                   "--loglevel=INFO", "-Q", self.queue, "-n", f"{self.queue}-{self.starts}@%h"]  # fmt: skip
        if beat:
            schedule = self.log.with_name(f"beat-{self.starts}")
            command += ["-B", "--schedule", str(schedule)]
        with self.log.open("a") as log:
            self.process = subprocess.Popen(
                command, cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT,
                start_new_session=True,
            )  # fmt: skip

    def kill(self) -> None:
        """SIGKILL: no clean-up, no acknowledgement, like a machine that lost power."""
        if self.process is not None:
            process_stop(self.process, kill=True)
            self.process = None

    def stop(self) -> None:
        if self.process is not None:
            process_stop(self.process)
            self.process = None

    def tail(self) -> str:
        return self.log.read_text()[-6000:] if self.log.exists() else ""


def use_broker(url: str, queue: str, *, eager: bool) -> None:
    """Point this process's Celery app at a broker (or back to eager mode).

    Celery reads the broker URL from the environment before its configuration, and
    caches its connection and producer pools for the URL it first used: all three
    change here.
    """
    celery_app.conf.update(
        CELERY_TASK_ALWAYS_EAGER=eager, CELERY_BROKER_URL=url, CELERY_TASK_DEFAULT_QUEUE=queue
    )
    os.environ["CELERY_BROKER_URL"] = url
    celery_app._pool = None
    celery_app.amqp._producer_pool = None


@contextmanager
def broker_down() -> Iterator[None]:
    """Point this process at a real Redis URL where nothing listens (a broker outage,
    no stand-in), then back to eager mode."""
    saved = (celery_app.conf.CELERY_BROKER_URL, celery_app.conf.CELERY_TASK_DEFAULT_QUEUE)
    saved_env = os.environ.get("CELERY_BROKER_URL")
    use_broker(f"redis://127.0.0.1:{free_port()}/0", "arena-test-down", eager=False)
    try:
        yield
    finally:
        use_broker(*saved, eager=True)
        env_restore(saved_env)


def env_restore(broker_url: str | None) -> None:
    if broker_url is None:
        os.environ.pop("CELERY_BROKER_URL", None)
    else:
        os.environ["CELERY_BROKER_URL"] = broker_url


def wait_until(predicate: Callable[[], object], *, seconds: float, what: str, log=None):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.25)
    tail = f"; worker log:\n{log()}" if log else ""
    pytest.fail(f"timed out waiting for {what}{tail}")


def start_worker(
    settings, tmp_path: Path, broker_url: str, *, beat: bool = False, env: dict | None = None
) -> Iterator[Worker]:
    """Start a worker on its own queue and point this process at it; stop both after.
    `env` adds to (or overrides) the worker's environment."""
    queue = f"arena-test-{uuid.uuid4().hex[:8]}"
    log = tmp_path / "worker.log"
    worker = Worker(broker_url, queue, settings.ARENA_UPLOAD_DIR, log, env)
    saved = (celery_app.conf.CELERY_BROKER_URL, celery_app.conf.CELERY_TASK_DEFAULT_QUEUE)
    saved_env = os.environ.get("CELERY_BROKER_URL")
    use_broker(broker_url, queue, eager=False)
    settings.ARENA_RECOMPUTE_DEBOUNCE_S = DEBOUNCE_S
    worker.start(beat=beat)
    try:
        yield worker
    finally:
        worker.stop()
        use_broker(*saved, eager=True)
        env_restore(saved_env)


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory) -> Iterator[RedisServer]:
    """A Redis of the fault suite's own, which a test may stop and start again."""
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed; the fault suite needs its own broker")
    server = RedisServer(tmp_path_factory.mktemp("redis"))
    server.start()
    try:
        yield server
    finally:
        server.stop()
