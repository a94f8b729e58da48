"""One run's calls scored against its task's reference calls.

Effective calls: the agent's calls minus calls of the spec's ignored tools (a `think`
is no act) minus failed calls (they changed nothing); the reference minus ignored
tools too. Every figure is computed on these, twice: over all calls (keys as named)
and over write calls only (keys prefixed `write_`: agent calls of a write tool,
reference calls marked `write`).

A call matches a reference call by name when the tools are equal, and with arguments
when, besides, every compared argument matches under the spec's rule for it
(`pairing.arguments_check`).

Figures:
* `tool_precision`, `tool_recall`, `tool_f1`: over tool names as multisets, |A∩R|/|A|
  and |A∩R|/|R|. With no calls, precision is 1.0 if the reference is empty too, else
  0.0; with an empty reference, recall is 1.0 (nothing was missed). F1 is 0 when both are.
* the match variants, pass (1.0) or fail (0.0), each by names (`_names`) and with
  arguments (`_args`): `exact` (same length, the i-th call matches the i-th reference
  call), `in_order` (the reference is a subsequence of the calls), `any_order` (each
  reference call has its own matching call), `same_calls` (a one-to-one matching
  between all calls and all reference calls), `no_extras` (each call has its own
  matching reference call).
* `argument_accuracy`: by the pairing rule (`pairing`); None when undefined.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from ingestion.traces.calls import Call
from ingestion.traces.figures import FIGURE_KEYS
from ingestion.traces.pairing import Checker, Pair, argument_accuracy, checker, pairs_find
from ingestion.traces.spec import ReferenceCall, TraceSpec

Predicate = Callable[[Call, ReferenceCall], bool]
AlignedStatus = Literal["matched", "arguments_differ", "missing", "extra", "failed", "ignored"]


@dataclass(frozen=True)
class Aligned:
    """One line of the displayed alignment: an agent call, or a missing reference call."""

    status: AlignedStatus
    reference: int | None  # index into the reference calls given
    position: int | None  # the agent call's Call.position; None for a missing one
    differing: tuple[str, ...] = ()


@dataclass(frozen=True)
class TrajectoryScore:
    """The figures (keys of `figures.FIGURE_KEYS`, in that order) and the counts they
    came from: failed and ignored calls are no figure, but a reader needs them."""

    figures: dict[str, float | None]
    calls: int  # every call the agent made
    reference_calls: int  # every reference call given
    failed_calls: int  # failed calls of tools not ignored
    ignored_calls: int  # calls of ignored tools
    alignment: tuple[Aligned, ...]


def trajectory_score(
    calls: list[Call], reference: tuple[ReferenceCall, ...], spec: TraceSpec
) -> TrajectoryScore:
    effective = [c for c in calls if c.tool not in spec.ignored_tools and not c.failed]
    ref_indices = [i for i, r in enumerate(reference) if r.tool not in spec.ignored_tools]
    ref_effective = [reference[i] for i in ref_indices]
    check = checker(spec)
    pairs = pairs_find(effective, ref_effective, spec, check)
    figures = _figures(effective, ref_effective, check, pairs, "")
    write_calls = [c for c in effective if spec.is_write(c.tool)]
    write_refs = [r for r in ref_effective if r.write]
    write_pairs = pairs_find(write_calls, write_refs, spec, check)
    # Defined on a task whose reference writes nothing too: there, writing nothing is
    # the right path (τ-bench's refusals and transfers) and any write a wrong one.
    figures |= _figures(write_calls, write_refs, check, write_pairs, "write_")
    ignored = sum(c.tool in spec.ignored_tools for c in calls)
    return TrajectoryScore(
        figures={key: figures[key] for key in FIGURE_KEYS},  # in the table's order
        calls=len(calls),
        reference_calls=len(reference),
        failed_calls=sum(c.failed and c.tool not in spec.ignored_tools for c in calls),
        ignored_calls=ignored,
        alignment=_alignment(calls, effective, ref_indices, pairs, spec),
    )


def _figures(
    calls: Sequence[Call],
    reference: Sequence[ReferenceCall],
    check: Checker,
    pairs: Sequence[Pair],
    prefix: str,
) -> dict[str, float | None]:
    common = _common_names(calls, reference)
    figures: dict[str, float | None] = dict(_selection(common, len(calls), len(reference)))

    def with_arguments(call: Call, ref: ReferenceCall) -> bool:
        return call.tool == ref.tool and check(call, ref).all_match

    by_name = _name_variants(calls, reference, common)
    by_arguments = _variants(calls, reference, with_arguments)
    for suffix, variants in (("names", by_name), ("args", by_arguments)):
        for variant, passed in variants.items():
            figures[f"{variant}_{suffix}"] = 1.0 if passed else 0.0
    figures["argument_accuracy"] = argument_accuracy(pairs)
    return {prefix + key: value for key, value in figures.items()}


def _common_names(calls: Sequence[Call], reference: Sequence[ReferenceCall]) -> int:
    """How many tool names calls and reference share, counted as multisets: also the
    size of a maximum matching by name (each tool's calls can take any of its reference
    calls, so the matching is the sum over tools of the smaller count)."""
    remaining: dict[str, int] = {}
    for ref in reference:
        remaining[ref.tool] = remaining.get(ref.tool, 0) + 1
    common = 0
    for call in calls:
        if remaining.get(call.tool, 0) > 0:
            remaining[call.tool] -= 1
            common += 1
    return common


def _selection(common: int, calls: int, reference: int) -> dict[str, float]:
    """Precision, recall and F1 over tool names as multisets."""
    # No calls: perfect precision only when nothing was expected either.
    precision = common / calls if calls else float(not reference)
    recall = common / reference if reference else 1.0
    total = precision + recall
    f1 = 2 * precision * recall / total if total else 0.0
    return {"tool_precision": precision, "tool_recall": recall, "tool_f1": f1}


def _name_variants(
    calls: Sequence[Call], reference: Sequence[ReferenceCall], matched: int
) -> dict[str, bool]:
    """`_variants` by tool name, with the matching's size given (`_common_names`)."""
    tools = [call.tool for call in calls]
    wanted = [ref.tool for ref in reference]
    return {
        "exact": tools == wanted,
        "in_order": _is_subsequence(wanted, tools),
        "any_order": matched == len(reference),
        "same_calls": matched == len(reference) == len(calls),
        "no_extras": matched == len(calls),
    }


