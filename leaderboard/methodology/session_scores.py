"""Signal-board figures of every model from many sessions (methodology §3).

score_sessions makes one pass over the sessions (each summarised by `sessions`), then
aggregates every model with numpy: Wilson intervals for proportions, cluster-robust
ratios for steerability and bash recovery, and the net improvement rate. The signal
board builds its slices from collect_columns and model_entry, so every published
figure is computed here. No Django.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from leaderboard.methodology import cohorts, nir
from leaderboard.methodology.sessions import SessionSignals, summarize_session
from leaderboard.methodology.stats import cluster_robust_ratio, wilson_interval


@dataclass
class SessionColumns:
    """Per-session values as numpy columns, in session order."""

    model: np.ndarray  # model code per session
    scenario: list[str | None]
    confirmed: np.ndarray
    pc: np.ndarray  # 1 success, 0 failure, -1 not scored
    turns: np.ndarray
    effort: np.ndarray
    episodes: np.ndarray
    episode_score: np.ndarray
    resolved: np.ndarray
    calls: np.ndarray  # -1: no toolset
    hallucinated: np.ndarray
    shell_calls: np.ndarray
    shell_successes: np.ndarray
    claims: np.ndarray  # assistant turns claiming a capability the toolset lacks
    unaided: np.ndarray  # episodes resolved before the user's next words
    recover_turns: np.ndarray  # sum of the turns to recover of the recovered corrections
    recovered: np.ndarray  # corrections recovered from
    corrections_open: np.ndarray  # corrections the session ended before recovering from
    attempts: list[list[int]]  # resolved attempts, per model code
    # The user's cohort per session (methodology.cohorts), the NIR's second stratum.
    cohort: list[str]

    def nir_strata(self) -> list[tuple[str | None, str]]:
        """The NIR strata per session: (scenario, user cohort)."""
        return cohorts.nir_strata(self.scenario, self.cohort)


def score_sessions(sessions: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """Model -> every signal-board figure for that model (the `signals` shape).

    The net improvement rate is computed on confirmed success across all the given
    sessions, shuffling models within scenario × user cohort (closed form, §3.1).
    """
    names, columns = collect_columns(sessions)
    nir_results = nir.nir_closed_form_all(
        columns.confirmed.astype(float), columns.model, columns.nir_strata()
    )
    return {
        name: model_entry(columns, columns.model == code, code, nir_results[code])
        for code, name in enumerate(names)
    }


def collect_columns(sessions: Iterable[Mapping[str, Any]]) -> tuple[list[str], SessionColumns]:
    """(model names, columns) of the sessions; a user's cohort counts their sessions
    among these (the session's `user`: a bundle's id or a stored hash)."""
    codes: dict[str, int] = {}
    rows: list[tuple] = []
    scenarios: list[str | None] = []
    users: list[str | None] = []
    attempts: list[list[int]] = []
    for session in sessions:
        summary = summarize_session(session)
        code = codes.setdefault(summary.model, len(codes))
        if code == len(attempts):
            attempts.append([])
        attempts[code].extend(a for a in summary.episode_attempts if a is not None)
        scenarios.append(summary.scenario)
        users.append(session.get("user"))
        rows.append(_row(code, summary))
    table = np.array(rows, dtype=float).reshape(len(rows), _ROW_WIDTH)
    return list(codes), SessionColumns(
        table[:, 0].astype(np.int64),
        scenarios,
        *(table[:, i] for i in range(1, _ROW_WIDTH)),
        attempts,
        cohort=cohorts.session_cohorts(users),
    )


# Columns of a _row: the model code, then SessionColumns' numpy columns in field order.
_ROW_WIDTH = 17


def _row(code: int, s: SessionSignals) -> tuple:
    pc = -1 if s.praise_complaint is None else int(s.praise_complaint)
    calls, hallucinated = s.tool_calls if s.tool_calls is not None else (-1, 0)
    resolved = sum(1 for a in s.episode_attempts if a is not None)
    return (
        code,
        s.confirmed,
        pc,
        s.assistant_turns,
        s.effort,
        len(s.episode_attempts),
        s.episode_score_total,
        resolved,
        calls,
        hallucinated,
        s.shell_calls,
        s.shell_successes,
        s.claims,
        s.episodes_unaided,
        sum(s.recoveries),
        len(s.recoveries),
        s.corrections_open,
    )


def model_entry(
    c: SessionColumns, mask: np.ndarray, code: int, nir_result: nir.NirResult
) -> dict[str, Any]:
    return {
        "sessions": int(mask.sum()),
        "confirmed_success": _proportion(int(c.confirmed[mask].sum()), int(mask.sum())),
        "praise_complaint": _praise_complaint(c.pc[mask]),
        "steerability": {
            **_steerability(c.effort[mask], c.turns[mask]),
            **_turns_to_recover(c.recover_turns[mask], c.recovered[mask], c.corrections_open[mask]),
        },
        "bash_recovery": _bash_recovery(c, mask, c.attempts[code]),
        "tool_hallucination": _hallucination(c.calls[mask], c.hallucinated[mask], c.claims[mask]),
        "shell_success": _shell_success(c.shell_calls[mask], c.shell_successes[mask]),
        "net_improvement": nir_result.as_dict(),
    }


def _proportion(successes: int, n: int) -> dict[str, Any]:
    low, high = wilson_interval(successes, n)
    return {"value": successes / n if n else None, "low": low, "high": high, "n": n}


def _praise_complaint(pc: np.ndarray) -> dict[str, Any]:
    scored = pc >= 0
    return _proportion(int(pc[scored].sum()), int(scored.sum()))


def _steerability(effort: np.ndarray, turns: np.ndarray) -> dict[str, Any]:
    # As for bash recovery, every session is a cluster, even one without an assistant
    # turn (the reference data has none, so this is for consistency).
    mean, low, high = cluster_robust_ratio(effort, turns)
    # The score is 1 - mean/3, so the ends of the effort interval swap.
    score_low, score_high = _unit_interval(
        None if high is None else 1 - high / 3, None if low is None else 1 - low / 3
    )
    return {
        "value": None if mean is None else 1 - mean / 3,
        "low": score_low,
        "high": score_high,
        "mean_effort": mean,
        "turns": int(turns.sum()),
    }


def _unit_interval(low: float | None, high: float | None) -> tuple[float | None, float | None]:
    """A score in [0, 1] keeps its interval there, as the Wilson interval does: the
    normal interval of a mean near 0 or 1 runs past it, to values no score can take."""
    if low is None or high is None:
        return (None, None)
    return (max(0.0, low), min(1.0, high))


def _bash_recovery(c: SessionColumns, mask: np.ndarray, attempts: list[int]) -> dict[str, Any]:
    episodes = c.episodes[mask]
    # Every session of the model is a cluster, including those without an episode
    # (y = m = 0: they add nothing to the sums but count in n/(n-1)). The reference
    # numbers in tests/data/expected.json confirm this reading; clustering only the
    # sessions with an episode gives intervals about 3e-4 wider.
    value, low, high = cluster_robust_ratio(c.episode_score[mask], episodes)
    low, high = _unit_interval(low, high)
    total = int(episodes.sum())
    rate_low, rate_high = _recovery_rate_interval(c.resolved[mask], episodes)
    return {
        "value": value,
        "low": low,
        "high": high,
        "episodes": total,
        "recovery_rate": float(c.resolved[mask].sum()) / total if total else None,
        "recovery_rate_low": rate_low,
        "recovery_rate_high": rate_high,
        # Median over resolved episodes: a failed episode has no attempt count.
        "median_attempts": statistics.median(attempts) if attempts else None,
        **_recovery_split(int(c.unaided[mask].sum()), int(c.resolved[mask].sum()), total),
    }


def _turns_to_recover(
    recover_turns: np.ndarray, recovered: np.ndarray, open_: np.ndarray
) -> dict[str, Any]:
    """Mean turns to recover per correction recovered from (sessions.turns_to_recover),
    cluster-robust by session like the effort (every session a cluster); the low end
    clamped to 1, the fewest turns a recovery can take."""
    mean, low, high = cluster_robust_ratio(recover_turns, recovered)
    return {
        "turns_to_recover": mean,
        "turns_to_recover_low": None if low is None else max(1.0, low),
        "turns_to_recover_high": high,
        "corrections": int(recovered.sum()),
        "corrections_open": int(open_.sum()),
    }


def _recovery_split(unaided: int, resolved: int, episodes: int) -> dict[str, Any]:
    """Episodes resolved before the user's next words (autonomous) and after them
    (the user stepped in), each a share of every episode with its Wilson interval;
    with the unresolved share they sum to 1."""
    after = resolved - unaided
    autonomous_low, autonomous_high = wilson_interval(unaided, episodes)
    after_low, after_high = wilson_interval(after, episodes)
    return {
        "autonomous": unaided,
        "autonomous_rate": unaided / episodes if episodes else None,
        "autonomous_rate_low": autonomous_low,
        "autonomous_rate_high": autonomous_high,
        "after_user": after,
        "after_user_rate": after / episodes if episodes else None,
        "after_user_rate_low": after_low,
        "after_user_rate_high": after_high,
    }


def _recovery_rate_interval(
    resolved: np.ndarray, episodes: np.ndarray
) -> tuple[float | None, float | None]:
    """Resolved / episodes is a ratio of per-session sums like the score: the same
    cluster-robust interval (every session a cluster), clamped to [0, 1] as well."""
    _, low, high = cluster_robust_ratio(resolved, episodes)
    return _unit_interval(low, high)


def _hallucination(
    calls: np.ndarray, hallucinated: np.ndarray, claims: np.ndarray
) -> dict[str, Any]:
    """Hallucinated references / references over the sessions with a toolset: a
    reference is a tool call, or an assistant turn claiming a capability the toolset
    lacks (a call that never was: it counts on both sides). Wilson interval."""
    scored = calls >= 0
    total = int(calls[scored].sum())
    claimed = int(claims[scored].sum())
    bad = int(hallucinated[scored].sum()) + claimed
    low, high = wilson_interval(bad, total + claimed)
    return {
        "value": bad / (total + claimed) if total + claimed else None,
        "low": low,
        "high": high,
        "calls": total,
        "claims": claimed,
    }


def _shell_success(calls: np.ndarray, successes: np.ndarray) -> dict[str, Any]:
    total = int(calls.sum())
    ok = int(successes.sum())
    low, high = wilson_interval(ok, total)
    return {
        "value": ok / total if total else None,
        "low": low,
        "high": high,
        "calls": total,
    }
