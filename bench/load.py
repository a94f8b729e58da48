"""Load bench: what slow clients do to board requests, as ratios to none in the same run.

    python bench/load.py [--slow 4,12,24] [--requests 200] [--concurrency 8]
                         [--deadline 2.0] [--max-seconds 120] [--nginx]
                         [--max-requests N [--max-requests-jitter J]]

Starts gunicorn with docker/gunicorn.conf.py on a free loopback port (the configured
database, migrated and given the demo boards first) and, with --nginx, docker/nginx.conf's
server in front of it (the installed nginx, on another free port: what docker/compose.yaml
serves), then, for each number N of slow clients: opens N connections that trickle
their request (half send headers a byte at a
time, slowloris-style; half declare a body and send it a byte at a time) and, while
they hold on, sends the same board requests as the baseline. Reports, against the
baseline of those board requests with no slow client:

* availability: the share answered 200 within --deadline seconds, as a ratio;
* p95 latency of the board requests, as a ratio;
* throughput (board answers per second), which --max-requests (gunicorn's worker
  restarts) is measured by: with --slow "" and a high --concurrency, the restarts alone.

Bounded in everything: loopback only, at most 512 slow clients, a fixed number of
requests, every phase and the whole run under --max-seconds; every socket is closed
and gunicorn is stopped on the way out, whatever happens.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"
BOARD_PATH = "/boards/overall/"  # `/` is the overview, not a board
MAX_SLOW = 512
TRICKLE_SECONDS = 0.5  # a slow client sends one byte this often


@dataclass
class Phase:
    slow: int
    latencies: list[float]  # seconds, of requests answered 200 within the deadline
    total: int
    seconds: float = 0.0  # the phase's wall time

    @property
    def throughput(self) -> float:
        return len(self.latencies) / self.seconds if self.seconds else 0.0

    @property
    def availability(self) -> float:
        return len(self.latencies) / self.total if self.total else 0.0

    @property
    def p95(self) -> float:
        if not self.latencies:
            return float("inf")
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]


@contextlib.contextmanager
def gunicorn(
    port: int, workers: int, threads: int, restarts: dict[str, str]
) -> Iterator[subprocess.Popen]:
    env = {
        **os.environ,
        "GUNICORN_BIND": f"{HOST}:{port}",
        "GUNICORN_WORKERS": str(workers),
        "GUNICORN_THREADS": str(threads),
        "GUNICORN_LOG_LEVEL": "warning",
        **restarts,
    }
    command = [
        sys.executable, "-m", "gunicorn", "-c", str(ROOT / "docker" / "gunicorn.conf.py"),
        "--access-logfile", "/dev/null", "arena.wsgi",
    ]  # fmt: skip
    # The server's log (the slow clients' 401s among it) goes to a file, shown on failure.
    with tempfile.TemporaryFile(mode="w+") as log:
        server = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=log)
        try:
            wait_until_up(port, server)
            yield server
        except BaseException:
            log.seek(0)
            sys.stderr.write(log.read()[-4000:])
            raise
        finally:
            stop(server)


def stop(server: subprocess.Popen) -> None:
    """Stop a server this bench started: TERM, then KILL after 30 s."""
    server.terminate()
    try:
        server.wait(timeout=30)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


# docker/nginx.conf is a site (compose mounts it as conf.d/default.conf): it is served
# as written but for its two addresses, inside this minimal main configuration.
NGINX_MAIN = """daemon off;
worker_processes 1;
pid {prefix}/nginx.pid;
error_log {prefix}/error.log warn;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    client_body_temp_path {prefix}/body;
    proxy_temp_path {prefix}/proxy;
    fastcgi_temp_path {prefix}/fastcgi;
    uwsgi_temp_path {prefix}/uwsgi;
    scgi_temp_path {prefix}/scgi;
