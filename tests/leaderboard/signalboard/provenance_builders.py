"""Sessions of two models uploaded by two accounts: the provenance tests' board."""

from __future__ import annotations

from tests.leaderboard.signalboard.helpers import ingest_sessions, session


def sessions_of(model: str, prefix: str, confirmations: list[str | None]) -> list[dict]:
    """One session per confirmation, all in one scenario, each user new (one stratum)."""
    return [
        session(f"{prefix}-{i}", model, confirmation=answer)
        for i, answer in enumerate(confirmations)
    ]


def two_accounts_board(large, small) -> None:
    """alpha: `large` uploads 3 sessions (2 confirmed), `small` 1 (confirmed);
    beta: `small` uploads 4 (1 confirmed)."""
    ingest_sessions(large, sessions_of("alpha", "a-large", ["yes", "yes", "no"]))
    ingest_sessions(
        small,
        sessions_of("alpha", "a-small", ["yes"])
        + sessions_of("beta", "b-small", ["yes", "no", "no", None]),
    )
