"""Pages and API responses are compressed as the client asks: brotli, gzip or not at all."""

from __future__ import annotations

import gzip

import brotli
import pytest

from arena.compression import negotiate
from tests.leaderboard.boards.builders import build_snapshot, standard_boards


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("gzip, deflate, br, zstd", "br"),
        ("gzip, deflate", "gzip"),
        ("br;q=0.5, gzip;q=0.9", "gzip"),
        ("br;q=0, gzip", "gzip"),
        ("*", "br"),
        ("*;q=0", None),
        ("identity", None),
        ("", None),
        ("gzip;q=nonsense", None),
    ],
)
def test_it_negotiates_the_encoding(header, expected):
    assert negotiate(header) == expected


def test_it_never_picks_brotli_when_told_not_to():
    assert negotiate("br, gzip", allow_br=False) == "gzip"


@pytest.fixture
def snapshot(db):
    return build_snapshot(standard_boards())


def get(client, url: str, encoding: str):
    return client.get(url, headers={"Accept-Encoding": encoding})


@pytest.mark.parametrize("url", ["/", "/signals/", "/api/v1/boards/overall/", "/methodology/"])
def test_it_sends_brotli_when_asked_and_the_same_bytes_decoded(snapshot, client, url):
    plain = get(client, url, "identity")
    compressed = get(client, url, "gzip, br")
    assert compressed["Content-Encoding"] == "br"
    assert "Accept-Encoding" in compressed["Vary"] and "Accept-Encoding" in plain["Vary"]
    assert brotli.decompress(compressed.content) == plain.content
    assert int(compressed["Content-Length"]) == len(compressed.content) < len(plain.content)
    assert not plain.has_header("Content-Encoding")


def test_it_sends_gzip_to_a_client_without_brotli(snapshot, client):
    plain = get(client, "/api/v1/boards/overall/", "identity")
    compressed = get(client, "/api/v1/boards/overall/", "gzip")
    assert compressed["Content-Encoding"] == "gzip"
    assert gzip.decompress(compressed.content) == plain.content


def test_it_gives_a_compressed_response_a_weak_etag(snapshot, client):
    plain = get(client, "/", "identity")
    compressed = get(client, "/", "br")
    assert compressed["ETag"] == "W/" + plain["ETag"]


def test_it_sends_a_page_with_a_csrf_token_only_as_padded_gzip(snapshot, client, submitter):
    """BREACH: a page with the visitor's CSRF token is never brotli, and its gzip length
    varies (Django's random padding), so the token cannot be guessed from sizes."""
    client.force_login(submitter)
    responses = [get(client, "/", "br, gzip") for _ in range(8)]
    assert {r["Content-Encoding"] for r in responses} == {"gzip"}
    assert len({len(r.content) for r in responses}) > 1
    assert "X-CSRFToken" in gzip.decompress(responses[0].content).decode()
