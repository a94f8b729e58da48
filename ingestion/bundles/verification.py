"""Verified results: a verifier's Ed25519 signature over the SHA-256 of each results file.

A bundle archive may carry `verification.json` at its root (docs/bundle-verification.md):

    {"format": "arena-verification/2", "verifier": "<registered name>",
     "account": "<uploader's username>", "harness": "<the manifest's harness name>",
     "files": {"manifest.json": "<sha256 hex>", "runs.jsonl": "<sha256 hex>"},
     "signature": "<base64 Ed25519 signature of signed_bytes(...)>"}

The signed bytes are `signed_bytes(account, harness, files)`: the UTF-8 of
"arena-verification/2\\n", "account <JSON string>\\n", "harness <JSON string>\\n", then
one line "<sha256 hex>  <path>\\n" per signed file, sorted by path. The account and the
harness are signed so that a signature is good for one uploader's results of one harness
only: another account that repacks a signed bundle as its own is refused ("account
mismatch"), and editing the account breaks the signature.

The checks are split in two so that a bundle that can never be Verified is refused
before a row is written: `check_statement` (format, files listed, verifier known and
active, signature) runs on verification.json alone; `check_digests` compares the
declared digests with the ones computed while the records streamed.

Pure: no Django. `cryptography` does the Ed25519 work.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from ingestion.bundles.errors import BundleRejected, rejected
from ingestion.bundles.limits import (
    HARNESS_NAME_LENGTH,
    USERNAME_LENGTH,
    VERIFICATION_FILE,
    VERIFIER_NAME_LENGTH,
)

FORMAT = "arena-verification/2"
# The files a signature covers, when the bundle has them: the results, and the manifest
# that says whose they are (else a verified runs.jsonl could be put under another
# harness and stay Verified). Trajectories are not covered.
SIGNED_FILES = ("manifest.json", "runs.jsonl", "sessions.jsonl")
# verification.json is four short fields; anything bigger is not one.
STATEMENT_MAX_BYTES = 64 * 1024
PUBLIC_KEY_BYTES = 32
_HEX_DIGEST = re.compile(r"[0-9a-f]{64}\Z")
_KEYS = frozenset({"format", "verifier", "account", "harness", "files", "signature"})


@dataclass(frozen=True)
class VerifierKey:
    """A registered verifier as the checks need it (the service reads it from the table)."""

    name: str
    public_key: str  # base64 of the raw 32-byte Ed25519 public key
    active: bool


@dataclass(frozen=True)
class Statement:
    """A parsed verification.json."""

    verifier: str
    account: str  # the username of the account whose upload it is
    harness: str  # the manifest's harness name ("" for a bundle that names none)
    files: dict[str, str]  # signed file path → lowercase SHA-256 hex
    signature: bytes


VerifierLookup = Callable[[str], VerifierKey | None]


# ------------------------------------------------------------------ the signed bytes


def signed_bytes(*, account: str, harness: str, files: Mapping[str, str]) -> bytes:
    """Exactly what a verifier signs: the format line, the account and the harness (as
    JSON strings, so no name can add a line), then "<hex>  <path>" per file, sorted by
    path (the layout of `sha256sum`)."""
    lines = [
        f"{FORMAT}\n",
        f"account {json.dumps(account)}\n",
        f"harness {json.dumps(harness)}\n",
        *(f"{files[path]}  {path}\n" for path in sorted(files)),
    ]
    return "".join(lines).encode("utf-8")


# ------------------------------------------------------------------------- errors


def verification_error(message: str, field: str = "") -> BundleRejected:
    """A rejection naming verification.json; each message starts with its cause."""
    return rejected(VERIFICATION_FILE, message, field=field)


def only_archives_error(name: str) -> BundleRejected:
    """A JSON document has no files to hash: only archives can be Verified."""
    return rejected(
        name,
        "verification is only possible for an archive bundle (.tar.gz or .zip with "
        f"{VERIFICATION_FILE}); a JSON document cannot be Verified",
        field="verification",
    )


# ------------------------------------------------------------------------ parsing


def parse_statement(data: bytes) -> Statement:
    """verification.json, checked for shape; raises a "malformed verification.json" or
    "unsupported verification format" rejection."""
    try:
        top = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise verification_error(f"malformed verification.json: not valid JSON ({exc})") from exc
    if not isinstance(top, dict):
        raise verification_error("malformed verification.json: must be a JSON object")
    if top.get("format") != FORMAT:
        raise verification_error(
            f"unsupported verification format {top.get('format')!r}: expected {FORMAT!r}",
            field="format",
        )
    unknown = sorted(set(top) - _KEYS)
    if unknown:
        raise verification_error(f"malformed verification.json: unknown keys {unknown}")
    return Statement(
        verifier=_verifier_name(top.get("verifier")),
        account=_name(top.get("account"), "account", USERNAME_LENGTH, "the uploader's username"),
        harness=_name(
            top.get("harness"),
            "harness",
            HARNESS_NAME_LENGTH,
            "the manifest's harness name",
            empty=True,
        ),
        files=_files(top.get("files")),
        signature=_signature(top.get("signature")),
    )


def _malformed(field: str, problem: str) -> BundleRejected:
    return verification_error(f"malformed verification.json: {problem}", field=field)


def _verifier_name(value: object) -> str:
    if not isinstance(value, str) or not value.strip():
        raise _malformed("verifier", "must be a verifier's registered name")
    if len(value) > VERIFIER_NAME_LENGTH:
        raise _malformed("verifier", f"is longer than {VERIFIER_NAME_LENGTH} characters")
    return value


def _name(value: object, field: str, length: int, what: str, *, empty: bool = False) -> str:
    if not isinstance(value, str) or not (empty or value.strip()):
        raise _malformed(field, f"must be {what} (a string)")
    if len(value) > length:
        raise _malformed(field, f"is longer than {length} characters")
    return value


def _files(value: object) -> dict[str, str]:
    if not isinstance(value, dict) or not value:
        raise _malformed("files", "must be an object of results file → SHA-256 hex")
    for path, digest in value.items():
        if path not in SIGNED_FILES:
            raise _malformed("files", f"{path!r} is not a signed file ({', '.join(SIGNED_FILES)})")
        if not isinstance(digest, str) or not _HEX_DIGEST.match(digest):
            raise _malformed(f"files.{path}", "must be 64 lowercase hex digits (a SHA-256)")
    return dict(value)


def _signature(value: object) -> bytes:
    try:
        if not isinstance(value, str):
            raise ValueError
        signature = base64.b64decode(value, validate=True)
    except (ValueError, binascii.Error) as exc:
        raise _malformed("signature", "must be base64 of a 64-byte Ed25519 signature") from exc
    if len(signature) != 64:
        raise _malformed("signature", "must be base64 of a 64-byte Ed25519 signature")
    return signature


def public_key_load(text: str) -> Ed25519PublicKey:
    """A registered key: base64 of the raw 32-byte Ed25519 public key. ValueError if not."""
    try:
        raw = base64.b64decode(text.strip(), validate=True)
    except (ValueError, binascii.Error) as exc:
        raise ValueError("not valid base64") from exc
    if len(raw) != PUBLIC_KEY_BYTES:
        raise ValueError(f"decodes to {len(raw)} bytes; an Ed25519 public key is 32")
    return Ed25519PublicKey.from_public_bytes(raw)


# ------------------------------------------------------------------------- checks


def check_statement(
    statement: Statement,
    *,
    present: Iterable[str],
    lookup: VerifierLookup,
    account: str,
    harness: str,
) -> VerifierKey:
    """The active verifier whose valid signature the statement carries; raises a named
    rejection otherwise. `present`: the signed files the bundle holds; `account`: the
    uploader's username; `harness`: the manifest's harness name ("" if none)."""
    present = set(present) & set(SIGNED_FILES)
    listed = set(statement.files)
    if uncovered := sorted(present - listed):
        raise verification_error(
            f"file not covered: {uncovered[0]} is in the bundle but not in files",
            field="files",
        )
    if missing := sorted(listed - present):
        raise verification_error(
            f"missing file: files lists {missing[0]}, which the bundle lacks",
            field="files",
        )
    if statement.account != account:
        raise verification_error(
            f"account mismatch: signed for account {statement.account!r}, uploaded by"
            f" {account!r} (a signature is good for the account it names only)",
            field="account",
        )
    if statement.harness != harness:
        raise verification_error(
            f"harness mismatch: signed for harness {statement.harness!r}, the manifest"
            f" names {harness!r}",
            field="harness",
        )
    key = lookup(statement.verifier)
    if key is None:
        raise verification_error(
            f"unknown verifier {statement.verifier!r}: no verifier of that name is registered",
            field="verifier",
        )
    if not key.active:
        raise verification_error(
            f"inactive verifier {statement.verifier!r}: its signatures are no longer accepted",
            field="verifier",
        )
    try:
        signed = signed_bytes(account=account, harness=harness, files=statement.files)
        public_key_load(key.public_key).verify(statement.signature, signed)
    except (InvalidSignature, ValueError) as exc:
        raise verification_error(
            f"bad signature: not made by verifier {statement.verifier!r}'s key over this"
            " account, harness and these digests",
            field="signature",
        ) from exc
    return key


def check_digests(statement: Statement, digests: Mapping[str, str]) -> None:
    """Each results file must hash to what the verifier signed: else it was tampered."""
    for path in sorted(statement.files):
        actual = digests.get(path)
        if actual != statement.files[path]:
            raise verification_error(
                f"digest mismatch: {path} has SHA-256 {actual}, the verifier signed "
                f"{statement.files[path]} (the file was changed after signing)",
                field=f"files.{path}",
            )


# ------------------------------------------------------------------------ signing


def statement_sign(
    *, verifier: str, account: str, harness: str, files: Mapping[str, str], key: Ed25519PrivateKey
) -> bytes:
    """The verification.json a verifier adds for `account`'s upload: deterministic."""
    signature = key.sign(signed_bytes(account=account, harness=harness, files=files))
    document = {
        "format": FORMAT,
        "verifier": verifier,
        "account": account,
        "harness": harness,
        "files": dict(sorted(files.items())),
        "signature": base64.b64encode(signature).decode("ascii"),
    }
    return (json.dumps(document, indent=2) + "\n").encode("utf-8")


