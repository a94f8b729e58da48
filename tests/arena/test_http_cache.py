"""ETag, 304 and Cache-Control on public pages and API reads, tied to the snapshot."""

from __future__ import annotations

import pytest

from leaderboard.models import BoardSnapshot
from tests.leaderboard.boards.builders import agent_figures, build_snapshot, standard_boards

pytestmark = pytest.mark.django_db

PUBLIC_READS = [
    "/",
    "/boards/coding/?sort=n",
    "/signals/",
    "/api/v1/boards/",
    "/api/v1/boards/overall/",
    "/api/v1/signals/",
]


@pytest.fixture
def snapshot(db) -> BoardSnapshot:
    return build_snapshot(standard_boards())


def cache_control(response) -> set[str]:
    return {part.strip() for part in response["Cache-Control"].split(",")}


@pytest.mark.parametrize("url", PUBLIC_READS)
def test_it_answers_a_matching_if_none_match_with_304(snapshot, client, url):
    first = client.get(url)
    assert first.status_code == 200
    assert first["ETag"].startswith(f'"s{snapshot.pk}-')
    again = client.get(url, headers={"If-None-Match": first["ETag"]})
    assert again.status_code == 304
    assert again.content == b""
    assert again["ETag"] == first["ETag"]


def test_it_matches_the_weak_etag_of_a_compressed_copy(snapshot, client):
    compressed = client.get("/", headers={"Accept-Encoding": "br"})
    assert compressed["ETag"].startswith("W/")
    again = client.get(
        "/", headers={"Accept-Encoding": "br", "If-None-Match": f'"other", {compressed["ETag"]}'}
    )
    assert again.status_code == 304
    assert again["ETag"] == compressed["ETag"]


def test_it_sends_the_page_again_for_another_snapshot(snapshot, client):
    etag = client.get("/boards/overall/").get("ETag")
    newer = build_snapshot({"overall": [agent_figures(harness="Newcomer")]})
    response = client.get("/boards/overall/", headers={"If-None-Match": etag})
    assert response.status_code == 200
    assert response["ETag"].startswith(f'"s{newer.pk}-') and "Newcomer" in response.text


def test_it_gives_equivalent_addresses_one_etag(snapshot, client):
    assert (
        client.get("/boards/overall/?junk=1")["ETag"]
        == client.get("/boards/overall/?junk=2")["ETag"]
    )
    assert client.get("/boards/overall/?sort=n")["ETag"] != client.get("/boards/overall/")["ETag"]
    partial = client.get("/boards/overall/", headers={"HX-Request": "true"})
    assert partial["ETag"] != client.get("/boards/overall/")["ETag"]


@pytest.mark.parametrize("url", PUBLIC_READS)
def test_it_marks_anonymous_reads_public(snapshot, client, url):
    response = client.get(url)
    assert {"public", "max-age=30"} <= cache_control(response)


@pytest.mark.parametrize("url", ["/", "/boards/coding/", "/signals/"])
def test_it_marks_a_logged_in_page_private_and_never_304(snapshot, client, submitter, url):
    etag = client.get(url)["ETag"]
    client.force_login(submitter)
    response = client.get(url, headers={"If-None-Match": etag})
    assert response.status_code == 200
    assert submitter.username in response.text
    assert {"private", "no-store"} <= cache_control(response)
    assert "public" not in cache_control(response)
    assert not response.has_header("ETag")
    assert "Cookie" in response["Vary"]


@pytest.mark.parametrize("url", PUBLIC_READS)
@pytest.mark.parametrize("logged_in", [False, True])
def test_it_names_no_empty_vary_token(snapshot, client, submitter, url, logged_in):
    if logged_in:
        client.force_login(submitter)
    for headers in ({}, {"Accept-Encoding": "br"}, {"HX-Request": "true"}):
        vary = client.get(url, headers=headers)["Vary"]
        assert all(token.strip() for token in vary.split(",")), vary
