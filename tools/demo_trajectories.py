"""Give a few runs of the demo bundles a trajectory, so a newcomer's run pages show one.

    .venv/bin/python tools/demo_trajectories.py

Rewrites every ingestion/fixtures/demo/runs-*.tar.gz in place: their first runs of
Terminal-Bench `fix-git` (one per trial) get a
`trajectories/<run_id>.json` file in the format of bundle-format.md ("A trajectory file
... is a list of turns"), written by the importers' deterministic archive writer. Running
it again changes nothing: runs that already have a trajectory are left alone. The
trajectories are illustrative (the demo data is generated), and follow each run's outcome.
"""

from __future__ import annotations

import json
import sys
import tarfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ingestion.importers.common import write_bundle

DEMO_DIR = Path(__file__).resolve().parent.parent / "ingestion" / "fixtures" / "demo"
# Every demo bundle of runs: each agent's page and runs show a few trajectories.
BUNDLES = tuple(sorted(path.name for path in DEMO_DIR.glob("runs-*.tar.gz")))
TASK = ("terminal-bench", "fix-git")
PER_BUNDLE = 3


def turns(outcome: str) -> list[dict]:
    """A short fix-git session: inspect, find the lost commit, merge it; a failing run
    stops at a conflict it does not resolve."""
    steps = [
        {
            "role": "user",
            "text": "I lost my latest changes after checking out an old commit. "
            "Find them and merge them back into master.",
        },
        {
            "role": "assistant",
            "text": "Looking at the repository state first.",
            "tool_calls": [
                {
                    "tool": "bash",
                    "arguments": {"command": "git status && git log --oneline -5"},
                    "exit_code": 0,
                    "output": "HEAD detached at 3f2a9c1\nnothing to commit, working tree clean\n"
                    "3f2a9c1 Update about page\n9d41e07 Initial site",
                }
            ],
        },
        {
            "role": "assistant",
            "text": "The commit made on the detached HEAD should be in the reflog.",
            "tool_calls": [
                {
                    "tool": "bash",
                    "arguments": {"command": "git reflog -8"},
                    "exit_code": 0,
                    "output": "3f2a9c1 HEAD@{0}: checkout: moving from 7c0e5b2 to master~1\n"
                    "7c0e5b2 HEAD@{1}: commit: Move to Stanford",
                }
            ],
        },
        {
            "role": "assistant",
            "text": "Found it: 7c0e5b2. Merging it into master.",
            "tool_calls": [
                {
                    "tool": "bash",
                    "arguments": {"command": "git checkout master && git merge 7c0e5b2"},
                    "exit_code": 1,
                    "output": "CONFLICT (content): Merge conflict in _includes/about.md\n"
                    "Automatic merge failed; fix conflicts and then commit the result.",
                }
            ],
        },
    ]
    if outcome == "pass":
        steps.append(
            {
                "role": "assistant",
                "text": "Keeping the newer text from the lost commit and committing.",
                "tool_calls": [
                    {
                        "tool": "bash",
                        "arguments": {
                            "command": "git checkout --theirs _includes/about.md && "
                            "git add -A && git commit -m 'Merge lost changes'"
                        },
                        "exit_code": 0,
                        "output": "[master 5e81d3a] Merge lost changes",
                    }
                ],
            }
        )
        steps.append({"role": "assistant", "text": "The lost changes are merged into master."})
    else:
        steps.append(
            {
                "role": "assistant",
                "text": "The merge has a conflict; I stopped here without resolving it.",
            }
        )
    return steps  # fmt: skip


def add_trajectories(path: Path) -> int:
    with tarfile.open(path, "r:gz") as archive:
        members = {
            m.name: archive.extractfile(m).read() for m in archive.getmembers() if m.isfile()
        }
    manifest = json.loads(members.pop("manifest.json"))
    runs = [json.loads(line) for line in members.pop("runs.jsonl").splitlines() if line.strip()]
    chosen = [r for r in runs if (r["suite"], r["task_id"]) == TASK][:PER_BUNDLE]
    added = 0
    for run in chosen:
        name = f"trajectories/{run['run_id']}.json"
        if run.get("trajectory") == name:
            continue
        members[name] = json.dumps(turns(run["outcome"]), indent=1).encode()
        run["trajectory"] = name
        added += 1
    if added:
        write_bundle(path, manifest, runs, members)
    return added


if __name__ == "__main__":
    for bundle in BUNDLES:
        print(f"{bundle}: {add_trajectories(DEMO_DIR / bundle)} trajectories added")
