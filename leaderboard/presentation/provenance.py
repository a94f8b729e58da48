"""How a signal entry's provenance reads: accounts, the largest share, the concentrated
chip with the figures without that account, and the conflict-excluded count.

Plain functions of a SignalEntry's `data["provenance"]` (signalboard.provenance),
registered as template filters by leaderboard.templatetags.arena.
"""

from __future__ import annotations

from dataclasses import dataclass

from leaderboard.presentation.figures import percent
from leaderboard.presentation.signals import points


@dataclass(frozen=True)
class ProvenanceView:
    accounts: int
    largest_share: str  # "75%"
    concentrated: bool
    chip_title: str  # the concentrated chip's tooltip
    nir_without: str  # the NIR without the largest account ("" when not concentrated)
    confirmed_without: str
    conflict_excluded: int
    summary: str  # one sentence for the row details


def provenance_view(data: dict | None) -> ProvenanceView | None:
    """None for an entry without provenance (the agent view, or an older snapshot)."""
    figures = (data or {}).get("provenance")
    if not isinstance(figures, dict) or "accounts" not in figures:
        return None
    accounts, share = figures["accounts"], figures.get("largest_share")
    threshold = figures.get("threshold")
    without = figures.get("without_largest") or {}
    nir = (without.get("net_improvement") or {}).get("value")
    confirmed = (without.get("confirmed_success") or {}).get("value")
    concentrated = bool(figures.get("concentrated"))
    left = without.get("sessions", 0)
    # Nothing beside the figure when no session is left without the account: the chip's
    # title says so.
    nir_text = points(nir) if concentrated and left else ""
    confirmed_text = percent(confirmed) if concentrated and left else ""
    chip_title = (
        f"{percent(share)} of its sessions come from one account (above {percent(threshold)}); "
        + (
            f"without that account's sessions: NIR {nir_text}, confirmed success "
            f"{confirmed_text}, over {left} session{'s' * (left != 1)}"
            if left
            else "no session is left without that account"
        )
    )
    excluded = figures.get("conflict_excluded", 0)
    summary = (
        f"Sessions from {accounts} account{'s' * (accounts != 1)}; the largest contributed "
        f"{percent(share)}."
    )
    return ProvenanceView(
        accounts=accounts,
        largest_share=percent(share),
        concentrated=concentrated,
        chip_title=chip_title,
        nir_without=nir_text,
        confirmed_without=confirmed_text,
        conflict_excluded=excluded,
        summary=summary,
    )
