"""The bundle format page: docs/bundle-format.md (a copy of the contract, word for word)
rendered as HTML once per process.

Rendered with markdown-it-py, CommonMark plus tables, raw HTML off: the file is ours,
but nothing in it should ever become markup it does not spell. Headings get ids (their
text, slugified) so that the submit page and errors can link to a section.
"""

from __future__ import annotations

import functools
from pathlib import Path

from django.conf import settings
from django.utils.safestring import SafeString, mark_safe
from django.utils.text import slugify
from markdown_it import MarkdownIt

BUNDLE_FORMAT_DOC = Path(settings.BASE_DIR) / "docs" / "bundle-format.md"


@functools.cache
def bundle_format_html() -> SafeString:
    """The rendered page body (its first heading included)."""
    return mark_safe(
        render_markdown(BUNDLE_FORMAT_DOC.read_text(encoding="utf-8"))
    )  # the file is ours; raw HTML is off


def render_markdown(text: str) -> str:
    """CommonMark with tables, no raw HTML, ids on headings."""
    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    tokens = md.parse(text)
    seen: set[str] = set()
    for index, token in enumerate(tokens):
        if token.type == "heading_open":
            slug = base = slugify(tokens[index + 1].content) or "section"
            counter = 1
            while slug in seen:
                counter += 1
                slug = f"{base}-{counter}"
            seen.add(slug)
            token.attrSet("id", slug)
    return md.renderer.render(tokens, md.options, {})
