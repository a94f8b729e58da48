from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from ingestion.importers.native_json import NotJson, load_json
from ingestion.importers.references import (
    ReferenceInputError,
    agentdojo_registry,
    dumps_registry,
    swebench_registry,
    tau_bench_registry,
)

AGENTDOJO_SUITE = "agentdojo"


class Command(BaseCommand):
    help = (
        "Write an arena-registry/1 file whose tasks carry reference tool calls, read from "
        "a benchmark's own files: AgentDojo's ground-truth calls (with its task list of "
        "one benchmark version) or a τ-bench results file's actions; or the instances of a "
        "SWE-bench results file (graded by tests: no reference calls). --base names Arena's "
        "suite statement (a suite object, or a registry file holding the suite) whose "
        "fields are copied and whose trajectory.write_tools mark the write calls."
    )

    def create_parser(self, prog_name: str, subcommand: str, **kwargs):
        # --version names the suite version, so it replaces Django's own --version
        # (which prints Django's).
        return super().create_parser(prog_name, subcommand, conflict_handler="resolve", **kwargs)

    def add_arguments(self, parser) -> None:
        parser.add_argument("format", choices=("agentdojo", "tau-bench", "swebench"))
        parser.add_argument(
            "source",
            type=Path,
            help="agentdojo: the ground-truth calls file; tau-bench: the results file",
        )
        parser.add_argument(
            "--task-ids",
            type=Path,
            help="agentdojo: the task ids per benchmark version ({version: {suite: {user_tasks,"
            " injection_tasks}}}); only that version's user tasks are written",
        )
        parser.add_argument(
            "--benchmark-version", help="agentdojo: the version in --task-ids (e.g. v1.1.2)"
        )
        parser.add_argument(
            "--suite", help=f"the Arena suite slug (agentdojo: default {AGENTDOJO_SUITE!r})"
        )
        parser.add_argument(
            "--version", dest="suite_version",
            help="the Arena suite version (agentdojo: default the benchmark version)",
        )  # fmt: skip
        parser.add_argument("--base", type=Path, help="Arena's suite statement to merge into")
        parser.add_argument("--out", type=Path, required=True, help="the registry file to write")

    def handle(self, *args, format: str, source: Path, out: Path, **options: Any) -> None:
        base = _base(options.get("base"), options.get("suite"))
        try:
            if format == "agentdojo":
                document = self._agentdojo(source, base, options)
            else:
                document = self._named_suite(format, source, base, options)
        except ReferenceInputError as exc:
            raise CommandError(str(exc)) from None
        suite = document["suites"][0]
        calls = sum(len(task.get("reference_calls", ())) for task in suite["tasks"])
        try:
            out.write_text(dumps_registry(document), encoding="utf-8")
        except OSError as exc:
            raise CommandError(f"{out}: {exc.strerror or exc}") from None
        sys.stderr.write(
            f"{suite['slug']} {suite['version']}: {len(suite['tasks'])} tasks, {calls} "
            f"reference calls written to {out}\n"
        )

    def _agentdojo(self, source: Path, base: dict | None, options: dict) -> dict:
        task_ids, version = options.get("task_ids"), options.get("benchmark_version")
        if task_ids is not None and not version:
            raise CommandError("--task-ids needs --benchmark-version: which version's tasks")
        if not version:
            raise CommandError("agentdojo needs --benchmark-version (e.g. v1.1.2)")
        _exists(source, task_ids)
        suite = options.get("suite") or (base or {}).get("slug") or AGENTDOJO_SUITE
        suite_version = options.get("suite_version") or (base or {}).get("version") or version
        sys.stderr.write(f"reading {source.name} ({version})\n")
        return agentdojo_registry(
            source, task_ids, suite=suite, version=suite_version, benchmark_version=version,
            base=base,
        )  # fmt: skip

    def _named_suite(self, format: str, source: Path, base: dict | None, options: dict) -> dict:
        if options.get("task_ids") or options.get("benchmark_version"):
            raise CommandError("--task-ids and --benchmark-version apply to agentdojo only")
        suite = options.get("suite") or (base or {}).get("slug")
        version = options.get("suite_version") or (base or {}).get("version")
        if not suite or not version:
            raise CommandError(f"{format} needs --suite and --version (or a --base naming them)")
        _exists(source, None)
        sys.stderr.write(f"reading {source.name}\n")
        build = tau_bench_registry if format == "tau-bench" else swebench_registry
        return build(source, suite=suite, version=version, base=base)


def _exists(*paths: Path | None) -> None:
    for path in paths:
        if path is not None and not path.is_file():
            raise CommandError(f"{path}: no such file")


def _base(path: Path | None, slug: str | None) -> dict | None:
    """The suite statement of --base: a suite object, or the one suite (of `slug`, when
    given) of a registry file."""
    if path is None:
        return None
    _exists(path)
    try:
        data = load_json(path)
    except (OSError, NotJson) as exc:
        raise CommandError(f"{path.name}: {exc}") from None
    if isinstance(data, dict) and "suites" in data:
        suites = [s for s in data["suites"] if isinstance(s, dict)]
        if slug:
            suites = [s for s in suites if s.get("slug") == slug]
        if len(suites) != 1:
            raise CommandError(
                f"{path.name}: suites: must hold one suite{f' {slug!r}' if slug else ''}, "
                f"holds {len(suites)}: name it with --suite"
            )
        data = suites[0]
    if not isinstance(data, dict) or "slug" not in data:
        raise CommandError(f"{path.name}: must be a suite object (with a slug) or a registry")
    return json.loads(json.dumps(data))
