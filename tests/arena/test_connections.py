"""A web process keeps its database connection between requests (CONN_MAX_AGE), so a
connection PostgreSQL ended meanwhile (a restart, a fail-over, an operator's
pg_terminate_backend) costs a reconnect at the next request, not a 500: connections
are health-checked when a request starts."""

from __future__ import annotations

import psycopg
import pytest
from django.core.signals import request_started
from django.db import connection

from arena.embedded_db import database_url_of

pytestmark = pytest.mark.django_db(transaction=True)


def backend_pid() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return cursor.fetchone()[0]


def test_it_reconnects_at_the_next_request_after_its_backend_was_terminated():
    assert connection.settings_dict["CONN_MAX_AGE"] > 0  # kept from request to request
    connection.close()  # opened afresh, as a web process opens it, with the settings
    pid = backend_pid()
    with psycopg.connect(database_url_of(connection.settings_dict), autocommit=True) as side:
        side.execute("SELECT pg_terminate_backend(%s, 10000)", [pid])  # waits until gone

    request_started.send(sender=None)  # what every request starts with

    assert backend_pid() != pid
