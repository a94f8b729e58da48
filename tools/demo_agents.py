"""Give the demo's sessions the agents they ran, and the demo a second OpenHarness version.

    .venv/bin/python tools/demo_agents.py

Writes ingestion/fixtures/demo/runs-openharness-0.9.3.tar.gz, OpenHarness 0.9.3 on
frontier-large: the 0.9.2 bundle's frontier-large runs, submitted two weeks later, with
every third failure of 0.9.2 passing (a release that helped a little), so the boards
hold two versions of one harness (the "All versions" filter, the agent page's history).
Then rewrites ingestion/fixtures/demo/sessions.tar.gz so that its sessions name the
agent they ran (bundle-format.md, `agent`): frontier-large's in file order, the first
half OpenHarness 0.9.2 and the rest 0.9.3 (so /signals/releases/OpenHarness/ compares
the two), frontier-mini's TermPilot 0.4.0, and open-weights-70b's none (the agent view
says how many sessions name no agent). Running it again changes nothing: the same input
gives the same bytes.
"""

from __future__ import annotations

import json
import sys
import tarfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from demo_trajectories import add_trajectories  # this folder: run as a script

from ingestion.importers.common import RunSpool, write_bundle, write_sessions_bundle

DEMO_DIR = Path(__file__).resolve().parent.parent / "ingestion" / "fixtures" / "demo"
SOURCE = "runs-openharness.tar.gz"
RELEASE = "runs-openharness-0.9.3.tar.gz"
HARNESS, BEFORE, AFTER = "OpenHarness", "0.9.2", "0.9.3"
MODEL = "frontier-large"
SUBMITTED = "2026-11-15T00:00:00+00:00"
# Each version gets more sessions than the signal boards need to rank it (30).
AGENTS = {"frontier-mini": ("TermPilot", "0.4.0")}


def members_of(path: Path) -> dict[str, bytes]:
    with tarfile.open(path, "r:gz") as archive:
        return {m.name: archive.extractfile(m).read() for m in archive.getmembers() if m.isfile()}


def release_bundle() -> int:
    members = members_of(DEMO_DIR / SOURCE)
    manifest = json.loads(members["manifest.json"])
    manifest["harness"]["version"] = AFTER
    manifest["created_at"] = SUBMITTED
    manifest["notes"] = f"{manifest.get('notes', '')}; {AFTER}: tools/demo_agents.py".lstrip("; ")
    runs = []
    failures = 0
    for line in members["runs.jsonl"].splitlines():
        run = json.loads(line)
        if run["model"] != MODEL:
            continue
        run.pop("trajectory", None)  # tools/demo_trajectories.py writes this bundle's own
        run["run_id"] = run["run_id"].replace("ope-", "ope093-", 1)
        if run["outcome"] == "fail":
            failures += 1
            if failures % 3 == 0:
                run["outcome"] = "pass"
        runs.append(run)
    write_bundle(DEMO_DIR / RELEASE, manifest, runs, {})
    add_trajectories(DEMO_DIR / RELEASE)  # as tools/demo_trajectories.py gives every bundle
    return len(runs)


def agent_sessions() -> int:
    path = DEMO_DIR / "sessions.tar.gz"
    members = members_of(path)
    manifest = json.loads(members.pop("manifest.json"))
    sessions = [json.loads(line) for line in members.pop("sessions.jsonl").splitlines()]
    ours = [s for s in sessions if s["model"] == MODEL]
    half = len(ours) // 2
    named = 0
    for i, session in enumerate(ours):
        session["agent"] = {"harness": HARNESS, "version": BEFORE if i < half else AFTER}
    for session in sessions:
        agent = AGENTS.get(session["model"])
        if agent is not None:
            session["agent"] = {"harness": agent[0], "version": agent[1]}
        named += "agent" in session
    if members:
        raise SystemExit(f"sessions.tar.gz holds files this tool does not keep: {sorted(members)}")
    spool = RunSpool()
    for session in sessions:
        spool.add(session)
    write_sessions_bundle(path, manifest, spool)
    return named


if __name__ == "__main__":
    print(f"{RELEASE}: {release_bundle()} runs")
    print(f"sessions.tar.gz: {agent_sessions()} sessions name their agent")
