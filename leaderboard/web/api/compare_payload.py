"""A comparison as plain JSON values: what the API returns (and its schema documents)."""

from __future__ import annotations

from typing import Any

from leaderboard.compare.compute import (
    BenchmarkComparison,
    Side,
    SignalComparison,
    TaskRow,
)
from leaderboard.methodology import paired, two_sample
from leaderboard.models import SignalEntry
from leaderboard.web.links import agent_url_for

BOOTSTRAP_METHOD = (
    f"paired bootstrap over shared tasks ({paired.BOOTSTRAP_DRAWS} draws, percentile, seeded "
    "from the board and the pair); difference = mean over shared tasks of A's per-task pass "
    "rate minus B's"
)
NEWCOMBE_METHOD = "Newcombe hybrid score interval (method 10, Wilson z = 1.96)"
NIR_METHOD = "normal: NIR_A − NIR_B ± 1.96·sqrt(sd_A² + sd_B²), sd = each NIR's null sd"


def agent_url(side: Side) -> str | None:
    ref = side.ref
    return agent_url_for(ref.harness, ref.version, ref.model, ref.independent_by)


def _side(side: Side) -> dict[str, Any]:
    entry = side.entry
    return {
        "key": side.ref.text,
        "harness": side.ref.harness,
        "harness_version": side.ref.version,
        "model": side.ref.model,
        "independent_by": side.ref.independent_by,
        "agent_url": agent_url(side),
        "rank": entry.rank,
        "board_pass_rate": entry.pass_rate,
        "board_n": entry.n,
        "shared_passes": side.passes,
        "shared_trials": side.trials,
        "tasks_only_this_agent": side.only_tasks,
    }


def _task(row: TaskRow) -> dict[str, Any]:
    return {
        "suite": row.suite,
        "task": row.code,
        "a_passes": row.a_passes,
        "a_trials": row.a_trials,
        "b_passes": row.b_passes,
        "b_trials": row.b_trials,
        "difference": row.difference,
    }


def benchmark_payload(c: BenchmarkComparison) -> dict[str, Any]:
    r = c.result
    pairs = r.pairs
    return {
        "kind": "benchmark",
        "board": {"slug": c.board.slug, "title": c.board.title},
        "computed_at": c.board.snapshot.computed_at,
        "a": _side(c.a),
        "b": _side(c.b),
        "shared_tasks": r.tasks,
        "tasks": [_task(row) for row in c.rows],
        "a_mean_task_pass_rate": r.a_rate,
        "b_mean_task_pass_rate": r.b_rate,
        "difference": {"value": r.difference, "low": r.low, "high": r.high,
                       "method": BOOTSTRAP_METHOD},
        "test": {
            "name": r.test,
            "label": paired.TEST_LABELS.get(r.test or "", ""),
            "p_value": r.p_value,
            "pairs": None if pairs is None else {
                "both_pass": pairs.both_pass, "a_only": pairs.a_only,
                "b_only": pairs.b_only, "both_fail": pairs.both_fail,
            },
            "signs": {"a_higher": r.signs.positive, "b_higher": r.signs.negative,
                      "ties": r.signs.ties},
        },
        "alpha": paired.ALPHA,
        "verdict": {"winner": r.verdict, "text": c.verdict_text, "counts": c.counts_text},
        # A - B per trajectory figure, paired by shared task (bootstrap over tasks).
        "trajectory": [
            {"figure": d.figure.key, "a": d.a, "b": d.b, "difference": d.difference,
             "low": d.low, "high": d.high, "tasks": d.tasks, "method": BOOTSTRAP_METHOD}
            for d in c.trajectory
        ],
    }  # fmt: skip


def _difference(d: two_sample.Difference, method: str) -> dict[str, Any]:
    return {"value": d.value, "low": d.low, "high": d.high, "p_value": d.p_value, "method": method}


def _model(entry: SignalEntry) -> dict[str, Any]:
    data = entry.data
    return {
        "model": entry.model_name,
        "sessions": entry.sessions,
        "rank": entry.rank,
        "confirmed_success": _figure(data.get("confirmed_success"), ("value", "low", "high", "n")),
        "net_improvement": _figure(
            data.get("net_improvement"), ("value", "low", "high", "p_value", "null_sd")
        ),
    }


def _figure(figure: dict | None, parts: tuple[str, ...]) -> dict[str, Any]:
    return {part: (figure or {}).get(part) for part in parts}


def signal_payload(c: SignalComparison) -> dict[str, Any]:
    return {
        "kind": "signals",
        "computed_at": c.computed_at,
        "a": _model(c.a),
        "b": _model(c.b),
        "confirmed_success_difference": _difference(c.confirmed, NEWCOMBE_METHOD),
        "net_improvement_difference": _difference(c.nir, NIR_METHOD),
        "alpha": paired.ALPHA,
        "verdict": {"winner": c.verdict, "text": c.verdict_text, "counts": c.counts_text},
    }
