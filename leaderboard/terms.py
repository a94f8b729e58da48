"""The data terms and attribution line, defined once for pages and downloads alike."""

from __future__ import annotations

DATA_TERMS = (
    "Arena board data is published under the Creative Commons Attribution 4.0 licence "
    "(CC BY 4.0): copy, share and build on it, with attribution. Every rate comes with "
    "its n and a 95% Wilson interval; publish them together."
)
ATTRIBUTION = 'Source: Arena leaderboard (cite "Arena leaderboard"), CC BY 4.0.'
