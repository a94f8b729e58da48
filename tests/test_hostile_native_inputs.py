"""Hostile values in native results are refused whole, each by a named error at the
native file, the record and the field, before any bundle is written: Harbor trials,
τ-bench items, τ²-bench simulations and Claude Code lines meet every rule a hand-made
bundle meets (bounds, types, id lengths, real and ordered dates)."""

from __future__ import annotations

import json

import pytest

from ingestion.bundles import BundleRejected
from ingestion.bundles.fields import UNDERFLOW_MESSAGE as TINY
from tests.ingestion.importers.builders import (
    harbor,
    job_folder,
    read_back,
    tau,
    tau_result,
    trial_result,
    write_tau,
)
from tests.ingestion.importers.tau2_builders import (
    tau2,
    tau2_results,
    tau2_simulation,
    write_tau2,
)
from tests.ingestion.importers.transcripts.builders import Transcript, text
from tests.ingestion.importers.transcripts.builders import convert as claude_code

pytestmark = pytest.mark.pure

LONG_ID = "7f3c9a2e-" + "b" * 391  # 400 characters
SURROGATE = "is not valid JSON (an unpaired surrogate escape: not Unicode text)"


def refusal(convert, out) -> list[tuple[str, int | None, str, str]]:
    """(file, line, field, message) of each error; nothing was written."""
    with pytest.raises(BundleRejected) as info:
        convert()
    assert not out.exists()
    return [(e.file, e.line, e.field, e.message) for e in info.value.errors]


def named(errors, file, line, field, message) -> bool:
    return any(e[:3] == (file, line, field) and message in e[3] for e in errors)


# ------------------------------------------------------------------------ Harbor


def _reward(value):
    def set_reward(trial):
        trial["verifier_result"]["rewards"]["reward"] = value

    return set_reward


def _reversed_times(trial):
    for times in (trial, trial["agent_execution"]):
        times["started_at"], times["finished_at"] = times["finished_at"], times["started_at"]


def _times(value):
    def set_times(trial):
        trial["agent_execution"]["started_at"] = trial["started_at"] = value

    return set_times


