"""Model merge benchmark: a merge costs what the merged groups cost, not a rebuild.

    python bench/merge.py [--runs 200000] [--merges 3]

Fills the configured database with generated runs (bench/recompute.py's generator: 40
harnesses, 5 models, one submission a harness), gives an unlisted model the runs of
one model in two of the submissions (1% of the runs) and merges it into a listed
model `--merges` times, each merge rolled back (so neither the recompute it announces
nor the next merge depends on the last). Reports the median merge as a ratio to a fresh
full rollup rebuild and to a fresh full recompute of every board over the same runs.
Everything it creates is deleted at the end.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._django import setup

SUBMISSIONS_PER_MERGE = 2


def unlisted_model_make():
    """An unlisted model holding one model's runs in two submissions."""
    from ingestion.models import LanguageModel, Run, Submission
    from ingestion.services.rollups import rollups_rebuild

    submissions = list(
        Submission.objects.filter(sha256__startswith="bench-").order_by("pk")[
            :SUBMISSIONS_PER_MERGE
        ]
    )
    model = LanguageModel.objects.create(name="bench-unlisted")
    runs = Run.objects.filter(submission__in=submissions, model__name="bench-m4")
    runs.update(model=model)
    rollups_rebuild(submission_ids=[s.pk for s in submissions])
    return model


def merge_seconds(source, target) -> tuple[float, int]:
    """One merge's time, rolled back: nothing it announces is ever committed."""
    from django.db import transaction

    from ingestion.services.language_models import models_merge

    with transaction.atomic():
        started = time.perf_counter()
        moved = models_merge(source=source, target=target)
        seconds = time.perf_counter() - started
        transaction.set_rollback(True)
    return seconds, moved


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200_000, help="runs generated")
    parser.add_argument("--merges", type=int, default=3, help="merges timed (median)")
    args = parser.parse_args()
    setup()
    from django.core.management import call_command

    from bench.recompute import cleanup, populate, timed
    from ingestion.models import LanguageModel
    from ingestion.services.rollups import rollups_rebuild
    from leaderboard.recompute.services import boards_recompute

    call_command("migrate", verbosity=0)
    call_command("load_registry", verbosity=0)
    cleanup()
    try:
        started = time.perf_counter()
        populate(args.runs)
        print(f"generated {args.runs:,} runs in {time.perf_counter() - started:.1f} s")
        rebuild = timed(rollups_rebuild, repeat=1)
        recompute = timed(boards_recompute, repeat=1)
        target = LanguageModel.objects.get(name="bench-m0")
        LanguageModel.objects.filter(pk=target.pk).update(listed=True)
        source = unlisted_model_make()
        samples = []
        for _ in range(args.merges):
            seconds, moved = merge_seconds(source, target)
            samples.append(seconds)
        merge = statistics.median(samples)
        print(f"runs moved by each merge:        {moved:,} ({moved / args.runs:.1%})")
        print(f"full rollup rebuild:             {rebuild:.2f} s")
        print(f"full recompute (every board):    {recompute:.2f} s")
        print(f"merge (median of {len(samples)}):            {merge:.3f} s")
        print(f"ratio merge / rollup rebuild:    {merge / rebuild:.3f}x")
        print(f"ratio merge / full recompute:    {merge / recompute:.3f}x")
    finally:
        cleanup()


if __name__ == "__main__":
    main()
