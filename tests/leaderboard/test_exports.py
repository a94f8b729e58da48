"""The spreadsheet rule of every download (leaderboard.exports)."""

from __future__ import annotations

import pytest

from leaderboard.exports import FORMULA_PREFIXES, spreadsheet_text


@pytest.mark.parametrize("prefix", FORMULA_PREFIXES)
def test_it_writes_text_starting_like_a_formula_as_inert_text(prefix):
    assert spreadsheet_text(f"{prefix}HYPERLINK(1)") == f"'{prefix}HYPERLINK(1)"


@pytest.mark.parametrize("text", ["OpenHarness", "gpt-5-mini", "1.2.0", "", "a=b"])
def test_it_leaves_other_text_as_it_is(text):
    assert spreadsheet_text(text) == text
