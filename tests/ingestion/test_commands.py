"""`manage.py ingest` and `seed_demo`: exit codes, output, the same service underneath."""

from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command

from ingestion.models import Run, Submission
from tests.builders import EXAMPLE_RUN_BUNDLES, late_bundle
from tests.conftest import INVALID_DIR

pytestmark = pytest.mark.django_db(transaction=True)


def test_it_ingests_a_bundle_and_prints_the_counts(registry, staff, capsys):
    call_command("ingest", str(EXAMPLE_RUN_BUNDLES[0]), user="staff")
    out = capsys.readouterr().out
    submission = Submission.objects.get()
    assert f"submission {submission.pk} ingested: 300 runs, 0 sessions" in out
    assert submission.uploader == staff


def test_it_exits_1_and_prints_errors_as_file_line_field_message(registry, staff, capsys):
    with pytest.raises(SystemExit) as exit_info:
        call_command("ingest", str(INVALID_DIR / "negative-cost.tar.gz"), user="staff")
    assert exit_info.value.code == 1
    err = capsys.readouterr().err
    assert "runs.jsonl:" in err
    assert ": cost_usd: " in err
    assert Run.objects.count() == 0


def test_it_says_so_when_the_bytes_were_uploaded_before(registry, staff, capsys):
    call_command("ingest", str(EXAMPLE_RUN_BUNDLES[0]), user="staff")
    call_command("ingest", str(EXAMPLE_RUN_BUNDLES[0]), user="staff")
    assert "already uploaded: submission" in capsys.readouterr().out
    assert Submission.objects.count() == 1


def test_it_fails_clearly_for_a_missing_path_or_user(registry, staff, tmp_path):
    with pytest.raises(CommandError, match="no such file"):
        call_command("ingest", str(tmp_path / "nope.tar.gz"), user="staff")
    with pytest.raises(CommandError, match="no user 'ghost'"):
        call_command("ingest", str(EXAMPLE_RUN_BUNDLES[0]), user="ghost")


def test_it_seeds_the_demo_data_idempotently(capsys):
    call_command("seed_demo")
    call_command("seed_demo")
    # Five run bundles of 300 runs, Sprint's 60 (12 tasks × 5 trials: the demo's
    # incomplete entry), OpenHarness 0.9.3's 150 (its next version on one model) and the
    # sessions bundle.
    assert Submission.objects.filter(status="ingested").count() == 8
    assert Run.objects.count() == 1710
    assert "already there" in capsys.readouterr().out


def test_it_prints_20_errors_then_one_line_per_cause_with_its_count(
    registry, staff, tmp_path, capsys
):
    path = tmp_path / "late.tar.gz"
    path.write_bytes(late_bundle(trials=200))
    with pytest.raises(SystemExit):
        call_command("ingest", str(path), user="staff")
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 21
    assert err[0] == "runs.jsonl:1: suite_version: suite late-bench 1.0.0 is not in the registry"
    assert err[-1] == (
        "runs.jsonl: suite_version: suite late-bench 1.0.0 is not in the registry — 180 more lines"
    )


def test_it_checks_a_valid_bundle_exits_0_and_stores_nothing(registry, staff, capsys):
    call_command("ingest", str(EXAMPLE_RUN_BUNDLES[0]), "--check", user="staff")
    out = capsys.readouterr().out
    assert "check: valid; nothing was stored. An upload would add 300 runs and 0 sessions" in out
    assert "suites: " in out
    assert not Submission.objects.exists()
    assert not Run.objects.exists()


def test_it_checks_an_invalid_bundle_exits_1_with_the_named_errors(registry, staff, capsys):
    with pytest.raises(SystemExit) as exit_info:
        call_command("ingest", str(INVALID_DIR / "negative-cost.tar.gz"), "--check", user="staff")
    assert exit_info.value.code == 1
    captured = capsys.readouterr()
    assert "check: invalid" in captured.out
    assert ": cost_usd: " in captured.err
    assert not Submission.objects.exists()
