"""/healthz/ names each dependency's state; it answers 200 while the database does."""

from __future__ import annotations

import uuid

import pytest

import arena.health
from tests.e2e.conftest import free_port

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def fresh_answer(monkeypatch):
    monkeypatch.setattr(arena.health, "_last", (float("-inf"), {}))


def test_it_reports_a_site_without_redis_as_ok(client):
    response = client.get("/healthz/")
    assert response.status_code == 200
    assert response.json() == {
        "status": "ok", "database": "ok", "cache": "database", "broker": "eager",
    }  # fmt: skip


def test_it_stays_ready_but_degraded_when_the_cache_is_unreachable(client, settings):
    nowhere = f"redis://127.0.0.1:{free_port()}/0"
    backend = {"BACKEND": "arena.cache.ResilientRedisCache", "LOCATION": nowhere}
    settings.CACHES = {**settings.CACHES, "default": {**backend, "KEY_PREFIX": uuid.uuid4().hex}}
    response = client.get("/healthz/")
    assert response.status_code == 200  # pages are still served, from the database
    assert response.json()["status"] == "degraded"
    assert response.json()["cache"] == "unreachable"
