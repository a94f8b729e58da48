"""Builders of signed bundles, written from docs/bundle-verification.md (not from the
code they test): a fixed verifier key, the verification.json a verifier adds, and the
ways a signed bundle goes wrong (a results file changed after signing, another key)."""

from __future__ import annotations

import base64
import hashlib
import json

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

VERIFIER = "Acme Evals"
# The account a builder signs for unless told otherwise: the staff persona, which most
# tests upload with.
ACCOUNT = "staff"
# Fixed seeds: the same key in every run, so a failure can be replayed.
KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
OTHER_KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(32, 64)))


def public_key(key: Ed25519PrivateKey = KEY) -> str:
    """What an admin registers: base64 of the raw 32-byte public key."""
    raw = key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return base64.b64encode(raw).decode()


def private_key_pem(key: Ed25519PrivateKey = KEY) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )  # fmt: skip


def expected_signed_bytes(digests: dict[str, str], *, account: str, harness: str) -> bytes:
    """The documented signed bytes, spelled out."""
    lines = "".join(f"{digests[path]}  {path}\n" for path in sorted(digests))
    names = f"account {json.dumps(account)}\nharness {json.dumps(harness)}\n"
    return f"arena-verification/2\n{names}{lines}".encode()


def harness_of(files: dict[str, bytes]) -> str:
    """The harness name the bundle's manifest.json gives ("" for none)."""
    manifest = json.loads(files.get("manifest.json", b"{}"))
    return (manifest.get("harness") or {}).get("name", "")


def verification_json(
    files: dict[str, bytes],
    /,
    *,
    verifier: str = VERIFIER,
    key: Ed25519PrivateKey = KEY,
    account: str = ACCOUNT,
    harness: str | None = None,
    **override,
) -> bytes:
    """verification.json over the signed files among `files`, for `account`'s upload of
    `harness` (by default the manifest's); `override` replaces keys."""
    harness = harness_of(files) if harness is None else harness
    digests = {
        path: hashlib.sha256(content).hexdigest()
        for path, content in files.items()
        if path in ("manifest.json", "runs.jsonl", "sessions.jsonl")
    }
    signature = key.sign(expected_signed_bytes(digests, account=account, harness=harness))
    document = {
        "format": "arena-verification/2",
        "verifier": verifier,
        "account": account,
        "harness": harness,
        "files": digests,
        "signature": base64.b64encode(signature).decode(),
        **override,
    }
    return json.dumps(document).encode()


def signed(files: dict[str, bytes], /, **options) -> dict[str, bytes]:
    """The bundle's files with a valid verification.json added (see `verification_json`)."""
    return {**files, "verification.json": verification_json(files, **options)}


def tampered(files: dict[str, bytes], path: str = "runs.jsonl") -> dict[str, bytes]:
    """A signed bundle whose results file changed after signing: its first failing run
    turned into a pass, as someone inflating a score would (or, with no failure, one
    byte of whitespace added: any change at all must be caught)."""
    content = files[path]
    if b'"fail"' in content:
        changed = content.replace(b'"fail"', b'"pass"', 1)
    else:
        changed = content.replace(b"{", b"{ ", 1)
    return {**files, path: changed}


def run_bundle_files(runs: list[dict], manifest: dict | None = None) -> dict[str, bytes]:
    """manifest.json and runs.jsonl of a bundle, as `tests.builders` lays them out."""
    from tests.builders import harness_manifest

    return {
        "manifest.json": json.dumps(manifest or harness_manifest()).encode(),
        "runs.jsonl": "".join(json.dumps(run) + "\n" for run in runs).encode(),
    }


def signed_bundle(
    runs: list[dict], *, manifest: dict | None = None, tamper: bool = False, **options
) -> bytes:
    """A .tar.gz of these runs signed by VERIFIER's KEY (or `verifier=`, `key=`); with
    `tamper`, runs.jsonl is changed after signing (refused as a digest mismatch)."""
    from tests.ingestion.bundles.archives import tar_gz

    files = signed(run_bundle_files(runs, manifest), **options)
    return tar_gz(tampered(files) if tamper else files)


def verifier_register(name: str = VERIFIER, key: Ed25519PrivateKey = KEY, *, active: bool = True):
    """A registered verifier (as an admin adds one); needs the database."""
    from ingestion.models import Verifier

    return Verifier.objects.create(name=name, public_key=public_key(key), active=active)
