"""Reference tool calls read from benchmarks' own files, as `arena-registry/1` documents.

Pure: each function reads native files and returns a registry document with one suite
whose tasks carry `reference_calls`, a list of `{"tool", "arguments", "write"}` (the
calls a correct run makes, in order). `write` says whether the tool changes state: it
is true for the tools the suite statement (`base`, Arena's own, merged into) lists in
`trajectory.write_tools`, and false for every call when no statement is given.

* AgentDojo: the ground-truth calls of each user task (`{suite: {user_tasks: {id:
  {prompt, ground_truth: [{function, args, placeholder_args}]}}, injection_tasks}}`):
  `function` is the tool, `args` its arguments (`placeholder_args` are left out);
  task ids `<suite>/<user_task>`, category the AgentDojo suite; with a task list
  (`{version: {suite: {user_tasks, injection_tasks}}}`) only the user tasks of the
  given benchmark version, each of which must have ground truth.
* τ-bench: a results file (a JSON list of `{task_id, trial, info, …}`): each task's
  `info.task.actions` (`name` is the tool, `kwargs` its arguments), which every trial
  of a task must state identically; category `customer_service`. A crash item (an
  `info` with `error` and no `task`) states nothing and is passed over.

Every problem raises `ReferenceInputError` naming the file and the field.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

from ingestion.bundles import BundleRejected
from ingestion.importers.common import show
from ingestion.importers.native_json import NotJson, load_json
from ingestion.importers.swebench_entries import entries_of

REGISTRY_FORMAT = "arena-registry/1"
TAU_CATEGORY = "customer_service"
# A native file read whole: ground truth and task lists are small, a τ-bench results
# file of a few hundred trials some tens of MB.
MAX_FILE_BYTES = 512 * 1024**2
# Statement fields not copied from `base` into the suite (the tasks are built here).
_NOT_COPIED = frozenset({"tasks"})


class ReferenceInputError(ValueError):
    """A native file that cannot give reference calls: `<file>: <field>: <message>`."""

    def __init__(self, file: str, field: str, message: str) -> None:
        self.file, self.field, self.message = file, field, message
        super().__init__(f"{file}: {field}: {message}" if field else f"{file}: {message}")


def agentdojo_registry(
    ground_truth: Path,
    task_ids: Path | None,
    *,
    suite: str,
    version: str,
    benchmark_version: str,
    base: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The registry document of AgentDojo's user tasks with their ground-truth calls."""
    ground_truth = Path(ground_truth)
    label = ground_truth.name
    truth = _load(ground_truth)
    if not isinstance(truth, dict) or not truth:
        raise ReferenceInputError(label, "", "must be an object of AgentDojo suites")
    listed = _version_tasks(Path(task_ids), benchmark_version) if task_ids is not None else None
    writes = _write_tools(base)
    tasks: list[dict[str, Any]] = []
    for suite_name in sorted(truth):
        user_tasks = (
            truth[suite_name].get("user_tasks") if isinstance(truth[suite_name], dict) else None
        )
        if not isinstance(user_tasks, dict):
            raise ReferenceInputError(
                label, f"{suite_name}.user_tasks", "must be an object of tasks"
            )
        wanted = (
            listed.get(suite_name, []) if listed is not None else sorted(user_tasks, key=_natural)
        )
        for task in wanted:
            where = f"{suite_name}.user_tasks.{task}"
            if task not in user_tasks:
                raise ReferenceInputError(
                    label, where, f"is in the {benchmark_version} task list but has no ground truth"
                )
            calls = _agentdojo_calls(user_tasks[task], label, where, writes)
            tasks.append(
                {
                    "task_id": f"{suite_name}/{task}",
                    "category": suite_name,
                    "reference_calls": calls,
                }
            )
    if listed is not None:
        missing = sorted(set(listed) - set(truth))
        if missing:
            raise ReferenceInputError(
                label, missing[0], f"the {benchmark_version} task list names this suite, which has "
                "no ground truth"
            )  # fmt: skip
    return _document(_suite(base, suite, version, tasks))


