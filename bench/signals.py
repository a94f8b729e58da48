"""Signal-board benchmark: 100,000 generated sessions through ingest, load, scoring and NIR.

    python bench/signals.py [--sessions 100000] [--seed 1] [--new 1000] [--repeat 2]

Generates sessions of about ten turns (bench/gen_sessions.py), writes them as a
sessions bundle and ingests it through the real ingest service, then reports:
* ingest time (validate + label + COPY);
* load_sessions: streaming every counted session back out of PostgreSQL;
* signal_rows: extraction + scoring + closed-form NIR of every slice (composite, the
  three scenarios, the capability signals), the figure the target is about (<= 30 s);
* sessions scored once: scoring every session into SessionScore rows (the
  one-time work of the recompute after an ingest); a full signal recompute with every
  score stored (aggregation only) against the old path that rescored every session,
  interleaved, as a ratio; and the incremental recompute after ingesting --new more
  sessions (score those, aggregate all), against the same old path;
* the headline NIR's closed form against the 10,000-shuffle Monte Carlo on the same
  data: the speed ratio (target >= 100x) and whether they agree within MC error.
Everything it creates (submission, sessions, models it added, user) is deleted at the end.
"""

from __future__ import annotations

import argparse
import io
import json
import math
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._django import peak_rss_mb, setup

BENCH_USER = "bench-signals"
MANIFEST = {"format": "arena-bundle/1", "source": {"name": "bench", "kind": "sessions"}}
# Monte Carlo and closed form agree when every model's NIR and null sd differ by less
# than this many Monte Carlo standard errors (B = 10,000 shuffles).
AGREEMENT_SE = 4.0


def write_sessions_bundle(path: Path, sessions: Iterable[dict]) -> Path:
    """A tar.gz with manifest.json and sessions.jsonl, the jsonl spooled through a temp file."""
    with tempfile.TemporaryFile() as jsonl:
        for session in sessions:
            jsonl.write(json.dumps(session).encode() + b"\n")
        size = jsonl.tell()
        jsonl.seek(0)
        with tarfile.open(path, "w:gz", compresslevel=1) as archive:
            manifest = json.dumps(MANIFEST).encode()
            archive.addfile(_member("manifest.json", len(manifest)), io.BytesIO(manifest))
            archive.addfile(_member("sessions.jsonl", size), jsonl)
    return path


def _member(name: str, size: int) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.size = size
    return info


def timed(function: Callable[[], Any]) -> tuple[float, Any]:
    started = time.perf_counter()
    result = function()
    return time.perf_counter() - started, result


def ingest(path: Path) -> tuple[float, Any]:
    """Seconds of the ingest itself, and the submission.

    Without a broker the recompute it asks for runs eagerly on commit, inside this call;
    its own duration (recorded on the snapshot) is taken off, since it is timed below.
    """
    from django.contrib.auth import get_user_model

    from ingestion.services.intake import submission_ingest
    from leaderboard.models import BoardSnapshot

    # Staff publish at once (a new account's uploads wait for review).
    user, _ = get_user_model().objects.update_or_create(
        username=BENCH_USER, defaults={"is_staff": True}
    )
    seconds, (submission, _) = timed(
        lambda: submission_ingest(upload=path, user=user, filename=path.name)
    )
    assert submission.status == "ingested", submission.errors[:5]
    snapshot = BoardSnapshot.objects.current()
    recompute = (
        snapshot.duration_ms / 1000
        if snapshot and snapshot.computed_at > submission.finished_at
        else 0
    )
    return seconds - recompute, submission


def consume_sessions() -> tuple[int, int]:
    """Stream every counted session out (as signal_rows does: in a transaction, no texts)."""
    from django.db import transaction

    from leaderboard.signalboard.loading import load_sessions

    count = turns = 0
    with transaction.atomic():
        for session in load_sessions(with_text=False):
            count += 1
            turns += len(session["turns"])
    return count, turns


def nir_comparison(shuffles: int) -> dict[str, Any]:
    """Closed form vs Monte Carlo on the headline outcome of every counted session."""
    import numpy as np
    from django.db import transaction

    from leaderboard.methodology import nir
    from leaderboard.signalboard.loading import load_sessions

    models, strata, confirmed = [], [], []
    with transaction.atomic():
        for session in load_sessions(with_text=False):
            models.append(session["model"])
            strata.append(session["scenario"])
            confirmed.append(session["confirmation"] == "yes")
    y = np.asarray(confirmed, dtype=float)
    closed_s = min(timed(lambda: nir.nir_closed_form_all(y, models, strata))[0] for _ in range(5))
    closed = nir.nir_closed_form_all(y, models, strata)
    mc_s, monte_carlo = timed(lambda: nir.nir_monte_carlo_all(y, models, strata, shuffles, seed=7))
    return {
        "closed_s": closed_s,
        "mc_s": mc_s,
        "agreement": agreement(closed, monte_carlo, shuffles),
    }


