"""Small builders for bundles and runs, so each test states only what matters to it."""

from __future__ import annotations

import io
import json
import tarfile
from pathlib import Path

from tests.conftest import BUNDLES_DIR

EXAMPLE_RUN_BUNDLES = sorted(BUNDLES_DIR.glob("runs-*.tar.gz"))
EXAMPLE_SESSIONS_BUNDLE = BUNDLES_DIR / "sessions.tar.gz"


def harness_manifest(name: str = "TestHarness", version: str = "1.0.0", **harness) -> dict:
    return {
        "format": "arena-bundle/1",
        "harness": {"name": name, "version": version, "contributors": [], **harness},
        "created_at": "2026-11-01T00:00:00+00:00",
    }


def run_line(run_id: str = "r-1", **fields) -> dict:
    run = {
        "run_id": run_id,
        "suite": "terminal-bench",
        "suite_version": "4.0.0",
        "task_id": "fix-git",
        "model": "frontier-large",
        "trial": 1,
        "outcome": "pass",
        "infra_error": None,
        "cost_usd": 0.01,
        "tokens": {"input": 1000, "output": 100},
        "steps": 10,
        "tool_calls": 12,
        "ttft_ms": 500,
        "started_at": "2026-11-01T10:00:00+00:00",
        "finished_at": "2026-11-01T10:01:00+00:00",
    }
    run.update(fields)
    return run


def tar_gz_bundle(
    manifest: dict | None,
    runs: list[dict] | None = None,
    sessions: list[dict] | None = None,
    extra_files: dict[str, bytes] | None = None,
) -> bytes:
    """A .tar.gz bundle in memory from Python objects."""
    files: dict[str, bytes] = {}
    if manifest is not None:
        files["manifest.json"] = json.dumps(manifest).encode()
    if runs is not None:
        files["runs.jsonl"] = "".join(json.dumps(r) + "\n" for r in runs).encode()
    if sessions is not None:
        files["sessions.jsonl"] = "".join(json.dumps(s) + "\n" for s in sessions).encode()
    files.update(extra_files or {})
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, content in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(content)
            archive.addfile(info, io.BytesIO(content))
    return buffer.getvalue()


def example_bytes(path: Path) -> bytes:
    return path.read_bytes()


def outcomes(
    *results: str, task: str = "regex-log", model: str = "m", prefix: str = "r", **fields
) -> list[dict]:
    """Runs with the given outcomes ('pass', 'fail', or an infra error kind such as 'timeout')."""
    runs = []
    for i, result in enumerate(results):
        infra = result not in {"pass", "fail"}
        runs.append(
            run_line(
                f"{prefix}-{task}-{model}-{i}", task_id=task, model=model, trial=i + 1,
                outcome="infra_error" if infra else result, infra_error=result if infra else None,
                **fields,
            )
        )  # fmt: skip
    return runs


def submit(user, runs, *, harness: str = "H", version: str = "1.0.0", **harness_fields):
    """Ingest runs as one bundle of a harness; the submission must be ingested."""
    from ingestion.services.intake import submission_ingest

    bundle = tar_gz_bundle(harness_manifest(harness, version, **harness_fields), runs)
    submission, _ = submission_ingest(upload=bundle, user=user)
    assert submission.status == "ingested", submission.errors
    return submission


# A suite the test registry lacks until a test loads it (a submission rejected for it
# can then be taken again).
LATE_SUITE = {"slug": "late-bench", "version": "1.0.0", "name": "Late-Bench", "official": True}


def late_suite_load(*task_ids: str) -> None:
    """Load LATE_SUITE with these tasks, as an admin fixing the registry would."""
    from ingestion.services.registry import registry_load

    tasks = [{"task_id": task_id, "category": "bugfix", "authors": []} for task_id in task_ids]
    registry_load(data={"format": "arena-registry/1", "suites": [{**LATE_SUITE, "tasks": tasks}]})


def late_bundle(trials: int = 2, task_id: str = "fix-it") -> bytes:
    """Runs of one LATE_SUITE task: every line is "not in the registry" until it is loaded."""
    runs = [
        run_line(f"r-{trial}", suite="late-bench", suite_version="1.0.0", task_id=task_id,
                 trial=trial)
        for trial in range(1, trials + 1)
    ]  # fmt: skip
    return tar_gz_bundle(harness_manifest(), runs)


def board_tasks_only(*task_ids: str) -> None:
    """Leave only these registry tasks on the boards (the others unapproved): a test of
    some other rule gives its entries complete coverage (methodology §2.6) this way."""
    from ingestion.models import Task

    Task.objects.exclude(task_id__in=task_ids).update(approved=False)


def api_key(user) -> str:
    """The user's API key: made for the test from the account, so every call gives the
    same key (the database keeps only its hash, as for any token)."""
    import hashlib

    from ingestion.models import ApiToken
    from ingestion.services.api_tokens import api_key_hash

    key = hashlib.sha256(f"test key {user.pk} {user.get_username()}".encode()).hexdigest()[:40]
    ApiToken.objects.get_or_create(user=user, defaults={"key_hash": api_key_hash(key)})
    return key
