"""Rules every CSV download shares, and the one function that writes them.

Board downloads (leaderboard.web.downloads), the read API's `?format=csv`
(leaderboard.web.csv_api) and the signal board's CSV all write through csv_text: a header
line, then one line per row, nothing before the header, so that `pandas.read_csv(url)`
and a spreadsheet open the file without options. The data terms travel with the rows
in a last `data_terms` column (the address of the terms); the HTTP response adds a
`Link: <…>; rel="license"` header and a named attachment (docs/decisions.md).

Every text cell passes through spreadsheet_text, so a name (or a tie rank, `=2`) can never
become a live formula, and a carriage return inside a cell is written as a line feed, which
the writer quotes (it quotes what is in its line terminator, `\n`, and would leave a bare
`\r` unquoted: a spreadsheet starts a new row there, whose first cell is then unguarded).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

# A cell starting with one of these is a formula to a spreadsheet (the characters
# OWASP's CSV injection guidance lists, the line feed, and their full-width forms, which
# some spreadsheets read as the ASCII ones).
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r", "\n", "\uff1d", "\uff0b", "\uff0d", "\uff20")
# Leading spaces do not make a formula text (spreadsheets skip them when importing).
_LEADING_BLANKS = " \u00a0\u3000"
# The last column of every CSV: where the data terms are (methodology D59).
TERMS_COLUMN = "data_terms"


def spreadsheet_text(text: str) -> str:
    """Bundle text as a CSV cell: one that starts like a formula gets a leading apostrophe,
    which spreadsheets read as "this is text" and do not show."""
    return "'" + text if text.lstrip(_LEADING_BLANKS).startswith(FORMULA_PREFIXES) else text


def _cell(value: Any) -> Any:
    if not isinstance(value, str):
        return value
    return spreadsheet_text(value.replace("\r\n", "\n").replace("\r", "\n"))


def csv_text(
    columns: Sequence[str],
    rows: Iterable[Mapping[str, Any]],
    *,
    terms_url: str,
    text_columns: Sequence[str] = (),
) -> str:
    """The rows as CSV: `columns` then `data_terms`, one line per row.

    Keys of a row that are not columns are left out; a missing one is an empty cell.
    `text_columns` name the columns of text from bundles (or users); every text cell is
    made inert for spreadsheets, theirs and the others (a tie rank `=2` is text too).
    """
    buffer = io.StringIO()
    writer = csv.DictWriter(
        buffer, fieldnames=[*columns, TERMS_COLUMN], extrasaction="ignore", lineterminator="\n"
    )
    writer.writeheader()
    for row in rows:
        writer.writerow(
            {key: _cell(value) for key, value in row.items()} | {TERMS_COLUMN: terms_url}
        )
    return buffer.getvalue()
