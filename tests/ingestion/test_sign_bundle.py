"""`manage.py sign_bundle`: a verifier makes a key, an admin registers its public key,
the verifier signs a bundle, and the ingest marks it Verified."""

from __future__ import annotations

import io
import json
import tarfile
import zipfile

import pytest
from django.core.management import CommandError, call_command

from ingestion.models import Submission, Verifier
from ingestion.services.intake import submission_ingest
from tests.builders import harness_manifest, outcomes, tar_gz_bundle
from tests.ingestion.bundles.archives import tar_gz, zip_bytes
from tests.ingestion.bundles.signing import KEY, VERIFIER, private_key_pem, public_key

RUNS = outcomes("pass", "fail")


def sign(bundle, key, out=None, verifier=VERIFIER, account="staff") -> str:
    stdout = io.StringIO()
    options = {"key": str(key), "verifier": verifier, "account": account, "stdout": stdout}
    if out is not None:
        options["out"] = str(out)
    call_command("sign_bundle", str(bundle), **options)
    return stdout.getvalue()


def members(path) -> dict[str, bytes]:
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as archive:
            return {name: archive.read(name) for name in archive.namelist()}
    with tarfile.open(path) as tar:
        return {m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}


@pytest.mark.django_db
def test_it_generates_a_key_signs_and_the_ingest_marks_the_bundle_verified(
    tmp_path, registry, staff
):
    key_file = tmp_path / "verifier.pem"
    stdout, stderr = io.StringIO(), io.StringIO()
    call_command("sign_bundle", generate_key=str(key_file), stdout=stdout, stderr=stderr)
    Verifier.objects.create(name=VERIFIER, public_key=stdout.getvalue().strip())
    assert oct(key_file.stat().st_mode & 0o777) == "0o600"
    bundle = tmp_path / "bundle.tar.gz"
    bundle.write_bytes(tar_gz_bundle(harness_manifest(), RUNS))

    assert "runs.jsonl" in sign(bundle, key_file)
    signed = tmp_path / "bundle.signed.tar.gz"
    submission, _ = submission_ingest(upload=signed.read_bytes(), user=staff)

    assert submission.status == "ingested", submission.errors
    submission.refresh_from_db()
    assert submission.verification == Submission.Verification.VERIFIED
    assert submission.verifier.name == VERIFIER


@pytest.mark.parametrize(("container", "ext"), [(zip_bytes, "zip"), (tar_gz, "tar.gz")])
def test_it_copies_every_file_adds_verification_json_and_is_deterministic(tmp_path, container, ext):
    key_file = tmp_path / "key.pem"
    key_file.write_bytes(private_key_pem(KEY))
    files = {
        "manifest.json": json.dumps(harness_manifest()).encode(),
        "runs.jsonl": b'{"run_id": "r-1"}\n',
        "trajectories/r-1.json": b"[]",
    }
    bundle = tmp_path / f"b.{ext}"
    bundle.write_bytes(container(files))
    first, second = tmp_path / f"one.{ext}", tmp_path / f"two.{ext}"
    sign(bundle, key_file, first)
    sign(bundle, key_file, second)

    assert first.read_bytes() == second.read_bytes()
    out = members(first)
    statement = json.loads(out.pop("verification.json"))
    assert out == files
    # Whose results they are, too: the account that uploads them, and their harness.
    signed = (VERIFIER, "staff", "TestHarness", ["manifest.json", "runs.jsonl"])
    assert (
        statement["verifier"], statement["account"], statement["harness"],
        list(statement["files"]),
    ) == signed  # fmt: skip
    assert public_key(KEY) in sign(first, key_file, tmp_path / f"again.{ext}")  # re-signs


def test_it_refuses_what_it_cannot_sign_with_clear_errors(tmp_path):
    key_file = tmp_path / "key.pem"
    key_file.write_bytes(private_key_pem(KEY))
    json_bundle = tmp_path / "b.json"
    json_bundle.write_text('{"manifest": {}, "runs": []}')
    with pytest.raises(CommandError, match="only archives can be signed"):
        sign(json_bundle, key_file)
    no_results = tmp_path / "empty.tar.gz"
    no_results.write_bytes(tar_gz_bundle(harness_manifest()))
    with pytest.raises(CommandError, match=r"neither runs\.jsonl nor sessions\.jsonl"):
        sign(no_results, key_file)
    bad_key = tmp_path / "bad.pem"
    bad_key.write_text("hello")
    with pytest.raises(CommandError, match="not an Ed25519 private key"):
        sign(no_results, bad_key)
    with pytest.raises(CommandError, match="never overwritten"):
        call_command("sign_bundle", generate_key=str(key_file), stdout=io.StringIO())
    with pytest.raises(CommandError, match="--key"):
        call_command("sign_bundle", str(no_results))
    with pytest.raises(CommandError, match="--account USERNAME"):
        sign(no_results, key_file, account="")
    with pytest.raises(CommandError, match="--account must be a username"):
        sign(no_results, key_file, account="has space")


@pytest.mark.django_db
def test_it_signs_for_one_account_whose_upload_alone_is_verified(
    tmp_path, registry, staff, submitter
):
    key_file = tmp_path / "key.pem"
    key_file.write_bytes(private_key_pem(KEY))
    Verifier.objects.create(name=VERIFIER, public_key=public_key(KEY))
    bundle = tmp_path / "bundle.tar.gz"
    bundle.write_bytes(tar_gz_bundle(harness_manifest(), RUNS))
    assert "for account 'submitter'" in sign(bundle, key_file, account="submitter")
    signed = (tmp_path / "bundle.signed.tar.gz").read_bytes()

    borrowed, _ = submission_ingest(upload=signed, user=staff)
    assert borrowed.status == "rejected"
    assert borrowed.errors[0]["message"].startswith("account mismatch")
