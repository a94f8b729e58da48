"""Generated trajectories with reference calls, for the ingest bench's runs with traces.

`trace_registry()` is a registry document of one suite: Arena's own τ-bench airline
statement (ingestion/fixtures/tau-bench-airline-suite.json: write tools, argument rules
and the written rules, as bench/traces.py loads it) under a bench slug, with generated
tasks whose reference calls are an airline agent's (look-ups, then a booking, a
cancellation or a change). `trajectory()` is one run of such a task in the bundle
format's shape: a user's opening request, one assistant turn per tool call (now and then
two at once, which breaks "one call at a time"), each answered by a tool turn (about 6%
"Error: ..." answers, the failed-call rule, retried), the user's replies in between and
a closing message. Agents follow the reference, change an argument, skip a look-up
(breaking "look the reservation up first") or add calls, as real runs do: 4 calls a run
at the median (τ-bench's: 5), with look-ups the reference does without. τ-bench's runs
are some 16 KB, much of it the system prompt (the bundle format has no turn for it) and
long tool answers; these are some 2 KB (up to 5 KB) of JSON, so the bench weighs the
scoring rather than the bytes. No real data: every name and value is made up here.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

FIXTURE = Path(__file__).resolve().parent.parent / "ingestion" / "fixtures"
SUITE = ("bench-airline", "1.0")
TASKS = 50
_CITIES = ("JFK", "LAX", "ORD", "SFO", "SEA", "BOS", "MIA", "DEN", "ATL", "PHX")
_ASKS = (
    "Hi, I need to cancel my trip, the reservation is {r}. My user id is {u}.",
    "Hello! Could you add a checked bag to reservation {r}? I'm {u}.",
    "I want to book a one-way flight from {a} to {b} on May {d}. User id {u}.",
    "My flight was delayed and I'd like some compensation. I'm {u}, booking {r}.",
    "Can you tell me what is on my reservation {r}? My id is {u}.",
)
_REPLIES = (
    "Yes, please go ahead.", "That's right, thanks.", "Economy is fine.",
    "Use the credit card on file, please.", "No, that's all for now.",
    "Sure, the first option works for me.",
)  # fmt: skip


def trace_registry(tasks: int = TASKS, seed: int = 0) -> dict:
    """The bench suite with `tasks` tasks that have reference calls."""
    base = json.loads((FIXTURE / "tau-bench-airline-suite.json").read_text(encoding="utf-8"))
    rng = random.Random(seed)
    suite = {
        **base, "slug": SUITE[0], "version": SUITE[1], "name": "Bench airline (generated)",
        "tasks": [
            {"task_id": task_id(n), "category": "customer_service", "authors": ["bench.author"],
             "reference_calls": _reference(rng, n)}
            for n in range(tasks)
        ],
    }  # fmt: skip
    return {"format": "arena-registry/1", "suites": [suite]}


def task_id(n: int) -> str:
    return f"airline-{n:03d}"


def trace_task_keys(tasks: int = TASKS) -> list[tuple[str, str, str]]:
    return [(*SUITE, task_id(n)) for n in range(tasks)]


def _ids(n: int) -> dict:
    return {"u": f"user_{n:03d}_{n * 7919 % 1000:03d}", "r": f"R{n * 104729 % 999983:06d}"}


def _reference(rng: random.Random, n: int) -> list[dict]:
    ids, kind = _ids(n), n % len(_ASKS)
    user, reservation = {"user_id": ids["u"]}, {"reservation_id": ids["r"]}
    if kind == 0:
        return [_call("get_user_details", user), _call("get_reservation_details", reservation),
                _call("cancel_reservation", reservation)]  # fmt: skip
    if kind == 1:
        bags = {**reservation, "total_baggages": 2, "nonfree_baggages": 1,
                "payment_id": f"credit_card_{n:04d}"}  # fmt: skip
        return [_call("get_reservation_details", reservation),
                _call("update_reservation_baggages", bags)]  # fmt: skip
    if kind == 2:
        a, b = rng.sample(_CITIES, 2)
        search = {"origin": a, "destination": b, "date": f"2024-05-{n % 28 + 1:02d}"}
        booking = {
            **user, "origin": a, "destination": b, "flight_type": "one_way", "cabin": "economy",
            "flights": [{"flight_number": f"HAT{n:03d}", "date": search["date"]}],
            "passengers": [{"first_name": "Ana", "last_name": "Lee", "dob": "1990-04-02"}],
            "payment_methods": [{"payment_id": f"credit_card_{n:04d}", "amount": 120 + n}],
            "total_baggages": 1, "nonfree_baggages": 0, "insurance": "no",
        }  # fmt: skip
        return [_call("get_user_details", user), _call("search_direct_flight", search),
                _call("book_reservation", booking)]  # fmt: skip
    if kind == 3:
        return [_call("get_user_details", user), _call("get_reservation_details", reservation),
                _call("send_certificate", {**user, "amount": 50 + 50 * (n % 3)})]  # fmt: skip
    return [_call("get_reservation_details", reservation)]


def _call(tool: str, arguments: dict) -> dict:
    return {"tool": tool, "arguments": arguments}


def _answer(rng: random.Random, tool: str, arguments: dict) -> str:
    """A tool's answer: a JSON record of some 150-400 characters."""
    if tool == "get_user_details":
        return json.dumps({
            "name": {"first_name": "Ana", "last_name": "Lee"}, "membership": "gold",
            "payment_methods": {f"credit_card_{rng.randrange(10_000):04d}":
                                {"source": "credit_card", "brand": "visa", "last_four": "1234"}},
            "reservations": [f"R{rng.randrange(999_983):06d}" for _ in range(rng.randrange(1, 4))],
        })  # fmt: skip
    if tool == "get_reservation_details":
        return json.dumps({
            **arguments, "origin": rng.choice(_CITIES), "destination": rng.choice(_CITIES),
            "cabin": rng.choice(("basic_economy", "economy", "business")),
            "flights": [{"flight_number": f"HAT{rng.randrange(1000):03d}", "date": "2024-05-14",
                         "price": rng.randrange(80, 900)}],
            "passengers": [{"first_name": "Ana", "last_name": "Lee"}], "insurance": "no",
        })  # fmt: skip
    if tool.startswith("search"):
        return json.dumps([
            {"flight_number": f"HAT{rng.randrange(1000):03d}", "departure": "06:00:00",
             "arrival": "09:30:00", "prices": {"economy": rng.randrange(80, 400)}}
            for _ in range(rng.randrange(1, 4))
        ])  # fmt: skip
    return json.dumps({"status": "done", **{k: v for k, v in arguments.items() if k != "flights"}})