def private_key_load(data: bytes) -> Ed25519PrivateKey:
    """A verifier's key file: PEM (PKCS#8, as `openssl genpkey -algorithm ed25519` and
    `sign_bundle --generate-key` write it) or base64 of the raw 32-byte private key.
    ValueError if it is neither."""
    text = data.strip()
    if text.startswith(b"-----BEGIN"):
        key = serialization.load_pem_private_key(text, password=None)
        if not isinstance(key, Ed25519PrivateKey):
            raise ValueError("the PEM key is not an Ed25519 private key")
        return key
    try:
        raw = base64.b64decode(text, validate=True)
    except (ValueError, binascii.Error) as exc:
        raise ValueError("neither a PEM private key nor base64 of 32 raw bytes") from exc
    if len(raw) != 32:
        raise ValueError(f"base64 key decodes to {len(raw)} bytes; an Ed25519 key is 32")
    return Ed25519PrivateKey.from_private_bytes(raw)


def private_key_pem(key: Ed25519PrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


def public_key_text(key: Ed25519PrivateKey | Ed25519PublicKey) -> str:
    """What an admin registers: base64 of the raw 32-byte public key."""
    public = key.public_key() if isinstance(key, Ed25519PrivateKey) else key
    raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return base64.b64encode(raw).decode("ascii")