def agreement(closed: dict, monte_carlo: dict, shuffles: int) -> list[tuple[str, float, float]]:
    """Per model: |NIR difference| and |sd difference| in Monte Carlo standard errors.

    The MC null mean has standard error sd/sqrt(B); its sd, about sd/sqrt(2(B-1)).
    """
    rows = []
    for model, exact in closed.items():
        estimate = monte_carlo[model]
        sd = exact.null_sd
        mean_se, sd_se = sd / math.sqrt(shuffles), sd / math.sqrt(2 * (shuffles - 1))
        rows.append(
            (
                str(model),
                abs(estimate.value - exact.value) / mean_se,
                abs(estimate.null_sd - exact.null_sd) / sd_se,
            )
        )
    return rows


def cleanup(submission_id: int | None, models_before: set[str]) -> None:
    from django.contrib.auth import get_user_model
    from django.db import connection, transaction

    from ingestion.models import LanguageModel

    if submission_id is not None:
        # Set-based deletes, children first: Django's cascade would fetch all 2M rows.
        with transaction.atomic(), connection.cursor() as cursor:
            for statement in DELETE_SQL:
                cursor.execute(statement, [submission_id])
    added = LanguageModel.objects.exclude(name__in=models_before)
    added.filter(runs__isnull=True, sessions__isnull=True).delete()
    get_user_model().objects.filter(username=BENCH_USER, submissions__isnull=True).delete()


