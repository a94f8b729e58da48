"""Argument comparison of one call with one reference call, and the pairing rule that
argument accuracy and the displayed alignment share.

The pairing rule: reference calls are taken in order; each is paired with the
not-yet-paired agent call of the same tool with the most matching arguments (ties:
the earliest). A reference call left unpaired (the agent never made a call of that
tool, or every such call was taken) is recall's business, not argument accuracy's.

Argument accuracy is the matching arguments over the compared ones, summed over the
paired reference calls. An argument whose rule is `ignored` is not compared; with
extra_arguments "counted", each argument the paired call has and its reference call
lacks is one more compared argument, not matching.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ingestion.traces.calls import Call
from ingestion.traces.spec import ReferenceCall, TraceSpec


@dataclass(frozen=True)
class ArgumentCheck:
    matching: int  # compared arguments that match
    compared: int  # arguments compared (those whose rule is not `ignored`)
    differing: tuple[str, ...]  # the argument keys that do not match, reference's first

    @property
    def all_match(self) -> bool:
        return not self.differing


def arguments_check(call: Call, reference: ReferenceCall, spec: TraceSpec) -> ArgumentCheck:
    """A reference argument the call lacks is a mismatch. With extra_arguments
    "counted", an argument the call has and the reference lacks is one more compared
    argument, a mismatch; with "ignored" it is not looked at."""
    matching, compared, differing = 0, 0, []
    for key, expected in reference.arguments.items():
        rule = spec.rule_for(reference.tool, key)
        if not rule.compared:
            continue
        compared += 1
        if key in call.arguments and rule.matches(expected, call.arguments[key]):
            matching += 1
        else:
            differing.append(key)
    if spec.extra_arguments == "counted":
        for key in call.arguments:
            if key not in reference.arguments and spec.rule_for(reference.tool, key).compared:
                compared += 1
                differing.append(key)
    return ArgumentCheck(matching, compared, tuple(differing))


def matches_with_arguments(call: Call, reference: ReferenceCall, spec: TraceSpec) -> bool:
    return call.tool == reference.tool and arguments_check(call, reference, spec).all_match


Checker = Callable[[Call, ReferenceCall], ArgumentCheck]


def checker(spec: TraceSpec) -> Checker:
    """`arguments_check` under the spec, each (call, reference call) compared once: one
    run's figures, pairs and write-only figures ask about the same pairs again."""
    memo: dict[tuple[int, int], ArgumentCheck] = {}

    def check(call: Call, reference: ReferenceCall) -> ArgumentCheck:
        # By identity: the objects of one run's scoring, alive while it lasts.
        key = (id(call), id(reference))
        found = memo.get(key)
        if found is None:
            found = memo[key] = arguments_check(call, reference, spec)
        return found

    return check


@dataclass(frozen=True)
class Pair:
    reference: int  # index into the reference sequence given
    call: int  # index into the call sequence given
    check: ArgumentCheck


def pairs_find(
    calls: Sequence[Call],
    reference: Sequence[ReferenceCall],
    spec: TraceSpec,
    check_with: Checker | None = None,
) -> list[Pair]:
    """The pairing rule, over the sequences given (effective calls, effective reference)."""
    compare = check_with or (lambda call, ref: arguments_check(call, ref, spec))
    taken: set[int] = set()
    pairs = []
    for ref_index, ref in enumerate(reference):
        best: Pair | None = None
        for call_index, call in enumerate(calls):
            if call_index in taken or call.tool != ref.tool:
                continue
            check = compare(call, ref)
            # Strictly more only: on a tie the earlier call, already held, stays.
            if best is None or check.matching > best.check.matching:
                best = Pair(ref_index, call_index, check)
        if best is not None:
            taken.add(best.call)
            pairs.append(best)
    return pairs


def argument_accuracy(pairs: Sequence[Pair]) -> float | None:
    """Matching arguments over compared ones, across the paired reference calls; None
    when nothing was paired or no paired reference call has a compared argument."""
    compared = sum(pair.check.compared for pair in pairs)
    if compared == 0:
        return None
    return sum(pair.check.matching for pair in pairs) / compared
