"""Rules every download shares: text that a spreadsheet must not run as a formula.

Board downloads (leaderboard.boards.downloads) and the signal board's CSV
(leaderboard.signalboard.api) both write names that come from bundles; both pass them
through spreadsheet_text, so a name can never become a live formula in a spreadsheet.
"""

from __future__ import annotations

# A cell starting with one of these is a formula to a spreadsheet (the characters
# OWASP's CSV injection guidance lists).
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_text(text: str) -> str:
    """Bundle text as a CSV cell: one that starts like a formula gets a leading apostrophe,
    which spreadsheets read as "this is text" and do not show."""
    return "'" + text if text.startswith(FORMULA_PREFIXES) else text