"""


def nginx_config(prefix: str, port: int, upstream_port: int) -> str:
    site = (ROOT / "docker" / "nginx.conf").read_text()
    for written, here in (
        ("server web:8000;", f"server {HOST}:{upstream_port};"),
        ("listen 80;", f"listen {HOST}:{port};"),
    ):
        if written not in site:
            raise SystemExit(f"docker/nginx.conf no longer says {written!r}: update bench/load.py")
        site = site.replace(written, here)
    user = "user root;\n" if os.geteuid() == 0 else ""  # its workers write the temp folders
    return user + NGINX_MAIN.format(prefix=prefix) + site + "\n}\n"


@contextlib.contextmanager
def nginx(port: int, upstream_port: int) -> Iterator[subprocess.Popen]:
    binary = shutil.which("nginx") or "/usr/sbin/nginx"
    if not os.path.exists(binary):
        raise SystemExit("--nginx needs nginx installed (apt-get install nginx)")
    with tempfile.TemporaryDirectory() as prefix:
        config = Path(prefix) / "nginx.conf"
        config.write_text(nginx_config(prefix, port, upstream_port))
        command = [binary, "-p", prefix, "-c", str(config), "-e", f"{prefix}/error.log"]
        server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            wait_until_up(port, server, what="nginx")
            yield server
        finally:
            stop(server)


def wait_until_up(
    port: int, server: subprocess.Popen, seconds: float = 180, what: str = "gunicorn"
) -> None:
    give_up = time.monotonic() + seconds
    while time.monotonic() < give_up:
        if server.poll() is not None:
            raise SystemExit(f"{what} exited with {server.returncode}")
        with contextlib.suppress(OSError):
            if board_request(port, 5.0) is not None:
                return
        time.sleep(0.2)
    raise SystemExit(f"{what} did not answer in time")


def board_request(port: int, deadline: float) -> float | None:
    """Seconds to a 200 for the board page, or None (error, other status, too slow)."""
    started = time.monotonic()
    connection = http.client.HTTPConnection(HOST, port, timeout=deadline)
    try:
        connection.request("GET", BOARD_PATH, headers={"Connection": "close"})
        response = connection.getresponse()
        response.read()
        elapsed = time.monotonic() - started
        return elapsed if response.status == 200 and elapsed <= deadline else None
    except OSError:
        return None
    finally:
        connection.close()


def board_phase(port: int, slow: int, requests: int, concurrency: int, deadline: float) -> Phase:
    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=concurrency) as pool:
        results = list(pool.map(lambda _: board_request(port, deadline), range(requests)))
    elapsed = time.monotonic() - started
    return Phase(slow, [r for r in results if r is not None], requests, elapsed)


class SlowClients:
    """N connections trickling a request one byte every TRICKLE_SECONDS until stopped."""

    def __init__(self, port: int, count: int) -> None:
        self.port, self.count = port, count
        self.stop = threading.Event()
        self.sockets: list[tuple[socket.socket, bytes]] = []  # (socket, what it trickles)
        self.thread = threading.Thread(target=self._trickle, daemon=True)

    def __enter__(self) -> SlowClients:
        for n in range(self.count):
            with contextlib.suppress(OSError):
                sock = socket.create_connection((HOST, self.port), timeout=5)
                sock.sendall(self._opening(n))
                self.sockets.append((sock, b"x" if n % 2 else b"X-a: b\r\n"))
        self.thread.start()
        time.sleep(1.0)  # let the server take them before the board requests start
        return self

    def _opening(self, n: int) -> bytes:
        if n % 2:  # a body declared, then sent a byte at a time
            return (
                f"POST /api/v1/submissions/ HTTP/1.1\r\nHost: {HOST}\r\n"
                "Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n"
            ).encode()
        return f"GET {BOARD_PATH} HTTP/1.1\r\nHost: {HOST}\r\n".encode()  # headers never end

    def _trickle(self) -> None:
        while not self.stop.wait(TRICKLE_SECONDS):
            for client in list(self.sockets):
                try:
                    client[0].send(client[1])
                except OSError:
                    self.sockets.remove(client)  # the server gave up on it: fine

    def __exit__(self, *exc) -> None:
        self.stop.set()
        self.thread.join(timeout=5)
        for sock, _ in self.sockets:
            with contextlib.suppress(OSError):
                sock.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--slow", default="4,12,24", help="numbers of slow clients, comma-separated"
    )
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument(
        "--deadline", type=float, default=2.0, help="seconds a board answer may take"
    )
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--max-seconds", type=float, default=120.0)
    parser.add_argument("--nginx", action="store_true", help="docker/nginx.conf in front")
    parser.add_argument(
        "--max-requests", type=int, help="gunicorn's max_requests (default: its config's)"
    )
    parser.add_argument("--max-requests-jitter", type=int)
    args = parser.parse_args()
    levels = [min(int(n), MAX_SLOW) for n in args.slow.split(",") if n.strip()]
    requests = max(1, min(args.requests, 20000))
    restarts = {
        name: str(value)
        for name, value in (
            ("GUNICORN_MAX_REQUESTS", args.max_requests),
            ("GUNICORN_MAX_REQUESTS_JITTER", args.max_requests_jitter),
        )
        if value is not None
    }

    # The whole run stops by itself: the alarm ends it even if a phase hangs.
    prepare()
    signal_alarm(int(args.max_seconds))
    upstream = free_port()
    with contextlib.ExitStack() as servers:
        servers.enter_context(gunicorn(upstream, args.workers, args.threads, restarts))
        port = upstream
        if args.nginx:
            port = free_port()
            servers.enter_context(nginx(port, upstream))
        board_phase(port, 0, min(20, requests), args.concurrency, args.deadline)  # warm up
        baseline = board_phase(port, 0, requests, args.concurrency, args.deadline)
        phases = []
        for count in levels:
            with SlowClients(port, count):
                phases.append(board_phase(port, count, requests, args.concurrency, args.deadline))
    report(baseline, phases, args)


def prepare() -> None:
    """A fresh database works too: migrated, the demo boards loaded (idempotent), and
    the static manifest the production storage's pages need."""
    for command in (["collectstatic", "--noinput"], ["migrate", "--noinput"], ["seed_demo"]):
        subprocess.run(
            [sys.executable, "manage.py", *command, "--verbosity", "0"], cwd=ROOT, check=True
        )