def _is_subsequence(wanted: list[str], tools: list[str]) -> bool:
    # The earliest match each time, as _in_order takes it.
    found = iter(tools)
    return all(any(tool == name for tool in found) for name in wanted)


def _variants(
    calls: Sequence[Call], reference: Sequence[ReferenceCall], predicate: Predicate
) -> dict[str, bool]:
    adjacency = _adjacency(calls, reference, predicate)
    matched = maximum_matching(adjacency)
    exact = len(calls) == len(reference) and all(i in adjacency[i] for i in range(len(calls)))
    return {
        "exact": exact,
        "in_order": _in_order(len(calls), adjacency),
        "any_order": matched == len(reference),
        "same_calls": matched == len(reference) == len(calls),
        "no_extras": matched == len(calls),
    }


def _adjacency(
    calls: Sequence[Call], reference: Sequence[ReferenceCall], predicate: Predicate
) -> list[set[int]]:
    """For each reference call, the indices of the calls that match it."""
    by_tool: dict[str, list[int]] = {}
    for index, call in enumerate(calls):
        by_tool.setdefault(call.tool, []).append(index)
    return [{i for i in by_tool.get(ref.tool, []) if predicate(calls[i], ref)} for ref in reference]


def _in_order(call_count: int, adjacency: list[set[int]]) -> bool:
    """Whether the reference is a subsequence of the calls. Taking, for each reference
    call in turn, the earliest matching call after the previous one is exact for any
    match predicate: if any embedding exists, moving its first pick to the earliest
    match leaves every later call still free for the rest, and so on by induction."""
    next_ref = 0
    for index in range(call_count):
        if next_ref < len(adjacency) and index in adjacency[next_ref]:
            next_ref += 1
    return next_ref == len(adjacency)


def maximum_matching(adjacency: list[set[int]]) -> int:
    """The size of a maximum matching of the bipartite graph (left node i may take any
    right node in adjacency[i]), by Kuhn's augmenting paths. Greedy first-fit is not
    enough: a reference call can take the one call another reference call needed."""
    owner: dict[int, int] = {}  # right node -> the left node holding it
    neighbours = [sorted(rights) for rights in adjacency]
    unmatched = []
    for left, rights in enumerate(neighbours):  # a first-fit start: fewer, shorter searches
        free = next((right for right in rights if right not in owner), None)
        if free is None:
            unmatched.append(left)
        else:
            owner[free] = left
    return len(owner) + sum(_augment(root, neighbours, owner) for root in unmatched)


def _augment(root: int, neighbours: list[list[int]], owner: dict[int, int]) -> bool:
    """One augmenting path from `root`, searched depth first without recursion (paths
    may be hundreds of nodes long)."""
    visited: set[int] = set()
    stack = [(root, iter(neighbours[root]))]
    path: list[int] = []  # the right node taken at each level but the last
    while stack:
        _, edges = stack[-1]
        for right in edges:
            if right in visited:
                continue
            visited.add(right)
            if right not in owner:
                for (left, _), taken in zip(stack, [*path, right], strict=True):
                    owner[taken] = left
                return True
            path.append(right)
            stack.append((owner[right], iter(neighbours[owner[right]])))
            break
        else:
            stack.pop()
            if path:
                path.pop()
    return False


def _alignment(
    calls: Sequence[Call],
    effective: Sequence[Call],
    ref_indices: Sequence[int],
    pairs: Sequence[Pair],
    spec: TraceSpec,
) -> tuple[Aligned, ...]:
    """The agent's calls in order, each missing reference call inserted after the call
    paired with the reference call before it (or first)."""
    paired = {effective[p.call].position: p for p in pairs}
    missing_after: dict[int, list[int]] = {}  # anchor position (-1: first) -> references
    anchor = -1
    by_reference = {p.reference: p for p in pairs}
    for ref_index in range(len(ref_indices)):
        pair = by_reference.get(ref_index)
        if pair is None:
            missing_after.setdefault(anchor, []).append(ref_indices[ref_index])
        else:
            anchor = effective[pair.call].position
    lines = [Aligned("missing", ref, None) for ref in missing_after.get(-1, [])]
    for call in calls:
        lines.append(_aligned_call(call, paired.get(call.position), ref_indices, spec))
        lines.extend(Aligned("missing", ref, None) for ref in missing_after.get(call.position, []))
    return tuple(lines)


def _aligned_call(
    call: Call, pair: Pair | None, ref_indices: Sequence[int], spec: TraceSpec
) -> Aligned:
    if call.tool in spec.ignored_tools:
        return Aligned("ignored", None, call.position)
    if call.failed:
        return Aligned("failed", None, call.position)
    if pair is None:
        return Aligned("extra", None, call.position)
    status: AlignedStatus = "matched" if pair.check.all_match else "arguments_differ"
    return Aligned(status, ref_indices[pair.reference], call.position, pair.check.differing)
