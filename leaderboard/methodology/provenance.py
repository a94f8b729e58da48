"""Who a model's signal figures rest on: the accounts that uploaded its sessions.

A model's sessions arrive in submissions, each uploaded by one account. Its provenance
is how many accounts contributed its counted sessions and the largest one's share; a
model is *concentrated* when that share is strictly above stats.CONCENTRATION_SHARE,
and its headline figures (confirmed success, and the NIR on it) are then recomputed
without that account's sessions of the model, every other session of the board kept.

Everything is computed from counts per (model, account, NIR stratum) group, never from
sessions: confirmed success is 1/0, so nir.nir_closed_form_counts needs nothing more.
Pure: the caller reads the groups from the database.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from leaderboard.methodology import nir
from leaderboard.methodology.stats import CONCENTRATION_SHARE, wilson_interval


@dataclass(frozen=True)
class AccountGroup:
    """Counted sessions of one model, uploaded by one account, in one NIR stratum."""

    model: str
    account: int
    stratum: Hashable
    sessions: int
    confirmed: int  # of them, confirmed successes


@dataclass(frozen=True)
class AccountShare:
    account: int
    sessions: int
    confirmed: int
    share: float  # of the model's counted sessions


def account_shares(groups: Iterable[AccountGroup]) -> dict[str, list[AccountShare]]:
    """Model -> its accounts, the largest first (ties: the lower account id first)."""
    totals: dict[str, dict[int, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    for group in groups:
        cell = totals[group.model][group.account]
        cell[0] += group.sessions
        cell[1] += group.confirmed
    shares = {}
    for model, accounts in totals.items():
        sessions = sum(count for count, _ in accounts.values())
        rows = [
            AccountShare(account, count, confirmed, count / sessions if sessions else 0.0)
            for account, (count, confirmed) in accounts.items()
        ]
        shares[model] = sorted(rows, key=lambda row: (-row.sessions, row.account))
    return shares


def is_concentrated(largest_share: float | None) -> bool:
    return largest_share is not None and largest_share > CONCENTRATION_SHARE


def model_provenance(groups: Iterable[AccountGroup]) -> dict[str, dict[str, Any]]:
    """Model -> {accounts, largest_share, largest_sessions, concentrated, without_largest}.

    `without_largest` (concentrated models only, else None) holds the model's sessions,
    confirmed success (Wilson interval) and NIR once its largest account's sessions of
    the model are left out of the board; its figures are None when nothing is left.
    """
    groups = list(groups)
    counts = _stratum_counts(groups)
    by_model_account: dict[tuple[str, int], list[AccountGroup]] = defaultdict(list)
    for group in groups:
        by_model_account[(group.model, group.account)].append(group)
    result = {}
    for model, shares in account_shares(groups).items():
        largest = shares[0]
        concentrated = is_concentrated(largest.share)
        without = None
        if concentrated:
            without = _without(model, counts, by_model_account[(model, largest.account)])
        result[model] = {
            "accounts": len(shares),
            "largest_share": largest.share,
            "largest_sessions": largest.sessions,
            "concentrated": concentrated,
            "threshold": CONCENTRATION_SHARE,
            "without_largest": without,
        }
    return result


def _stratum_counts(groups: Iterable[AccountGroup]) -> dict[tuple[str, Hashable], list[int]]:
    counts: dict[tuple[str, Hashable], list[int]] = defaultdict(lambda: [0, 0])
    for group in groups:
        cell = counts[(group.model, group.stratum)]
        cell[0] += group.sessions
        cell[1] += group.confirmed
    return counts


def _without(
    model: str,
    counts: Mapping[tuple[str, Hashable], list[int]],
    left_out: Iterable[AccountGroup],
) -> dict[str, Any]:
    """The model's headline figures with `left_out` (one account's groups) removed."""
    reduced = {key: list(value) for key, value in counts.items()}
    for group in left_out:
        cell = reduced[(group.model, group.stratum)]
        cell[0] -= group.sessions
        cell[1] -= group.confirmed
    sessions = sum(n for (m, _), (n, _) in reduced.items() if m == model)
    confirmed = sum(c for (m, _), (_, c) in reduced.items() if m == model)
    results = nir.nir_closed_form_counts({key: tuple(value) for key, value in reduced.items()})
    low, high = wilson_interval(confirmed, sessions) if sessions else (None, None)
    return {
        "sessions": sessions,
        "confirmed_success": {
            "value": confirmed / sessions if sessions else None,
            "low": low,
            "high": high,
            "n": sessions,
        },
        "net_improvement": results.get(model, nir.EMPTY_RESULT).as_dict(),
    }
