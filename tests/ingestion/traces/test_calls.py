"""A trajectory's calls (ingestion/traces/calls.py), and the failed-call rule."""

from __future__ import annotations

from ingestion.traces import Call, trajectory_calls


def _assistant(*calls: dict) -> dict:
    return {"role": "assistant", "text": None, "tool_calls": list(calls)}


def _tool(text: str | None) -> dict:
    return {"role": "tool", "text": text}


def test_it_numbers_calls_across_turns_and_keeps_each_calls_turn():
    turns = [
        {"role": "user", "text": "Book it."},
        _assistant({"tool": "search", "arguments": {"q": "x"}}, {"tool": "think", "arguments": {}}),
        _tool("2 results"),
        _tool("ok"),
        _assistant({"tool": "book", "arguments": {"id": 1}}),
        _tool("booked"),
    ]
    assert trajectory_calls(turns) == [
        Call(0, 1, "search", {"q": "x"}, False),
        Call(1, 1, "think", {}, False),
        Call(2, 4, "book", {"id": 1}, False),
    ]


def test_it_takes_a_nonzero_exit_code_as_failed_and_zero_or_null_as_not():
    turns = [
        _assistant(
            {"tool": "bash", "arguments": {}, "exit_code": 1},
            {"tool": "bash", "arguments": {}, "exit_code": 0},
            {"tool": "bash", "arguments": {}, "exit_code": None},
            {"tool": "bash", "arguments": {}, "exit_code": -9},
            {"tool": "bash", "arguments": {}, "exit_code": True},  # a bool is no exit code
        )
    ]
    assert [c.failed for c in trajectory_calls(turns)] == [True, False, False, True, False]


def test_it_takes_an_answer_starting_with_error_as_failed_the_kth_answering_the_kth_call():
    turns = [
        _assistant(
            {"tool": "cancel", "arguments": {}},
            {"tool": "cancel", "arguments": {}},
            {"tool": "cancel", "arguments": {}},
        ),
        _tool("Done."),
        _tool("  \nError: reservation not found"),
        _tool("The Error was yours"),  # does not start with it
    ]
    assert [c.failed for c in trajectory_calls(turns)] == [False, True, False]


def test_it_does_not_take_a_call_without_an_answer_as_failed():
    turns = [
        _assistant({"tool": "a", "arguments": {}}, {"tool": "b", "arguments": {}}),
        _tool("Error: only the first call was answered"),
        _assistant({"tool": "c", "arguments": {}}),
    ]
    assert [(c.tool, c.failed) for c in trajectory_calls(turns)] == [
        ("a", True),
        ("b", False),
        ("c", False),
    ]


def test_it_reads_junk_without_failing():
    turns = [
        "not a turn",
        None,
        {"role": "assistant"},
        {"tool_calls": "nope"},
        _assistant("junk", {"arguments": {}}, {"tool": "a", "arguments": ["x"]}, {"tool": "b"}),
        _tool("fine"),
        _tool("fine"),
        _tool("Error: the third call, a"),
        {"role": "tool"},
    ]
    assert trajectory_calls(turns) == [Call(0, 4, "a", {}, True), Call(1, 4, "b", {}, False)]
    assert trajectory_calls([]) == []
    assert trajectory_calls("junk") == []  # type: ignore[arg-type]