DELETE_SQL = (
    """DELETE FROM ingestion_toolcall c USING ingestion_turn t, ingestion_session s
       WHERE c.turn_id = t.id AND t.session_id = s.id AND s.submission_id = %s""",
    """DELETE FROM ingestion_turn t USING ingestion_session s
       WHERE t.session_id = s.id AND s.submission_id = %s""",
    "DELETE FROM ingestion_session WHERE submission_id = %s",
    "DELETE FROM ingestion_submission WHERE id = %s",
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--shuffles", type=int, default=10_000)
    parser.add_argument("--new", type=int, default=1_000, help="sessions of the incremental run")
    parser.add_argument("--repeat", type=int, default=2, help="interleaved runs of each path")
    args = parser.parse_args()
    setup()
    from django.core.management import call_command

    from bench.gen_sessions import generate_sessions
    from ingestion.models import LanguageModel
    from leaderboard.signalboard.compute import signal_rows

    call_command("migrate", verbosity=0)
    models_before = set(LanguageModel.objects.values_list("name", flat=True))
    submission_ids: list[int] = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            sessions = generate_sessions(args.sessions, seed=args.seed)
            path = write_sessions_bundle(Path(tmp) / "sessions.tar.gz", sessions)
            ingest_s, submission = ingest(path)
        submission_ids.append(submission.pk)
        load_s, (count, turns) = timed(consume_sessions)
        rows_s, rows = timed(signal_rows)
        comparison = nir_comparison(args.shuffles)
        report(args, count, turns, ingest_s, load_s, rows_s, len(rows), comparison)
        stored = stored_scores_comparison(args, submission_ids)
        report_stored(args, stored)
    finally:
        for submission_id in submission_ids:
            cleanup(submission_id, models_before)


def rows_rescoring_everything() -> list:
    """The signal recompute as it was before scores were stored: every session read
    back (turns and tool calls) and summarised again."""
    from django.db import transaction

    from leaderboard.signalboard.compute import SessionTable, table_rows
    from leaderboard.signalboard.loading import load_sessions

    with transaction.atomic():
        return table_rows(SessionTable(load_sessions(with_text=False)))


def scores_forget(submission_id: int) -> None:
    from leaderboard.models import SessionScore

    SessionScore.objects.filter(session__submission_id=submission_id).delete()


def vacuum() -> None:
    """What autovacuum does soon after a bulk write: both paths are timed on tables
    without dead rows and with fresh statistics."""
    from django.db import connection
    from psycopg import sql

    with connection.cursor() as cursor:
        for table in VACUUMED:
            cursor.execute(sql.SQL("VACUUM ANALYZE {}").format(sql.Identifier(table)))


VACUUMED = (
    "ingestion_session", "ingestion_turn", "ingestion_toolcall", "leaderboard_sessionscore",
)  # fmt: skip


def stored_scores_comparison(args, submission_ids: list[int]) -> dict[str, Any]:
    """Seconds of: scoring every session once; the full recompute on stored scores and
    the old rescore-everything path (interleaved, best of `--repeat` each); the
    incremental recompute after ingesting `--new` sessions. Figures must be identical."""
    from bench.gen_sessions import generate_sessions
    from leaderboard.signalboard.compute import signal_rows
    from leaderboard.signalboard.scoring import sessions_score_pending

    scores_forget(submission_ids[0])
    vacuum()
    score_all_s, scored = timed(sessions_score_pending)
    vacuum()
    stored_s, old_s = [], []
    for _ in range(args.repeat):
        seconds, old_rows = timed(rows_rescoring_everything)
        old_s.append(seconds)
        seconds, stored_rows = timed(signal_rows)
        stored_s.append(seconds)
    with tempfile.TemporaryDirectory() as tmp:
        sessions = generate_sessions(args.new, seed=args.seed + 1)
        path = write_sessions_bundle(Path(tmp) / "new-sessions.tar.gz", sessions)
        _, submission = ingest(path)
    submission_ids.append(submission.pk)
    # The eager recompute on commit has scored them already: time that work again.
    scores_forget(submission.pk)
    vacuum()
    incremental_s, incremental_rows = timed(signal_rows)
    old_after_s, old_after_rows = timed(rows_rescoring_everything)
    return {
        "scored": scored,
        "score_all_s": score_all_s,
        "stored_s": min(stored_s),
        "old_s": min(old_s),
        # The old path has no agent view (signal_rows appends its rows after the models').
        "identical": stored_rows[: len(old_rows)] == old_rows
        and incremental_rows[: len(old_after_rows)] == old_after_rows,
        "incremental_s": incremental_s,
        "old_after_s": old_after_s,
    }


def report_stored(args, stored: dict[str, Any]) -> None:
    print(f"-- sessions scored once (best of {args.repeat}, interleaved) --")
    print(f"scoring every session once ({stored['scored']:,}): {stored['score_all_s']:.2f} s")
    print(f"full signal recompute, scores stored:  {stored['stored_s']:.2f} s")
    print(f"full signal recompute, rescoring all:  {stored['old_s']:.2f} s")
    print(f"ratio stored / rescoring all:          {stored['stored_s'] / stored['old_s']:.3f}")
    print(f"incremental after {args.new:,} new sessions: {stored['incremental_s']:.2f} s "
          f"(rescoring all then: {stored['old_after_s']:.2f} s, "
          f"ratio {stored['incremental_s'] / stored['old_after_s']:.3f})")  # fmt: skip
    print(f"figures identical to rescoring all:    {stored['identical']}")
    if not stored["identical"]:  # a wrong figure, not a slow one: the bench fails
        raise SystemExit("the stored scores' figures differ from rescoring every session")


def report(args, count, turns, ingest_s, load_s, rows_s, row_count, comparison) -> None:
    ratio = comparison["mc_s"] / comparison["closed_s"]
    print(f"sessions (counted, loaded):     {count:,} ({turns / max(count, 1):.1f} turns each)")
    print(f"ingest (validate+label+COPY):   {ingest_s:.2f} s")
    print(f"load_sessions (stream out):     {load_s:.2f} s")
    print(f"signal_rows (score pending + aggregate + NIR, every slice): {rows_s:.2f} s"
          f"   (target <= 30 s; {row_count} rows)")  # fmt: skip
    print(f"NIR closed form, every model:   {comparison['closed_s'] * 1e3:.2f} ms")
    print(f"NIR Monte Carlo, {args.shuffles:,} shuffles: {comparison['mc_s']:.2f} s")
    print(f"ratio Monte Carlo / closed form: {ratio:,.0f}x   (target >= 100x)")
    worst = 0.0
    for model, nir_se, sd_se in comparison["agreement"]:
        worst = max(worst, nir_se, sd_se)
        print(f"  {model:<20} |NIR diff| = {nir_se:.2f} SE, |sd diff| = {sd_se:.2f} SE")
    verdict = "agree" if worst < AGREEMENT_SE else "DISAGREE"
    print(f"closed form and Monte Carlo {verdict} within {AGREEMENT_SE:.0f} MC standard errors")
    print(f"peak memory:                    {peak_rss_mb():.0f} MB")


if __name__ == "__main__":
    main()
