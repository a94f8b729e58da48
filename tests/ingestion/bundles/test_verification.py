"""verification.json: the signed bytes, and each way a signature is accepted or refused
(pure: no database; the verifiers are looked up in a dict)."""

from __future__ import annotations

import base64
import hashlib
import json

import pytest

from ingestion.bundles import BundleRejected
from ingestion.bundles.verification import (
    VerifierKey,
    check_digests,
    check_statement,
    private_key_load,
    public_key_load,
    signed_bytes,
)
from tests.ingestion.bundles.archives import (
    a_run,
    bundle_files,
    json_document,
    opened,
    tar_gz,
    zip_bytes,
)
from tests.ingestion.bundles.signing import (
    ACCOUNT,
    OTHER_KEY,
    VERIFIER,
    expected_signed_bytes,
    private_key_pem,
    public_key,
    signed,
    tampered,
    verification_json,
)

FILES = bundle_files(runs=[a_run(1), a_run(2, outcome="fail")])
REGISTERED = {VERIFIER: VerifierKey(VERIFIER, public_key(), active=True)}


def lookup(name: str) -> VerifierKey | None:
    return REGISTERED.get(name)


def verify(
    files: dict[str, bytes], container=tar_gz, lookup=lookup, account: str = ACCOUNT
) -> VerifierKey:
    """What the ingest does for `account`'s upload: check the statement, stream the
    records, compare digests."""
    with opened(container(files)) as bundle:
        statement = bundle.verification()
        key = check_statement(
            statement, present=bundle.signed_files(), lookup=lookup, account=account,
            harness=bundle.manifest.harness.name,
        )  # fmt: skip
        list(bundle.iter_runs(lambda *task: 1))
        bundle.raise_if_errors()
        check_digests(statement, bundle.results_digests())
    return key


def refusal(files: dict[str, bytes], **options) -> str:
    with pytest.raises(BundleRejected) as caught:
        verify(files, **options)
    [error] = caught.value.errors
    assert error.file == "verification.json"
    return error.message


def test_it_signs_the_format_the_account_the_harness_then_one_sha256sum_line_per_file():
    digests = {"sessions.jsonl": "b" * 64, "runs.jsonl": "a" * 64}
    names = {"account": "alice", "harness": 'Quill "2"'}
    assert signed_bytes(files=digests, **names) == (
        b"arena-verification/2\n"
        + b'account "alice"\n'
        + b'harness "Quill \\"2\\""\n'
        + b"a" * 64
        + b"  runs.jsonl\n"
        + b"b" * 64
        + b"  sessions.jsonl\n"
    )
    assert signed_bytes(files=digests, **names) == expected_signed_bytes(digests, **names)


def test_it_refuses_a_signed_bundle_repacked_under_another_account():
    message = refusal(signed(FILES), account="mallory")
    assert message == (
        f"account mismatch: signed for account {ACCOUNT!r}, uploaded by 'mallory'"
        " (a signature is good for the account it names only)"
    )


def test_it_refuses_a_statement_whose_account_was_edited_to_the_uploaders():
    statement = json.loads(verification_json(FILES))
    statement["account"] = "mallory"  # the signature was made for ACCOUNT
    repacked = {**FILES, "verification.json": json.dumps(statement).encode()}
    assert refusal(repacked, account="mallory").startswith("bad signature")


def test_it_refuses_a_signature_made_for_another_harness():
    message = refusal(signed(FILES, harness="Other Harness"))
    assert message.startswith("harness mismatch: signed for harness 'Other Harness'")


def test_it_refuses_the_earlier_format_that_named_no_account():
    earlier = verification_json(FILES, format="arena-verification/1")
    message = refusal({**FILES, "verification.json": earlier})
    assert message.startswith("unsupported verification format 'arena-verification/1'")


@pytest.mark.parametrize("container", [tar_gz, zip_bytes])
def test_it_accepts_a_good_signature_of_an_active_verifier(container):
    assert verify(signed(FILES), container=container).name == VERIFIER


def test_it_hashes_the_signed_files_byte_for_byte_as_stored():
    with opened(tar_gz(FILES)) as bundle:
        list(bundle.iter_runs(lambda *task: 1))
        assert bundle.results_digests() == {
            path: hashlib.sha256(FILES[path]).hexdigest()
            for path in ("manifest.json", "runs.jsonl")
        }


