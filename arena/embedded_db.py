"""The embedded PostgreSQL used when no DATABASE_URL is configured.

A fresh clone has no database server to talk to, so `make run` and `make test` start
PostgreSQL from the `pgserver` wheel with its data under `var/pgdata`. The server keeps
running between commands (pgserver finds it again through postmaster.pid), which makes
every later start instant. Production and CI always set DATABASE_URL instead.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path

EMBEDDED_DATABASE_NAME = "arena"
# Where `make run` and `make test` keep it (settings: VAR_DIR / "pgdata").
DEFAULT_PGDATA = Path(__file__).resolve().parent.parent / "var" / "pgdata"


@contextlib.contextmanager
def _pgserver_quietly() -> Iterator[None]:
    """pgserver asks platformdirs for a runtime directory when it is imported, which
    warns on every command of a shell without XDG_RUNTIME_DIR (a container, root);
    the fallback it takes (/tmp/runtime-<uid>) is fine for a socket lock."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR")
        yield


def embedded_database_url(pgdata: Path) -> str:
    """Start (or find) the embedded server and return a URL for the `arena` database."""
    with _pgserver_quietly():
        import pgserver  # imported lazily: only needed without DATABASE_URL

    # pgserver logs every start and exit at INFO, after test runners close their streams.
    logging.getLogger("pgserver").setLevel(logging.WARNING)

    pgdata.parent.mkdir(parents=True, exist_ok=True)
    server = pgserver.get_server(pgdata, cleanup_mode=None)
    exists = server.psql(f"SELECT 1 FROM pg_database WHERE datname = '{EMBEDDED_DATABASE_NAME}';")
    if "1 row" not in exists:
        server.psql(f"CREATE DATABASE {EMBEDDED_DATABASE_NAME};")
    return server.get_uri(EMBEDDED_DATABASE_NAME)


def database_url_of(settings_dict: dict) -> str:
    """A URL for a configured Django database, for child processes (a Celery worker in
    the end-to-end test, gunicorn in bench/pages.py) that must reach the same database,
    including the embedded server's socket directory."""
    socket = settings_dict.get("OPTIONS", {}).get("host")
    host = settings_dict["HOST"] or ""
    port = f":{settings_dict['PORT']}" if settings_dict["PORT"] else ""
    password = f":{settings_dict['PASSWORD']}" if settings_dict.get("PASSWORD") else ""
    query = f"?host={socket}" if socket and not host else ""
    return f"postgresql://{settings_dict['USER']}{password}@{host}{port}/{settings_dict['NAME']}{query}"


def embedded_server_stop(pgdata: Path = DEFAULT_PGDATA) -> bool:
    """Stop the embedded server (`make stop`, and `make run` when it ends); False if
    none was running. Uses pgserver's own pg_ctl, as the user pgserver runs it as."""
    if not (pgdata / "postmaster.pid").exists():
        return False
    with _pgserver_quietly():
        from pgserver._commands import pg_ctl  # the binary pgserver ships

    # As root, pgserver runs PostgreSQL as its own system user "pgserver".
    user = "pgserver" if hasattr(os, "geteuid") and os.geteuid() == 0 else None
    pg_ctl(["-w", "-m", "fast", "stop"], pgdata=pgdata, user=user)
    return True


if __name__ == "__main__":  # python -m arena.embedded_db stop
    if sys.argv[1:] != ["stop"]:
        sys.exit("usage: python -m arena.embedded_db stop")
    stopped = embedded_server_stop()
    print("embedded PostgreSQL stopped" if stopped else "embedded PostgreSQL was not running")
