"""The spreadsheet rule of every download (leaderboard.exports)."""

from __future__ import annotations

import csv
import io

import pytest

from leaderboard.exports import FORMULA_PREFIXES, csv_text, spreadsheet_text


@pytest.mark.parametrize("prefix", FORMULA_PREFIXES)
def test_it_writes_text_starting_like_a_formula_as_inert_text(prefix):
    assert spreadsheet_text(f"{prefix}HYPERLINK(1)") == f"'{prefix}HYPERLINK(1)"


@pytest.mark.parametrize("text", ["OpenHarness", "gpt-5-mini", "1.2.0", "", "a=b"])
def test_it_leaves_other_text_as_it_is(text):
    assert spreadsheet_text(text) == text


@pytest.mark.parametrize("text", [" =1+1", "\u3000@SUM(A1)", "\uff1dHYPERLINK(1)", "\nx"])
def test_it_guards_formula_leads_behind_blanks_full_width_and_line_feeds(text):
    assert spreadsheet_text(text) == "'" + text


def test_it_quotes_a_bare_carriage_return_so_no_unguarded_row_starts_after_it():
    text = csv_text(["model"], [{"model": "gpt\r=HYPERLINK(1)"}], terms_url="t")
    rows = list(csv.reader(io.StringIO(text.replace("\n", "\r\n"), newline="")))
    assert text == 'model,data_terms\n"gpt\n=HYPERLINK(1)",t\n'
    assert rows == [["model", "data_terms"], ["gpt\r\n=HYPERLINK(1)", "t"]]


def test_it_writes_a_tie_rank_as_text_in_every_column():
    text = csv_text(["rank_display", "n"], [{"rank_display": "=13", "n": -1}], terms_url="t")
    assert text == "rank_display,n,data_terms\n'=13,-1,t\n"
