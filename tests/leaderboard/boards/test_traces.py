"""An entry's trajectory figures and rule-violation counts, after a recompute: the
pass rate's runs, the pass rate's intervals."""

from __future__ import annotations

from collections import defaultdict

from ingestion.models import Harness, RunTrace, Submission
from leaderboard.boards.traces import figure_summary
from leaderboard.methodology import stats, uncertainty
from leaderboard.models import BoardEntry, BoardSnapshot
from leaderboard.recompute.services import boards_recompute
from tests.ingestion.services.trace_builders import (
    AUTHOR,
    BAD_BOOK,
    BOARD,
    GOOD_BOOK,
    load,
    submit_tools,
    tool_run,
    tool_runs,
    tool_suite,
)

COUNTED = ("r-1", "r-2", "r-3", "r-5")  # r-4 is conflict-excluded, r-6 an infra error


def _entry(board: str = BOARD, harness: str = "Toolsmith") -> BoardEntry:
    snapshot = BoardSnapshot.objects.current()
    return BoardEntry.objects.get(
        board__snapshot=snapshot, board__slug=board, harness__name=harness
    )


def _agent(user) -> None:
    """Toolsmith's counted runs, its conflict-excluded "cancel" (its contributor wrote
    it), its infra error, and a withdrawn submission that would change every figure."""
    load()
    submit_tools(user, contributors=[AUTHOR])
    withdrawn = [tool_run(f"w-{i}", "book", BAD_BOOK, 10 + i, model="m") for i in range(3)]
    gone = submit_tools(user, withdrawn)
    Submission.objects.filter(pk=gone.pk).update(status=Submission.Status.WITHDRAWN)
    boards_recompute()


def _hand_sums(run_ids, figure: str) -> tuple[list[float], list[int]]:
    sums: dict[int, list] = defaultdict(lambda: [0.0, 0])
    traces = RunTrace.objects.filter(run__run_id__in=run_ids, run__submission__status="ingested")
    for task, figures in traces.values_list("run__task_id", "figures"):
        if figures.get(figure) is not None:
            sums[task][0] += figures[figure]
            sums[task][1] += 1
    tasks = sorted(sums)
    return [sums[t][0] for t in tasks], [sums[t][1] for t in tasks]


def test_it_gives_rate_figures_as_passes_over_n_with_the_wilson_interval(db, submitter):
    _agent(submitter)
    found = _entry().trajectory["exact_args"]
    # r-1 and r-2 match the reference, r-3 does not; cancel and the infra error are out.
    low, high = stats.wilson_interval(2, 3)
    assert found == {"value": 2 / 3, "low": low, "high": high, "n": 3}


def test_it_gives_share_figures_as_the_task_clustered_mean(db, submitter):
    _agent(submitter)
    trajectory = _entry().trajectory
    for figure in ("tool_precision", "tool_f1", "argument_accuracy"):
        sums, counts = _hand_sums(COUNTED, figure)
        value, low, high = uncertainty.task_clustered_mean(sums, counts)
        found = trajectory[figure]
        assert found["value"] == value
        assert found["n"] == sum(counts) == 3
        if low is not None:
            assert (found["low"], found["high"]) == (max(low, 0.0), min(high, 1.0))


def test_it_counts_the_violations_of_the_counted_runs(db, submitter):
    _agent(submitter)
    # r-3 broke both rules, r-5 (no reference, rules only) deleted an account.
    assert _entry().violations == {
        "checked": 4, "any": 2, "rules": {"no-delete": 2, "lookup-first": 1},
    }  # fmt: skip


def test_it_gives_an_entry_without_traces_empty_fields(db, registry, submitter):
    from tests.builders import outcomes, submit

    submit(submitter, outcomes("pass", task="regex-log"))
    boards_recompute()
    entry = _entry("terminal-bench-4.0.0", "H")
    assert (entry.trajectory, entry.violations) == ({}, {})


def test_it_keeps_an_entry_s_fields_on_another_harness_s_recompute(db, submitter):
    _agent(submitter)
    before = _entry()
    submit_tools(submitter, tool_runs(prefix="o"), harness="Other")
    boards_recompute(harness_ids=[Harness.objects.get(name="Other").pk])
    after = _entry()
    assert after.pk != before.pk
    assert (after.trajectory, after.violations) == (before.trajectory, before.violations)
    assert _entry(harness="Other").violations["checked"] == 5  # no conflict, one infra error


def test_it_aggregates_the_suites_on_overall(db, submitter):
    load(tool_suite(), tool_suite("more-bench"))
    submit_tools(submitter)
    more = [
        tool_run("m-1", "book", GOOD_BOOK, 1, model="m", suite="more-bench"),
        tool_run("m-2", "book", BAD_BOOK, 2, model="m", suite="more-bench"),
    ]
    submit_tools(submitter, more)
    boards_recompute()
    overall = _entry("overall").trajectory["exact_args"]
    # tool-bench: r-1, r-2, r-4 pass, r-3 fails; more-bench: m-1 passes, m-2 fails.
    low, high = stats.wilson_interval(4, 6)
    assert overall == {"value": 4 / 6, "low": low, "high": high, "n": 6}
    sums, counts = _hand_sums(["r-1", "r-2", "r-3", "r-4", "m-1", "m-2"], "tool_f1")
    assert _entry("overall").trajectory["tool_f1"] == figure_summary("mean", sums, counts)
    assert _entry("overall").violations["checked"] == 5 + 2