def tau_bench_registry(
    results: Path, *, suite: str, version: str, base: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The registry document of the tasks of a τ-bench results file with their actions."""
    results = Path(results)
    label = results.name
    items = _load(results)
    if not isinstance(items, list):
        raise ReferenceInputError(label, "", "must be a JSON list of τ-bench results")
    writes = _write_tools(base)
    actions: dict[str, tuple[int, Any]] = {}  # task id → (first item stating it, actions)
    for number, item in enumerate(items, 1):
        where = f"item {number}"
        if not isinstance(item, dict):
            raise ReferenceInputError(label, where, "must be an object")
        task_id = _tau_task_id(item.get("task_id"), label, where)
        info = item.get("info")
        if isinstance(info, dict) and "task" not in info and "error" in info:
            continue  # a crash: the runner recorded no task
        stated = (
            info.get("task", {}).get("actions")
            if isinstance(info, dict) and isinstance(info.get("task"), dict)
            else None
        )
        if not isinstance(stated, list):
            raise ReferenceInputError(
                label, f"{where}.info.task.actions", "must be a list of actions"
            )
        first = actions.setdefault(task_id, (number, stated))
        if first[1] != stated:
            raise ReferenceInputError(
                label, f"{where}.info.task.actions",
                f"task {task_id!r} states other actions than item {first[0]}",
            )  # fmt: skip
    if not actions:
        raise ReferenceInputError(label, "", "holds no τ-bench task with actions")
    tasks = []
    for task_id in sorted(actions, key=_natural):
        number, stated = actions[task_id]
        calls = []
        for j, action in enumerate(stated):
            where = f"item {number}.info.task.actions[{j}]"
            if not isinstance(action, dict) or not isinstance(action.get("name"), str):
                raise ReferenceInputError(label, f"{where}.name", "must be a tool name")
            kwargs = action.get("kwargs", {})
            if not isinstance(kwargs, dict):
                raise ReferenceInputError(
                    label, f"{where}.kwargs", f"must be an object, got {show(kwargs)}"
                )
            calls.append(_call(action["name"], kwargs, writes))
        tasks.append({"task_id": task_id, "category": TAU_CATEGORY, "reference_calls": calls})
    return _document(_suite(base, suite, version, tasks))


def swebench_registry(
    results: Path, *, suite: str, version: str, base: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The registry document of every instance a SWE-bench results file names (the
    per-instance details of all its entries, or its id lists), each in the category of
    its repository (`django__django-11099` -> `django__django`). SWE-bench states no
    reference calls: its tasks are graded by their tests."""
    results = Path(results)
    label = results.name
    try:
        entries = entries_of(_load(results), label, results.stem)
    except BundleRejected as exc:
        raise ReferenceInputError(label, "", "; ".join(str(e) for e in exc.errors)) from None
    instances: set[str] = set()
    for entry in entries:
        instances.update(str(i) for i in (entry.instances or {}))
        for ids in (entry.lists or {}).values():
            instances.update(str(i) for i in ids if isinstance(i, str))
    if not instances:
        raise ReferenceInputError(label, "", "names no instance")
    tasks = [
        {"task_id": instance, "category": _repository(instance)}
        for instance in sorted(instances, key=_natural)
    ]
    return _document(_suite(base, suite, version, tasks))


def _repository(instance: str) -> str:
    """`astropy__astropy-12907` -> `astropy__astropy`: the instance's repository, as a
    category slug (other characters become `-`)."""
    head = instance.rsplit("-", 1)[0] if "-" in instance else instance
    return re.sub(r"[^-a-zA-Z0-9_]", "-", head)[:100] or "other"


# ------------------------------------------------------------------ shared


def _load(path: Path) -> Any:
    try:
        return load_json(path, MAX_FILE_BYTES)
    except OSError as exc:
        raise ReferenceInputError(path.name, "", exc.strerror or str(exc)) from None
    except NotJson as exc:
        raise ReferenceInputError(path.name, "", str(exc)) from None


def _version_tasks(path: Path, version: str) -> dict[str, list[str]]:
    """{suite: [user task ids]} of one benchmark version of a task list file."""
    by_version = _load(path)
    label = path.name
    if not isinstance(by_version, dict):
        raise ReferenceInputError(label, "", "must be an object of benchmark versions")
    suites = by_version.get(version)
    if not isinstance(suites, dict):
        known = ", ".join(sorted(by_version)) or "none"
        raise ReferenceInputError(
            label, version, f"is not a benchmark version of the file (has {known})"
        )
    listed: dict[str, list[str]] = {}
    for suite_name, tasks in suites.items():
        user = tasks.get("user_tasks") if isinstance(tasks, dict) else None
        if not isinstance(user, list) or not all(isinstance(t, str) for t in user):
            raise ReferenceInputError(
                label, f"{version}.{suite_name}.user_tasks", "must be a list of task ids"
            )
        listed[suite_name] = sorted(user, key=_natural)
    return listed


def _agentdojo_calls(
    task: Any, label: str, where: str, writes: frozenset[str]
) -> list[dict[str, Any]]:
    calls = task.get("ground_truth") if isinstance(task, dict) else None
    if not isinstance(calls, list):
        raise ReferenceInputError(label, f"{where}.ground_truth", "must be a list of calls")
    out = []
    for j, call in enumerate(calls):
        at = f"{where}.ground_truth[{j}]"
        if (
            not isinstance(call, dict)
            or not isinstance(call.get("function"), str)
            or not call["function"]
        ):
            raise ReferenceInputError(label, f"{at}.function", "must be a tool name")
        args = call.get("args", {})
        if not isinstance(args, dict):
            raise ReferenceInputError(label, f"{at}.args", f"must be an object, got {show(args)}")
        out.append(_call(call["function"], args, writes))
    return out


def _call(tool: str, arguments: dict[str, Any], writes: frozenset[str]) -> dict[str, Any]:
    return {"tool": tool, "arguments": arguments, "write": tool in writes}


def _write_tools(base: dict[str, Any] | None) -> frozenset[str]:
    if base is None:
        return frozenset()
    trajectory = base.get("trajectory") if isinstance(base, dict) else None
    tools = trajectory.get("write_tools", []) if isinstance(trajectory, dict) else []
    if not isinstance(tools, list) or not all(isinstance(t, str) for t in tools):
        raise ReferenceInputError("base", "trajectory.write_tools", "must be a list of tool names")
    return frozenset(tools)


def _suite(
    base: dict[str, Any] | None, slug: str, version: str, tasks: list[dict[str, Any]]
) -> dict[str, Any]:
    """The suite: `base`'s fields (its tasks' own fields kept, e.g. authors), the given
    slug and version, and the tasks with their reference calls."""
    if base is not None and not isinstance(base, dict):
        raise ReferenceInputError("base", "", "must be a suite object")
    base = base or {}
    for name, given in (("slug", slug), ("version", version)):
        if name in base and base[name] != given:
            raise ReferenceInputError(
                "base", name, f"is {show(base[name])}, but {given!r} was given"
            )
    suite = {"slug": slug, "version": version}
    suite.update({k: copy.deepcopy(v) for k, v in base.items() if k not in _NOT_COPIED})
    own = {t.get("task_id"): t for t in base.get("tasks", []) if isinstance(t, dict)}
    suite["tasks"] = [{**copy.deepcopy(own.get(t["task_id"], {})), **t} for t in tasks]
    return suite


def _document(suite: dict[str, Any]) -> dict[str, Any]:
    return {"format": REGISTRY_FORMAT, "suites": [suite]}


def _tau_task_id(value: Any, label: str, where: str) -> str:
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return str(value)
    if isinstance(value, str) and value.strip():
        return value.strip()
    raise ReferenceInputError(
        label, f"{where}.task_id", f"must be a task number or name, got {show(value)}"
    )


def _natural(text: str) -> tuple[Any, ...]:
    return tuple(int(t) if t.isdigit() else t for t in re.split(r"(\d+)", text))


def dumps_registry(document: dict[str, Any]) -> str:
    """The document as the command writes it (indent 1, non-ASCII kept)."""
    return json.dumps(document, indent=1, ensure_ascii=False) + "\n"
