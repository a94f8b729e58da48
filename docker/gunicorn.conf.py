"""Gunicorn settings for Arena: `gunicorn -c docker/gunicorn.conf.py arena.wsgi`.

Threaded workers (gthread) so that one slow client holds one thread, not a whole
worker: with sync workers, as many slow clients as workers took the site offline.
Every knob reads the environment (GUNICORN_*) with a default for a small host.
Gunicorn itself has no request-body limit: run it behind a buffering proxy that has
one (docker/nginx.conf), and arena.body_limit refuses what gets through by its
Content-Length. See docker/README.md.
"""

import multiprocessing
import os


def _int(name: str, default: int) -> int:
    value = os.environ.get(name)
    try:
        return int(value) if value is not None else default
    except ValueError:
        raise SystemExit(f"{name} must be an integer, got {value!r}") from None


bind = os.environ.get("GUNICORN_BIND", "0.0.0.0:8000")
worker_class = "gthread"
workers = _int("GUNICORN_WORKERS", min(4, multiprocessing.cpu_count() + 1))
threads = _int("GUNICORN_THREADS", 8)
# A request (a board page, an upload stored to disk) that takes longer is killed; a
# worker that stops answering its heartbeat for this long is replaced.
timeout = _int("GUNICORN_TIMEOUT", 60)
graceful_timeout = _int("GUNICORN_GRACEFUL_TIMEOUT", 30)
# Idle keep-alive connections are closed after this many seconds (each holds a
# connection slot; slow clients must not park on them).
keepalive = _int("GUNICORN_KEEPALIVE", 5)
# Connections a worker serves at once (threads serve them; the rest wait in the queue).
worker_connections = _int("GUNICORN_WORKER_CONNECTIONS", 100)
backlog = _int("GUNICORN_BACKLOG", 512)
# Requests heavier than a browser or an API client needs are refused at parse time.
limit_request_line = 4094
limit_request_fields = 50
limit_request_field_size = 8190
# Workers are not restarted after a number of requests unless GUNICORN_MAX_REQUESTS asks
# (a leak to contain): a new worker starts cold (imports, an empty page cache), and
# under 32 clients restarts every 300 requests, 10% or 50% jitter alike, kept a quarter
# of the board requests within 2 s against 99% without (bench/load.py, docs/decisions.md).
# When set, the jitter defaults to half of it, so workers do not restart together.
max_requests = _int("GUNICORN_MAX_REQUESTS", 0)
max_requests_jitter = _int("GUNICORN_MAX_REQUESTS_JITTER", max_requests // 2)
# The heartbeat file lives in memory: a slow or full disk must not make workers look dead.
worker_tmp_dir = os.environ.get(
    "GUNICORN_WORKER_TMP_DIR", "/dev/shm" if os.path.isdir("/dev/shm") else None
)
# Behind the proxy only: trust its X-Forwarded-* headers (set to the proxy's address).
forwarded_allow_ips = os.environ.get("GUNICORN_FORWARDED_ALLOW_IPS", "127.0.0.1")
accesslog = "-"
errorlog = "-"
loglevel = os.environ.get("GUNICORN_LOG_LEVEL", "info")