def trajectory(rng: random.Random, n: int, reference: list[dict], passed: bool) -> list[dict]:
    """One agent run of task `n` (its `reference` calls); a passing run follows the
    reference more often."""
    ids = _ids(n)
    a, b = rng.sample(_CITIES, 2)
    ask = _ASKS[n % len(_ASKS)].format(**ids, a=a, b=b, d=n % 28 + 1)
    turns: list[dict] = [{"role": "user", "text": ask}]
    for calls in _plan(rng, reference, follows=rng.random() < (0.8 if passed else 0.3)):
        turns.append({"role": "assistant", "text": rng.choice((None, "Let me check that.")),
                      "tool_calls": calls})  # fmt: skip
        for call in calls:
            failed = rng.random() < 0.06
            text = (
                "Error: " + rng.choice(("reservation not found", "invalid payment method"))
                if failed
                else _answer(rng, call["tool"], call["arguments"])
            )
            turns.append({"role": "tool", "text": text})
            if failed:  # retried, as agents do after an error
                turns.append({"role": "assistant", "text": "Retrying.", "tool_calls": [call]})
                turns.append(
                    {"role": "tool", "text": _answer(rng, call["tool"], call["arguments"])}
                )
        if rng.random() < 0.4:
            turns.append({"role": "user", "text": rng.choice(_REPLIES)})
    turns.append({"role": "assistant", "text": "Done. Is there anything else I can help with?"})
    return turns


def _plan(rng: random.Random, reference: list[dict], *, follows: bool) -> list[list[dict]]:
    """The calls of each assistant turn: the reference's, or a deviation from it."""
    calls = [dict(call, arguments=dict(call["arguments"])) for call in reference]
    if rng.random() < 0.3:  # think first (an ignored tool)
        calls.insert(0, _call("think", {"thought": "Check the policy before acting."}))
    if not follows:
        deviation = rng.randrange(4)
        if deviation == 0 and len(calls) > 1:  # skips the look-up
            calls.pop(1 if calls[0]["tool"] == "think" else 0)
        elif deviation == 1 and calls:  # a changed argument
            arguments = calls[-1]["arguments"]
            key = rng.choice(sorted(arguments)) if arguments else "note"
            arguments[key] = "other"
        elif deviation == 2:  # an extra look-up or calculation
            calls.insert(
                rng.randrange(len(calls) + 1), _call("calculate", {"expression": "120 * 2"})
            )
        elif calls:  # the last call left out
            calls.pop()
    for _ in range(rng.randrange(4)):  # look-ups the reference does without, as in τ-bench
        lookup = _call(
            "get_reservation_details", {"reservation_id": f"R{rng.randrange(999_983):06d}"}
        )
        calls.insert(rng.randrange(len(calls) + 1), lookup)
    turns = [[call] for call in calls]
    if len(turns) > 1 and rng.random() < 0.05:  # two calls in one turn
        turns[0:2] = [turns[0] + turns[1]]
    return turns
