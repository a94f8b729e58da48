"""Provenance bench: the signal boards' per-account groups against the stored-score read.

    python bench/provenance.py [--sessions 20000] [--accounts 8] [--repeat 3]

Generates sessions (bench/gen_sessions.py), ingests them as --accounts bundles, one per
account, scores them once (signal_rows), then times, interleaved and best of --repeat:
* the stored-score read the signal recompute already makes (signalboard.scored: one
  row per session, streamed into columns), the baseline;
* signal_provenance (signalboard.provenance: one GROUP BY per (model, account, stratum),
  then the closed forms per concentrated model).
The ratio says what provenance adds to a signal recompute. It also times the stored-score
read without the session conflict rule, to say what the rule costs that read.
Everything it creates is deleted at the end.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._django import setup

ACCOUNT = "bench-provenance-{}"
# No excluded pair: the stored-score read as it was before the session conflict rule.
NO_PAIRS = "SELECT NULL::bigint AS account_id, NULL::bigint AS model_id WHERE false"


def best(repeat: int, function) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        function()
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=20_000)
    parser.add_argument("--accounts", type=int, default=8)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import transaction
    from psycopg import sql

    from bench.gen_sessions import generate_sessions
    from bench.signals import DELETE_SQL, write_sessions_bundle
    from ingestion.models import LanguageModel
    from ingestion.services.intake import submission_ingest
    from leaderboard.signalboard.compute import signal_rows
    from leaderboard.signalboard.loading import stream_rows
    from leaderboard.signalboard.provenance import signal_provenance
    from leaderboard.signalboard.scored import _SCORED_TEMPLATE, scored_views

    call_command("migrate", verbosity=0)
    models_before = set(LanguageModel.objects.values_list("name", flat=True))
    sessions = list(generate_sessions(args.sessions, seed=args.seed))
    submission_ids = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for index in range(args.accounts):
                user, _ = get_user_model().objects.update_or_create(
                    username=ACCOUNT.format(index), defaults={"is_staff": True}
                )
                part = sessions[index :: args.accounts]
                path = write_sessions_bundle(Path(tmp) / f"part-{index}.tar.gz", part)
                submission, _ = submission_ingest(upload=path, user=user, filename=path.name)
                assert submission.status == "ingested", submission.errors[:5]
                submission_ids.append(submission.pk)
        signal_rows()  # scores every session once

        def read_scores() -> None:
            with transaction.atomic():
                scored_views()

        def read_scores_without_rule() -> None:
            # The same read before the session conflict rule existed.
            with transaction.atomic():
                query = _SCORED_TEMPLATE.format(excluded_pairs=sql.SQL(NO_PAIRS))
                list(stream_rows(query, params))

        def provenance() -> None:
            with transaction.atomic():
                signal_provenance()

        params = {"status": "ingested"}
        baseline = provenance_s = without_rule = float("inf")
        for _ in range(args.repeat):  # interleaved, so all see the same machine load
            baseline = min(baseline, best(1, read_scores))
            provenance_s = min(provenance_s, best(1, provenance))
            without_rule = min(without_rule, best(1, read_scores_without_rule))
        with transaction.atomic():
            groups = len(signal_provenance().uploaders)
        print(f"sessions {args.sessions}, accounts {args.accounts}, (model, account) rows {groups}")
        print(f"stored-score read (baseline): {baseline:.3f} s")
        print(
            f"signal_provenance:            {provenance_s:.3f} s = {provenance_s / baseline:.2f}x"
        )
        rule = baseline / without_rule
        print(f"the same read without the conflict rule: {without_rule:.3f} s ({rule:.2f}x)")
    finally:
        from django.db import connection

        with transaction.atomic(), connection.cursor() as cursor:
            for submission_id in submission_ids:
                for statement in DELETE_SQL:
                    cursor.execute(statement, [submission_id])
        LanguageModel.objects.exclude(name__in=models_before).filter(
            runs__isnull=True, sessions__isnull=True
        ).delete()
        get_user_model().objects.filter(
            username__startswith="bench-provenance-", submissions__isnull=True
        ).delete()


if __name__ == "__main__":
    main()
