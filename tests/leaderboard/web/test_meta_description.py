"""Every public page describes itself to search engines and link previews: one meta
description, its own where the page has its own subject."""

from __future__ import annotations

import html
import re

import pytest

DESCRIPTION = re.compile(r'<meta name="description" content="([^"]*)">')


def description(client, path: str) -> str:
    page = client.get(path, HTTP_ACCEPT="text/html").content.decode()
    found = DESCRIPTION.findall(page)
    assert len(found) == 1, path
    return html.unescape(found[0])


@pytest.mark.parametrize(
    ("path", "says"),
    [
        ("/", "Arena ranks AI agents from evidence"),
        ("/boards/overall/", "Overall board on Arena"),
        ("/boards/coding/", "Coding board on Arena"),
        ("/methodology/", "How Arena computes every published number"),
        ("/signals/", "Arena signal boards"),
        ("/accounts/signup/", "Arena ranks AI agents from evidence"),
        ("/api/v1/", "every endpoint"),
        ("/accounts/login/", "Arena ranks AI agents from evidence"),
    ],
)
def test_it_gives_every_public_page_a_meta_description(client, boards, path, says):
    text = description(client, path)
    assert says in text and 50 <= len(text) <= 300
