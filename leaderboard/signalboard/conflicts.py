"""Which sessions the signal boards leave out as conflicts of interest (methodology §3.3).

The rule is the `leaderboard_sessionconflictpair` view's (migration 0033): an (account,
model) pair is excluded when the account belongs to an organisation that makes or
serves the model, unless a moderator dismissed it, or when a moderator confirmed it.
Every signal-board query that reads sessions leaves those out with NOT_EXCLUDED, so
the scores, the user cohorts and the provenance all count the same sessions.
"""

from __future__ import annotations

from psycopg import sql

# A predicate over a session `s` and its submission `sub`: the session counts. An
# uncorrelated anti-join for the planner (the view is read once per query).
NOT_EXCLUDED = sql.SQL("""NOT EXISTS (
        SELECT FROM leaderboard_sessionconflictpair cp
        WHERE cp.excluded AND cp.account_id = sub.uploader_id AND cp.model_id = s.model_id
    )""")
# The excluded (account id, model id) pairs, for a query that keeps the excluded sessions
# and flags them (a LEFT JOIN on it, never a subquery per row).
EXCLUDED_PAIRS = sql.SQL(
    "SELECT account_id, model_id FROM leaderboard_sessionconflictpair WHERE excluded"
)
