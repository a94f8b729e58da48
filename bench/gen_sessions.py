"""Synthetic sessions.jsonl records for timing the signal boards.

    .venv/bin/python bench/gen_sessions.py [N]

generates N sessions (default 100,000) of about ten turns, then times score_sessions
(closed-form NIR included) and compares the closed-form NIR with the 10,000-shuffle
Monte Carlo on the same data. The data only has to look like real bundles (a mix of
labelled and unlabelled user turns, failing and recovering shell calls, the odd
hallucinated tool call); its numbers mean nothing.
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Iterator
from pathlib import Path

MODELS = ["frontier-large", "frontier-mini", "open-weights-70b", "open-weights-8b"]
SCENARIOS = ["software_development", "workflow_automation", "general_assistant", None]
TOOLSET = [
    {
        "name": "bash",
        "kind": "shell",
        "parameters": {
            "type": "object",
            "properties": {"command": {"type": "string"}},
            "required": ["command"],
        },
    },
    {
        "name": "read_file",
        "parameters": {
            "type": "object",
            "properties": {"path": {"type": "string"}},
            "required": ["path"],
        },
    },
    "write_file",
]
COMMANDS = ["pytest -q", "make build", "git status", "CI=1 npm test", "sudo apt-get -y"]
USER_TEXTS = [
    ("Continue.", None),
    ("Great, thanks!", "praise"),
    ("This is still broken.", "complaint"),
    ("No, use the other config file.", "correction"),
    ("Now add a flag for verbose output.", None),
]


def generate_sessions(n: int, seed: int = 0) -> Iterator[dict]:
    """Yield n session dicts shaped like lines of sessions.jsonl, reproducibly."""
    rng = random.Random(seed)
    for index in range(n):
        yield _session(rng, index)


def _session(rng: random.Random, index: int) -> dict:
    model = rng.choice(MODELS)
    turns: list[dict] = [{"role": "user", "text": "Please set up the project."}]
    for _ in range(rng.randint(3, 6)):
        turns.append(_assistant_turn(rng))
        turns.append(_user_turn(rng))
    return {
        "session_id": f"bench-{index:07d}",
        "model": model,
        "scenario": rng.choice(SCENARIOS),
        "confirmation": rng.choice(["yes", "yes", "no", None]),
        "toolset": None if rng.random() < 0.1 else TOOLSET,
        "turns": turns,
    }


def _assistant_turn(rng: random.Random) -> dict:
    calls = []
    for _ in range(rng.randint(0, 3)):
        if rng.random() < 0.6:
            exit_code = rng.choice([0, 0, 0, 1, 2, None])
            command = rng.choice(COMMANDS)
            calls.append(_call("bash", {"command": command}, exit_code))
        elif rng.random() < 0.95:
            calls.append(_call("read_file", {"path": "src/app.py"}, None))
        else:
            calls.append(_call("apply_patch", {"diff": "..."}, None))
    return {"role": "assistant", "text": "Done: ran the commands.", "tool_calls": calls}


def _call(tool: str, arguments: dict, exit_code: int | None) -> dict:
    return {"tool": tool, "arguments": arguments, "exit_code": exit_code}


def _user_turn(rng: random.Random) -> dict:
    text, label = rng.choice(USER_TEXTS)
    turn = {"role": "user", "text": text}
    # A third of the turns come unlabelled, so the extractor's cost is in the timing.
    if rng.random() < 2 / 3:
        turn["label"] = label
    return turn


def _bench(n: int) -> None:
    import numpy as np

    from leaderboard.methodology import nir
    from leaderboard.methodology.session_scores import score_sessions
    from leaderboard.methodology.sessions import session_confirmed

    sessions = list(generate_sessions(n, seed=1))
    turns = sum(len(s["turns"]) for s in sessions) / n
    print(f"{n} sessions, {turns:.1f} turns per session on average")
    start = time.perf_counter()
    score_sessions(sessions)
    print(f"score_sessions (closed-form NIR included): {time.perf_counter() - start:.2f} s")
    y = np.array([session_confirmed(s) for s in sessions], dtype=float)
    models = [s["model"] for s in sessions]
    strata = [s["scenario"] for s in sessions]
    closed = _best_of(3, lambda: nir.nir_closed_form_all(y, models, strata))
    monte_carlo = _best_of(1, lambda: nir.nir_monte_carlo_all(y, models, strata))
    print(f"NIR closed form, all models: {closed * 1e3:.1f} ms")
    print(f"NIR Monte Carlo, 10,000 shuffles: {monte_carlo:.2f} s")
    print(f"closed form is {monte_carlo / closed:,.0f}x faster")


def _best_of(repeats: int, function) -> float:
    timings = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        timings.append(time.perf_counter() - start)
    return min(timings)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    _bench(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000)