HARBOR = {
    "reward 1e308": (_reward(1e308), "verifier_result.rewards.reward", "must be a number ≤ 1"),
    "reward -1": (_reward(-1), "verifier_result.rewards.reward", "must be a number ≥ 0"),
    "id of 400 characters": (
        lambda trial: trial.update(id=LONG_ID), "id", "must be at most 300 characters"
    ),
    "integer id": (lambda trial: trial.update(id=12345), "id", "must be a string"),
    "started_at not a date": (
        _times("last tuesday"), "agent_execution.started_at", "must be an ISO 8601 date-time"
    ),
    "started_at in year 1": (
        _times("0001-01-01T00:00:00+05:00"), "agent_execution.started_at",
        "must be between 2000-01-01 and 2100-01-01",
    ),
    "finished before started": (
        _reversed_times, "agent_execution.finished_at",
        "is before agent_execution.started_at",
    ),
    "cost 1e308": (
        lambda trial: trial["agent_result"].update(cost_usd=1e308),
        "agent_result.cost_usd", "must be a number ≤ 1000000",
    ),
    "tokens past the bound": (
        lambda trial: trial["agent_result"].update(n_input_tokens=10**15),
        "agent_result.n_input_tokens", "must be an integer ≤ 1000000000000",
    ),
    "cost -1": (
        lambda trial: trial["agent_result"].update(cost_usd=-1), "agent_result.cost_usd",
        "must be a number ≥ 0",
    ),
    "verifier_result a number": (
        lambda trial: trial.update(verifier_result=1), "verifier_result",
        "must be an object or null, not a number",
    ),
    "agent_result a list": (
        lambda trial: trial.update(agent_result=[1]), "agent_result",
        "must be an object or null, not a list",
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(HARBOR))
def test_it_refuses_each_hostile_harbor_value_at_its_result_and_field(case, tmp_path):
    mutate, field, message = HARBOR[case]
    trial = trial_result("fix-git", "fix-git__Ab3dE7x")
    mutate(trial)
    job = job_folder(
        tmp_path,
        {"fix-git__Ab3dE7x": trial, "regex-log__Qz8": trial_result("regex-log", "regex-log__Qz8")},
    )
    out = tmp_path / "out.tar.gz"

    errors = refusal(lambda: harbor(job, out), out)

    assert named(errors, "job/fix-git__Ab3dE7x/result.json", None, field, message), errors


def test_it_names_a_harbor_result_that_is_a_list_instead_of_dropping_the_trial(tmp_path):
    job = job_folder(tmp_path, {"fix-git__Ab3dE7x": trial_result(), "regex-log__Qz8": {}})
    (job / "regex-log__Qz8" / "result.json").write_text(json.dumps([trial_result("regex-log")]))
    out = tmp_path / "out.tar.gz"

    errors = refusal(lambda: harbor(job, out), out)

    assert errors == [
        ("job/regex-log__Qz8/result.json", None, "", "must be a JSON object, not a list")
    ]


def test_it_names_a_harbor_result_holding_a_lone_surrogate(tmp_path):
    job = job_folder(tmp_path, {"fix-git__Ab3dE7x": trial_result()})
    result = job / "fix-git__Ab3dE7x" / "result.json"
    result.write_text(result.read_text().replace("terminus-2", "\\ud83d terminus-2"))
    out = tmp_path / "out.tar.gz"

    errors = refusal(lambda: harbor(job, out), out)

    assert errors == [("job/fix-git__Ab3dE7x/result.json", None, "", SURROGATE)]


def test_it_keeps_two_long_harbor_ids_apart_rather_than_cutting_them(tmp_path):
    # Cut to the column, both would be one trial: each is refused by name instead.
    trials = {
        name: trial_result("fix-git", name, trial_id=LONG_ID[:-1] + name[-1])
        for name in ("fix-git__1", "fix-git__2")
    }
    job = job_folder(tmp_path, trials)
    out = tmp_path / "out.tar.gz"

    errors = refusal(lambda: harbor(job, out), out)

    assert {(e[0], e[2]) for e in errors} == {
        ("job/fix-git__1/result.json", "id"),
        ("job/fix-git__2/result.json", "id"),
    }


def test_it_still_converts_an_ordinary_harbor_job(tmp_path):
    job = job_folder(tmp_path, {"fix-git__Ab3dE7x": trial_result(reward=0.0)})
    harbor(job, tmp_path / "out.tar.gz")

    [run] = read_back(tmp_path / "out.tar.gz")[1]
    assert (run.outcome, run.extra["harbor"]["reward"]) == ("fail", 0.0)


# ----------------------------------------------------------------------- τ-bench


def _content(value):
    def set_content(item):
        item["traj"][1]["content"] = value

    return set_content


TAU = {
    "reward 1e308": (lambda item: item.update(reward=1e308), "reward", "must be a number ≤ 1"),
    "reward -1": (lambda item: item.update(reward=-1), "reward", "must be a number ≥ 0"),
    "info missing": (lambda item: item.pop("info"), "info", "must be an object"),
    "user_cost -1": (
        lambda item: item["info"].update(user_cost=-1), "info.user_cost", "must be a number ≥ 0"
    ),
    "user_cost 1e308": (
        lambda item: item["info"].update(user_cost=1e308), "info.user_cost",
        "must be a number ≤ 1000000",
    ),
    "content an integer": (
        _content(5), "traj[1].content", "must be a string, a list of content parts or null"
    ),
    "tool name of 300 characters": (
        lambda item: item["traj"][2]["tool_calls"][0]["function"].update(name="t" * 300),
        "trajectory[1].tool_calls[0].tool", "must be at most 200 characters",
    ),
    "task_id a list": (
        lambda item: item.update(task_id=[1]), "task_id", "must be a task number or name"
    ),
    "trial 1e308": (lambda item: item.update(trial=1e308), "trial", "must be an integer ≥ 0"),
    "trial past the bound": (
        lambda item: item.update(trial=2**40), "trial", "must be an integer ≤ 2147483647"
    ),
    "info a list": (lambda item: item.update(info=[1]), "info", "must be an object"),
    "message an integer": (
        lambda item: item["traj"].__setitem__(1, 5), "traj[1]",
        "must be a message (an object), not a number",
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(TAU))
def test_it_refuses_each_hostile_tau_bench_value_at_its_item_and_field(case, tmp_path):
    mutate, field, message = TAU[case]
    item = tau_result(1)
    mutate(item)
    path = write_tau(tmp_path, [tau_result(0), item])
    out = tmp_path / "out.tar.gz"

    errors = refusal(lambda: tau(path, out), out)

    assert named(errors, path.name, 2, field, message), errors


def test_it_names_a_tau_bench_item_that_is_a_list(tmp_path):
    path = write_tau(tmp_path, [tau_result(0), [tau_result(1)]])
    out = tmp_path / "out.tar.gz"

    errors = refusal(lambda: tau(path, out), out)

    assert errors == [(path.name, 2, "", "must be an object, not a list")]


def test_it_names_a_tau_bench_file_holding_a_lone_surrogate(tmp_path):
    # The incremental parser would read it as "?" without a word.
    path = write_tau(tmp_path, [tau_result(0), tau_result(1)])
    path.write_text(path.read_text().replace("Hi, I want", "\\ud83d Hi, I want", 1))
    out = tmp_path / "out.tar.gz"

    errors = refusal(lambda: tau(path, out), out)

    assert errors == [(path.name, None, "", SURROGATE)]


def test_it_still_converts_tau_bench_text_with_a_pair_or_an_escaped_backslash(tmp_path):
    path = write_tau(tmp_path, [tau_result(0)])
    escaped = "\\ud83d\\ude00 Hi, \\\\ud83d I want"  # a pair; "\\ud83d" as text
    path.write_text(path.read_text().replace("Hi, I want", escaped, 1))

    tau(path, tmp_path / "out.tar.gz")

    [run] = read_back(tmp_path / "out.tar.gz")[1]
    assert run.trajectory[0]["text"].startswith("\U0001f600 Hi, \\ud83d I want")


# ---------------------------------------------------------------------- τ²-bench


def _sim_reward(value):
    def set_reward(simulation):
        simulation["reward_info"]["reward"] = value

    return set_reward


TAU2 = {
    "reward 1e308": (_sim_reward(1e308), "reward_info.reward", "must be a number ≤ 1"),
    "reward -1": (_sim_reward(-1), "reward_info.reward", "must be a number ≥ 0"),
    "user_cost -1": (lambda s: s.update(user_cost=-1), "user_cost", "must be a number ≥ 0"),
    "content an integer": (
        lambda s: s["messages"][1].update(content=5), "messages[1].content",
        "must be a string, a list of content parts or null",
    ),
    "termination_reason unknown": (
        lambda s: s.update(termination_reason="gremlins"), "termination_reason",
        "must be one of agent_error, agent_stop",
    ),
    "duration 1e308": (
        lambda s: s.update(duration=1e308), "duration", "must be a number ≤ 864000"
    ),
    "start_time before 2000": (
        lambda s: s.update(start_time="1999-12-31T23:59:59"), "start_time",
        "must be between 2000-01-01 and 2100-01-01",
    ),
    "end_time before start_time": (
        lambda s: s.update(end_time="2025-10-31T07:00:00"), "end_time", "is before start_time"
    ),
    "agent_cost 1e308": (
        lambda s: s.update(agent_cost=1e308), "agent_cost", "must be a number ≤ 1000000"
    ),
    "id of 400 characters": (lambda s: s.update(id=LONG_ID), "id", "is longer than"),
    "integer id": (lambda s: s.update(id=12345), "id", "must be the simulation's id"),
    "task_id a list": (lambda s: s.update(task_id=[7]), "task_id", "must be a task id"),
    "start_time not a date": (
        lambda s: s.update(start_time="last tuesday"), "start_time",
        "must be an ISO 8601 date-time",
    ),
    "trial 1e308": (lambda s: s.update(trial=1e308), "trial", "must be an integer ≥ 0"),
    "message an integer": (
        lambda s: s["messages"].__setitem__(1, 5), "messages[1]",
        "must be a message (an object), not a number",
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(TAU2))
def test_it_refuses_each_hostile_tau2_bench_value_at_its_simulation_and_field(case, tmp_path):
    mutate, field, message = TAU2[case]
    simulation = tau2_simulation("fix-git", 1, sim_id="sim-b")
    mutate(simulation)
    results = tau2_results([tau2_simulation("fix-git", 0, sim_id="sim-a"), simulation])
    path = write_tau2(tmp_path, results, name="results.json")
    out = tmp_path / "out.tar.gz"

    errors = refusal(lambda: tau2(path, out), out)

    assert named(errors, "results.json", None, f"simulations[1].{field}", message), errors


@pytest.mark.parametrize(
    ("results", "error"),
    [
        ([tau2_simulation("fix-git")], ("", "must be a JSON object of τ²-bench results, not a list")),
        (tau2_results([tau2_simulation("fix-git"), [1]]), ("simulations[1]", "must be an object, not a list")),
    ],
    ids=["results-a-list", "simulation-a-list"],
)  # fmt: skip
def test_it_names_tau2_bench_results_of_the_wrong_shape(results, error, tmp_path):
    path = write_tau2(tmp_path, results, name="results.json")
    out = tmp_path / "out.tar.gz"

    errors = refusal(lambda: tau2(path, out), out)

    assert [(e[2], e[3]) for e in errors] == [error]


def test_it_names_a_tau2_bench_file_holding_a_lone_surrogate(tmp_path):
    path = write_tau2(tmp_path, tau2_results([tau2_simulation("fix-git")]), name="results.json")
    path.write_text(path.read_text().replace("I'd like", "\\udc00 I'd like", 1))
    out = tmp_path / "out.tar.gz"

    errors = refusal(lambda: tau2(path, out), out)

    assert errors == [("results.json", None, "", SURROGATE)]


# ------------------------------------------------------------------- Claude Code


def _transcript(session: str = "0ab3352c-0614-4d2c-942c-0051f270eaf3") -> Transcript:
    transcript = Transcript(session)
    transcript.prompt("Fix the flaky login test, please.")
    transcript.say(text("I will look at the test first."))
    return transcript


def _stamped(value):
    def stamp(transcript):
        transcript.lines[1]["timestamp"] = value

    return stamp


CLAUDE_CODE = {
    "sessionId of 400 characters": (
        lambda t: [line.update(sessionId=LONG_ID) for line in t.lines], 1, "sessionId",
        "must be at most 200 characters (got 400)",
    ),
    "sessionId of 201 characters": (
        lambda t: [line.update(sessionId="s" * 201) for line in t.lines], 1, "sessionId",
        "must be at most 200 characters (got 201)",
    ),
    "timestamp not a date": (
        _stamped("half past nine"), 2, "timestamp", "must be an ISO 8601 date-time"
    ),
    "timestamp a number": (_stamped(1_746_066_600), 2, "timestamp", "must be an ISO 8601"),
    "timestamp in year 9999": (
        _stamped("9999-12-31T23:59:59-05:00"), 2, "timestamp",
        "must be between 2000-01-01 and 2100-01-01",
    ),
    "sessionId an integer": (
        lambda t: [line.update(sessionId=12345) for line in t.lines], 1, "sessionId",
        "must be a non-empty string",
    ),
    "content an integer": (
        lambda t: t.lines[1]["message"].update(content=5), 2, "message.content",
        "must be a string or a list",
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(CLAUDE_CODE))
def test_it_refuses_each_hostile_claude_code_value_at_its_line_and_field(case, tmp_path):
    mutate, line, field, message = CLAUDE_CODE[case]
    transcript = _transcript()
    mutate(transcript)
    path = transcript.write(tmp_path / "project", "session.jsonl")
    out = tmp_path / "out.tar.gz"

    errors = refusal(lambda: claude_code(path, out), out)

    assert named(errors, "session.jsonl", line, field, message), errors


def test_it_names_the_file_and_line_of_a_claude_code_lone_surrogate(tmp_path):
    path = _transcript().write(tmp_path / "project", "session.jsonl")
    path.write_bytes(path.read_bytes().replace(b"flaky", b"\\ud83d flaky"))
    out = tmp_path / "out.tar.gz"

    errors = refusal(lambda: claude_code(path, out), out)

    assert errors == [
        (
            "session.jsonl",
            1,
            "",
            "is not valid JSON (an unpaired surrogate escape: not Unicode text)",
        )
    ]


def test_it_names_a_claude_code_line_that_is_a_list(tmp_path):
    path = _transcript().write(tmp_path / "project", "session.jsonl")
    path.write_text(path.read_text() + "[1, 2]\n")
    out = tmp_path / "out.tar.gz"

    errors = refusal(lambda: claude_code(path, out), out)

    assert errors == [("session.jsonl", 3, "", "must be a JSON object, not a list")]


def test_it_still_converts_a_session_with_a_paired_surrogate_escape(tmp_path):
    path = _transcript().write(tmp_path / "project", "session.jsonl")
    path.write_bytes(path.read_bytes().replace(b"flaky", b"\\ud83d\\ude00 flaky"))

    _, _, [session] = claude_code(path, tmp_path / "out.tar.gz")

    assert "\U0001f600 flaky" in session["turns"][0]["text"]


# ------------------------------------------------------- numbers read as 0 when streamed


def test_it_refuses_a_tau_bench_number_the_parser_would_read_as_zero(tmp_path):
    item = tau_result(1)
    item["info"]["user_cost"] = 0.125
    path = write_tau(tmp_path, [tau_result(0), item])
    path.write_text(path.read_text().replace("0.125", "1e-400", 1))
    out = tmp_path / "out.tar.gz"

    errors = refusal(lambda: tau(path, out), out)

    assert errors == [(path.name, None, "", f"item 2 is not valid JSON: the number 1E-400 {TINY}")]


def test_it_refuses_a_tau2_bench_number_the_parser_would_read_as_zero(tmp_path):
    results = tau2_results([tau2_simulation("fix-git", 0, sim_id="sim-a")])
    results["simulations"][0]["reward_info"]["reward"] = 0.125
    path = write_tau2(tmp_path, results, name="results.json")
    path.write_text(path.read_text().replace("0.125", "0." + "0" * 400 + "1", 1))
    out = tmp_path / "out.tar.gz"

    errors = refusal(lambda: tau2(path, out), out)

    [(file, line, field, message)] = errors
    assert (file, line, field) == ("results.json", None, "")
    assert message.startswith("simulation 0 is not valid JSON: the number ") and TINY in message


def test_it_still_converts_tau_bench_text_that_only_looks_like_a_tiny_number(tmp_path):
    # Such text sends the file down the exact-number path: its floats must not change.
    (tmp_path / "plain").mkdir()
    (tmp_path / "looks").mkdir()
    plain = write_tau(tmp_path / "plain", [tau_result(0)])
    looks = write_tau(tmp_path / "looks", [tau_result(0)])
    looks.write_text(looks.read_text().replace("Hi, I want", "Hi, 1e-400 I want", 1))

    tau(plain, tmp_path / "plain.tar.gz")
    tau(looks, tmp_path / "looks.tar.gz")

    [before] = read_back(tmp_path / "plain.tar.gz")[1]
    [after] = read_back(tmp_path / "looks.tar.gz")[1]
    assert after.trajectory[0]["text"].startswith("Hi, 1e-400 I want")
    assert (after.outcome, after.cost_usd, after.tokens) == (
        before.outcome, before.cost_usd, before.tokens,
    )  # fmt: skip
