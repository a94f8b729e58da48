"""May a new version of an agent ship? The release gate, for a CI job.

    python manage.py release_gate HARNESS --before V1 --after V2 [--json]

Reads the current snapshot's agent view (the release page's figures) and prints the
gate per figure and overall, as a table or, with --json, the API's body. The rule is
the methodology's "release-gate" section (leaderboard.methodology.release_gate).

Exit status: 0 pass, 1 fail, 2 not enough data; 3 for a usage error (bad arguments,
a harness without sessions, versions that cannot be compared), raised as a
CommandError with returncode 3, and argparse's own errors mapped to 3 as well.
"""

from __future__ import annotations

import json
from argparse import ArgumentParser

from django.core.management.base import BaseCommand, CommandError

from leaderboard.methodology.release_gate import USAGE_ERROR
from leaderboard.presentation.releases import difference_text, margin_text, verdict_text
from leaderboard.signalboard import release_gate, releases


class Command(BaseCommand):
    help = (
        "Judge a release of HARNESS on the signal boards: pass, fail or not enough data per "
        "figure and overall. Exit status 0 pass, 1 fail, 2 not enough data, 3 usage error."
    )

    def create_parser(self, prog_name: str, subcommand: str, **kwargs) -> ArgumentParser:
        parser = super().create_parser(prog_name, subcommand, **kwargs)
        # argparse exits 2 on a bad argument, which would read as "not enough data".
        plain_exit = parser.exit

        def exit_(status: int = 0, message: str | None = None) -> None:
            plain_exit(USAGE_ERROR if status == 2 else status, message)

        parser.exit = exit_
        return parser

    def add_arguments(self, parser) -> None:
        parser.add_argument("harness", help="the harness name, as on the agent view")
        parser.add_argument("--before", required=True, help="the version released before")
        parser.add_argument("--after", required=True, help="the version to judge")
        parser.add_argument("--json", action="store_true", help="print the API's JSON body")

    def handle(self, *args, harness: str, before: str, after: str, **options) -> None:
        try:
            result = release_gate.release_gate_check(harness, before, after)
        except releases.ReleaseError as error:
            raise CommandError(str(error), returncode=USAGE_ERROR) from error
        if options["json"]:
            self.stdout.write(json.dumps(release_gate.gate_payload(result), indent=2))
        else:
            self._table(result)
        if result.exit_status:
            raise SystemExit(result.exit_status)

    def _table(self, result: release_gate.GateResult) -> None:
        c = result.comparison
        self.stdout.write(
            f"{c.harness} {c.before.harness_version} ({c.before.sessions} sessions) → "
            f"{c.after.harness_version} ({c.after.sessions} sessions)"
        )
        rows = [("figure", "after − before [95% CI]", "margin", "verdict")]
        rows += [
            (
                f.label,
                difference_text(f.figure, f.difference.value, f.difference.low, f.difference.high),
                margin_text(f.figure, f.judged.margin),
                f"{verdict_text(f.verdict)}: {f.judged.reason}",
            )
            for f in result.figures
        ]
        widths = [max(len(row[i]) for row in rows) for i in range(3)]
        for row in rows:
            cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=False)]
            self.stdout.write("  ".join([*cells, row[3]]))
        style = {"pass": self.style.SUCCESS, "fail": self.style.ERROR}.get(
            result.verdict, self.style.WARNING
        )
        self.stdout.write(style(f"release gate: {verdict_text(result.verdict)}"))