def test_it_refuses_a_results_file_changed_after_signing_naming_the_file():
    message = refusal(tampered(signed(FILES)))
    assert message.startswith("digest mismatch: runs.jsonl has SHA-256")
    assert "changed after signing" in message


def test_it_refuses_a_signature_made_with_another_key():
    message = refusal(signed(FILES, key=OTHER_KEY))
    assert message.startswith(f"bad signature: not made by verifier '{VERIFIER}'")


def test_it_refuses_digests_edited_to_match_a_tampered_file():
    forged = tampered(FILES)  # the new digest written in, the old signature kept
    statement = json.loads(verification_json(FILES))
    statement["files"] = json.loads(verification_json(forged))["files"]
    message = refusal({**forged, "verification.json": json.dumps(statement).encode()})
    assert message.startswith("bad signature")


def test_it_refuses_an_unknown_verifier():
    assert refusal(signed(FILES, verifier="Nobody")).startswith("unknown verifier 'Nobody'")


def test_it_refuses_an_inactive_verifier():
    inactive = {VERIFIER: VerifierKey(VERIFIER, public_key(), active=False)}
    message = refusal(signed(FILES), lookup=inactive.get)
    assert message.startswith(f"inactive verifier '{VERIFIER}'")


@pytest.mark.parametrize(
    ("content", "start"),
    [
        (b"{not json", "malformed verification.json: not valid JSON"),
        (b"[]", "malformed verification.json: must be a JSON object"),
        (verification_json(FILES, signature="%%%"), "malformed verification.json"),
        (verification_json(FILES, files={"runs.jsonl": "ABC"}), "malformed verification.json"),
        (verification_json(FILES, files={"trajectories/r.json": "a" * 64}), "malformed verif"),
        (verification_json(FILES, verifier=""), "malformed verification.json"),
        (verification_json(FILES, account=""), "malformed verification.json"),
        (verification_json(FILES, account=7), "malformed verification.json"),
        (verification_json(FILES, extra=1), "malformed verification.json: unknown keys"),
        (verification_json(FILES, format="arena-verification/9"), "unsupported verification"),
    ],
)
def test_it_refuses_a_malformed_verification_json(content, start):
    assert refusal({**FILES, "verification.json": content}).startswith(start)


def test_it_refuses_a_results_file_the_signature_does_not_cover():
    both = bundle_files(runs=[a_run(1)], sessions=[])
    runs_only = verification_json({k: both[k] for k in ("manifest.json", "runs.jsonl")})
    message = refusal({**both, "verification.json": runs_only})
    assert message.startswith("file not covered: sessions.jsonl")


def test_it_leaves_a_bundle_without_verification_json_unsigned():
    with opened(tar_gz(FILES)) as bundle:
        assert bundle.verification() is None


def test_it_refuses_a_json_document_that_claims_verification():
    document = json.loads(json_document(FILES))
    document["verification"] = json.loads(verification_json(FILES))
    with pytest.raises(BundleRejected) as caught, opened(json.dumps(document).encode()):
        pass
    assert "only possible for an archive bundle" in str(caught.value)


def test_it_reads_a_key_as_pem_or_as_base64_and_a_public_key_as_base64_of_32_bytes():
    message = b"m"
    for data in (private_key_pem(), base64.b64encode(bytes(range(32)))):
        public_key_load(public_key()).verify(private_key_load(data).sign(message), message)
    with pytest.raises(ValueError, match="32"):
        public_key_load("AAAA")
    with pytest.raises(ValueError, match="base64"):
        public_key_load("not base64!")


def test_it_refuses_a_signature_that_leaves_the_manifest_out():
    """The manifest says whose results they are: a verified runs.jsonl put under another
    harness must not stay Verified."""
    unsigned_manifest = verification_json({"runs.jsonl": FILES["runs.jsonl"]})
    message = refusal({**FILES, "verification.json": unsigned_manifest})
    assert message.startswith("file not covered: manifest.json")


def test_it_refuses_a_verified_result_moved_under_another_harness():
    signed_files = signed(FILES)
    moved = {
        **signed_files,
        "manifest.json": signed_files["manifest.json"].replace(b"TestHarness", b"Impostor"),
    }
    assert refusal(moved).startswith("harness mismatch: signed for harness 'TestHarness'")
    # Any other change to the manifest (its version, say) breaks its digest.
    bumped = {
        **signed_files,
        "manifest.json": signed_files["manifest.json"].replace(b"1.0.0", b"9"),
    }
    assert refusal(bumped).startswith("digest mismatch: manifest.json")
