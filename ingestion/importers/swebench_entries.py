"""The entries of a SWE-bench results file (see `swebench`), and the one converted.

`entries_of` finds every entry of the file's shape, each with where it sits (a JSON
path, for errors) and what it publishes; `entry_pick` chooses the one the `entry`
parameter names, or refuses, listing the entries.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from ingestion.bundles import BundleRejected, rejected
from ingestion.bundles.errors import BundleError
from ingestion.importers.common import cut, kind

# The figures an entry of the leaderboard file publishes beside its instances.
PUBLISHED = ("resolved", "cost", "instance_cost", "instance_calls")
_LISTED = 40  # entries named at most in an error
_LIST_KEYS = frozenset({
    "resolved", "resolved_ids", "unresolved", "unresolved_ids", "error", "error_ids",
    "no_generation", "empty_patch_ids", "no_logs", "incomplete_ids", "generated",
    "with_logs", "applied", "completed_ids", "submitted_ids", "install_fail",
    "reset_failed", "no_apply", "test_errored", "test_timeout",
})  # fmt: skip


@dataclass
class Entry:
    """One entry: per-instance details (`instances`) or id lists (`lists`), or neither
    (an entry publishing only its totals)."""

    name: str
    where: str  # its JSON path in the file
    board: str = ""
    folder: str = ""
    instances: dict[str, Any] | None = None
    lists: dict[str, list[Any]] | None = None
    counts: dict[str, Any] = field(default_factory=dict)
    published: dict[str, Any] = field(default_factory=dict)
    harness_version: str | None = None
    digest: str = ""  # of the id lists, for the identity of their records
    # The same entry published on other boards too (same folder, same instances).
    copies: list[Entry] = field(default_factory=list)

    @property
    def title(self) -> str:
        return f"{self.board}/{self.name}" if self.board else self.name

    @property
    def slug(self) -> str:
        return self.folder or self.name

    @property
    def convertible(self) -> bool:
        return self.instances is not None or self.lists is not None

    def names(self) -> tuple[str, ...]:
        """What the `entry` parameter may say to choose it."""
        given = (self.name, self.folder, f"{self.board}/{self.name}" if self.board else "")
        return tuple(n for n in given if n)


def entries_of(document: Any, label: str, stem: str) -> list[Entry]:
    """Every entry of the file, or BundleRejected saying what shape it is not."""
    if not isinstance(document, dict):
        raise rejected(label, f"must be a JSON object of SWE-bench results, not {kind(document)}")
    if isinstance(document.get("leaderboards"), list):
        return _leaderboard_entries(document["leaderboards"], label)
    if any(isinstance(document.get(k), list) for k in _LIST_KEYS):
        return [_list_entry(document, stem)]
    values = list(document.values())
    if values and all(isinstance(v, dict) for v in values):
        if all(_is_detail(v) for v in values):
            return [Entry(name=stem, where="", instances=document)]
        if all(all(_is_detail(d) for d in v.values()) for v in values):
            return [
                Entry(name=key, where=f"[{json.dumps(key)}]", instances=value)
                for key, value in document.items()
            ]
    raise rejected(
        label,
        'is not a SWE-bench results file: expected {"leaderboards": […]} (the site\'s '
        "file), {entry: {instance: {resolved, cost, api_calls}}}, or the harness's lists "
        '{"resolved_ids": […], …}',
    )


def entry_pick(entries: list[Entry], wanted: str | None, label: str) -> Entry:
    """The entry `wanted` names; the only convertible one when not given."""
    entries = _merged(entries)
    convertible = [e for e in entries if e.convertible]
    wanted = (wanted or "").strip()
    if not wanted:
        if len(convertible) == 1:
            return convertible[0]
        if not convertible:
            raise rejected(label, "has no entry with per-instance details: nothing to convert")
        raise _choose(label, convertible, f"holds {len(convertible)} entries: give entry, one of")
    matches = [
        e for e in entries if wanted in e.names() or any(wanted in c.names() for c in e.copies)
    ]
    if not matches:
        raise _choose(label, convertible, f"has no entry {wanted!r}: give entry, one of")
    chosen = [e for e in matches if e.convertible] or matches[:1]
    if len(chosen) > 1:
        raise _choose(label, chosen, f"has several entries named {wanted!r}: give one of")
    [entry] = chosen
    if not entry.convertible:
        raise rejected(
            label,
            f"entry {wanted!r} publishes only its totals, no per-instance details: "
            "nothing to convert",
            entry.where,
        )
    return entry


def _merged(entries: list[Entry]) -> list[Entry]:
    """The entries, one published on several boards (same folder and instances) once:
    the first, holding the others as its copies."""
    kept: list[Entry] = []
    first: dict[str, Entry] = {}
    for entry in entries:
        same = first.get(entry.folder) if entry.folder and entry.convertible else None
        if same is not None and same.instances == entry.instances:
            same.copies.append(entry)
            continue
        if entry.folder and entry.convertible:
            first.setdefault(entry.folder, entry)
        kept.append(entry)
    return kept


def _choose(label: str, entries: list[Entry], message: str) -> BundleRejected:
    folders = [e.folder for e in entries]
    shown = [e.folder if e.folder and folders.count(e.folder) == 1 else e.title for e in entries]
    more = f" … and {len(shown) - _LISTED} more" if len(shown) > _LISTED else ""
    text = cut(f"{message} {', '.join(repr(s) for s in shown[:_LISTED])}{more}", 4000)
    return BundleRejected([BundleError(label, None, "entry", text)])


def _is_detail(value: Any) -> bool:
    return isinstance(value, dict) and "resolved" in value


def _leaderboard_entries(boards: list[Any], label: str) -> list[Entry]:
    entries = []
    for b, board in enumerate(boards):
        if not isinstance(board, dict) or not isinstance(board.get("results"), list):
            raise rejected(label, "must be an object with a list of results", f"leaderboards[{b}]")
        board_name = str(board.get("name") or b)
        for r, result in enumerate(board["results"]):
            where = f"leaderboards[{b}].results[{r}]"
            if not isinstance(result, dict):
                raise rejected(label, f"an entry must be an object, not {kind(result)}", where)
            details = result.get("per_instance_details")
            if details is not None and not isinstance(details, dict):
                raise rejected(
                    label, f"must be an object of instances, not {kind(details)}",
                    f"{where}.per_instance_details",
                )  # fmt: skip
            version = result.get("mini-swe-agent_version")
            entries.append(Entry(
                name=str(result.get("name") or result.get("folder") or where), where=(
                    f"{where}.per_instance_details"), board=board_name,
                folder=str(result.get("folder") or ""), instances=details,
                published={k: result.get(k) for k in PUBLISHED if k in result},
                harness_version=str(version) if version else None,
            ))  # fmt: skip
    return entries


def _list_entry(document: dict[str, Any], stem: str) -> Entry:
    lists = {k: v for k, v in document.items() if k in _LIST_KEYS and isinstance(v, list)}
    counts = {k: v for k, v in document.items() if k.endswith("_instances")}
    canonical = json.dumps(
        {k: sorted(map(str, v)) for k, v in lists.items()}, sort_keys=True, ensure_ascii=True
    )
    digest = hashlib.sha256(canonical.encode()).hexdigest()[:32]
    return Entry(name=stem, where="", lists=lists, counts=counts, digest=digest)