def signal_alarm(seconds: int) -> None:
    import signal

    def give_up(*_):
        raise SystemExit(f"bench/load.py: stopped after --max-seconds {seconds}")

    signal.signal(signal.SIGALRM, give_up)
    signal.alarm(max(1, seconds))


def report(baseline: Phase, phases: list[Phase], args) -> None:
    front = "nginx (docker/nginx.conf) -> " if args.nginx else ""
    restarts = (
        f"max_requests {args.max_requests} jitter {args.max_requests_jitter}"
        if args.max_requests is not None
        else "max_requests as configured"
    )
    print(
        f"{front}gunicorn gthread, {args.workers} workers x {args.threads} threads, "
        f"{restarts}; {baseline.total} board requests ({BOARD_PATH}) per phase, "
        f"{args.concurrency} at a time, deadline {args.deadline:.1f} s"
    )
    print(
        f"baseline (no slow client): availability {baseline.availability:.1%}, "
        f"p95 {baseline.p95 * 1000:.1f} ms, {baseline.throughput:.1f} answers/s"
    )
    print(f"{'slow':>5} {'availability':>13} {'ratio':>7} {'p95 ms':>9} {'ratio':>7}")
    for phase in phases:
        availability_ratio = phase.availability / baseline.availability if baseline.total else 0
        p95_ratio = phase.p95 / baseline.p95 if baseline.latencies else float("inf")
        print(
            f"{phase.slow:>5} {phase.availability:>13.1%} {availability_ratio:>7.2f} "
            f"{phase.p95 * 1000:>9.1f} {p95_ratio:>7.2f}"
        )


if __name__ == "__main__":
    main()
