"""`manage.py sign_bundle`: a verifier signs a bundle archive, or makes its key pair.

    manage.py sign_bundle --generate-key verifier.pem      # prints the public key to register
    manage.py sign_bundle bundle.tar.gz --key verifier.pem --verifier "Acme Labs" \
        --account USERNAME [--out OUT]

Signing copies every regular file of the archive into a new archive of the same kind
(tar.gz or zip) and adds verification.json at its root (docs/bundle-verification.md):
the signed files are hashed while they are copied, so the archive is read once. The
signature names the account that will upload the bundle (`--account`, its username)
and the harness its manifest names: it is good for that account's upload only. The
output is deterministic: the same input and key give the same bytes (fixed times,
owners and modes; Ed25519 signatures are deterministic). A verification.json already
in the input is replaced. The output is written to a temporary file and renamed, so a
failure leaves nothing behind.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import re
import tarfile
import tempfile
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.core.management.base import BaseCommand, CommandError

from ingestion.bundles import BundleRejected, open_archive
from ingestion.bundles.container import Container
from ingestion.bundles.limits import (
    USERNAME_LENGTH,
    USERNAME_PATTERN,
    VERIFICATION_FILE,
    VERIFIER_NAME_LENGTH,
)
from ingestion.bundles.verification import (
    SIGNED_FILES,
    private_key_load,
    private_key_pem,
    public_key_text,
    statement_sign,
)
from ingestion.services.processing import bundle_limits

# Zip cannot store times before 1980; tar gets the epoch. Either way, no clock leaks in.
ZIP_EPOCH = (1980, 1, 1, 0, 0, 0)
FILE_MODE = 0o644
MANIFEST = "manifest.json"


class Command(BaseCommand):
    help = (
        "Sign a bundle archive (.tar.gz or .zip) as a registered verifier: adds "
        f"{VERIFICATION_FILE} with the SHA-256 of its manifest and results files and an "
        "Ed25519 signature, good only for the account --account names (the one that will "
        "upload it). --generate-key KEYFILE makes a key pair and prints the public key."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("bundle", nargs="?", type=Path, help="the bundle archive to sign")
        parser.add_argument("--key", type=Path, help="Ed25519 private key (PEM, or base64 raw)")
        parser.add_argument("--verifier", help="the verifier's registered name")
        parser.add_argument(
            "--account", help="the username of the account that will upload the signed bundle"
        )
        parser.add_argument(
            "--out", type=Path, help="signed archive (default: <name>.signed.<ext> beside it)"
        )
        parser.add_argument(
            "--generate-key", type=Path, metavar="KEYFILE", help="write a new key pair's PEM here"
        )

    def handle(self, *args, **options) -> None:
        # call_command passes options as given: paths may arrive as str.
        bundle, key_file, out, generate_key = (
            None if options[name] is None else Path(options[name])
            for name in ("bundle", "key", "out", "generate_key")
        )
        if generate_key is not None:
            if bundle is not None:
                raise CommandError("--generate-key makes a key; sign a bundle in another call")
            self._generate(generate_key)
            return
        if bundle is None or key_file is None or not options["verifier"] or not options["account"]:
            raise CommandError(
                "give a BUNDLE, --key KEYFILE, --verifier NAME and --account USERNAME"
                " (the account that will upload it)"
            )
        verifier = _verifier_name(options["verifier"])
        account = _account_name(options["account"])
        key = _key_read(key_file)
        out = out or _default_out(bundle)
        if out.resolve() == bundle.resolve():
            raise CommandError("--out must differ from the bundle: the input is never changed")
        covered = bundle_sign(bundle, out, key=key, verifier=verifier, account=account)
        self.stdout.write(
            f"Signed {', '.join(covered)} as {verifier!r} for account {account!r} → {out}\n"
            f"Public key (register it in the admin): {public_key_text(key)}"
        )

    def _generate(self, path: Path) -> None:
        key = Ed25519PrivateKey.generate()
        try:
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError as exc:
            raise CommandError(f"{path} exists; a key file is never overwritten") from exc
        except OSError as exc:
            raise CommandError(f"cannot write {path}: {exc.strerror}") from exc
        with os.fdopen(descriptor, "wb") as out:
            out.write(private_key_pem(key))
        self.stdout.write(public_key_text(key))
        self.stderr.write(
            f"Private key written to {path} (keep it secret). Register the public key above "
            "as a Verifier in the admin."
        )


def bundle_sign(
    source: Path, out: Path, *, key: Ed25519PrivateKey, verifier: str, account: str
) -> list[str]:
    """Write `out`: `source`'s files plus a verification.json signed for `account`'s
    upload. Returns the files covered. Raises CommandError for an archive that cannot be
    signed."""
    try:
        container = open_archive(source, limits=bundle_limits(), name=source.name)
    except BundleRejected as exc:
        raise CommandError(f"cannot sign {source}: {exc} (only archives can be signed)") from exc
    except OSError as exc:
        raise CommandError(f"cannot read {source}: {exc.strerror}") from exc
    try:
        covered = [path for path in SIGNED_FILES if path in container.files]
        if not {"runs.jsonl", "sessions.jsonl"} & set(covered):
            raise CommandError(f"{source} has neither runs.jsonl nor sessions.jsonl at its root")
        writer = _tar_gz_write if container.kind == "tar.gz" else _zip_write
        signer = _Signer(key=key, verifier=verifier, account=account)
        _write_atomically(out, lambda target: writer(container, target, signer))
    except BundleRejected as exc:
        raise CommandError(f"cannot sign {source}: {exc}") from exc
    finally:
        container.close()
    return covered


def _verifier_name(name: str) -> str:
    if not name.strip() or len(name) > VERIFIER_NAME_LENGTH:
        raise CommandError(f"--verifier must be 1 to {VERIFIER_NAME_LENGTH} characters")
    return name


def _account_name(name: str) -> str:
    if not re.match(USERNAME_PATTERN, name) or len(name) > USERNAME_LENGTH:
        raise CommandError(f"--account must be a username (at most {USERNAME_LENGTH} characters)")
    return name


class _Signer:
    """The statement for the files copied: their digests, and the harness name of the
    manifest among them (kept while it is copied; "" when it names none)."""

    def __init__(self, *, key: Ed25519PrivateKey, verifier: str, account: str):
        self.key, self.verifier, self.account = key, verifier, account
        self.digests: dict[str, str] = {}
        self.manifest = b""

    def statement(self) -> bytes:
        return statement_sign(
            verifier=self.verifier, account=self.account, harness=self._harness(),
            files=self.digests, key=self.key,
        )  # fmt: skip

    def _harness(self) -> str:
        try:
            harness = json.loads(self.manifest).get("harness") if self.manifest else None
        except (ValueError, AttributeError) as exc:
            raise CommandError(f"cannot sign: manifest.json is not a JSON object ({exc})") from exc
        name = harness.get("name") if isinstance(harness, dict) else None
        return name if isinstance(name, str) else ""


def _key_read(path: Path) -> Ed25519PrivateKey:
    try:
        return private_key_load(path.read_bytes())
    except OSError as exc:
        raise CommandError(f"cannot read the key {path}: {exc.strerror}") from exc
    except (ValueError, TypeError) as exc:
        raise CommandError(f"{path} is not an Ed25519 private key: {exc}") from exc


def _default_out(bundle: Path) -> Path:
    name = bundle.name
    for ext in (".tar.gz", ".tgz", ".zip"):
        if name.endswith(ext):
            return bundle.with_name(f"{name[: -len(ext)]}.signed{ext}")
    return bundle.with_name(f"{name}.signed")


def _write_atomically(out: Path, write) -> None:
    descriptor, temporary = tempfile.mkstemp(dir=out.parent, prefix=f".{out.name}.")
    try:
        with os.fdopen(descriptor, "wb") as target:
            write(target)
        os.replace(temporary, out)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _files_hashed(container: Container, signer: _Signer) -> Iterator[tuple[str, Iterator]]:
    """(path, chunks) of every file but an old verification.json; the signed files'
    SHA-256 land in the signer's digests as each is consumed."""
    for path, chunks in container.iter_files():
        if path == VERIFICATION_FILE:
            for _ in chunks:  # skipped, but a tar stream must be read past it
                pass
            continue
        yield path, (_hashing(chunks, path, signer) if path in SIGNED_FILES else chunks)


def _hashing(chunks: Iterator[bytes], path: str, signer: _Signer) -> Iterator[bytes]:
    digest = hashlib.sha256()
    kept = []
    for chunk in chunks:
        digest.update(chunk)
        if path == MANIFEST:  # small (the limits table bounds it): read for its harness
            kept.append(chunk)
        yield chunk
    signer.digests[path] = digest.hexdigest()
    if path == MANIFEST:
        signer.manifest = b"".join(kept)


def _tar_gz_write(container: Container, target: BinaryIO, signer: _Signer) -> None:
    with (
        gzip.GzipFile(fileobj=target, mode="wb", mtime=0, filename="") as packed,
        tarfile.open(fileobj=packed, mode="w", format=tarfile.PAX_FORMAT) as tar,
    ):
        for path, chunks in _files_hashed(container, signer):
            reader = _ChunkReader(chunks)
            tar.addfile(_tar_info(path, container.files[path]), reader)
            reader.finish()  # tarfile reads the declared size; the hash waits for the end
        statement = signer.statement()
        tar.addfile(_tar_info(VERIFICATION_FILE, len(statement)), _ChunkReader(iter([statement])))


def _tar_info(path: str, size: int) -> tarfile.TarInfo:
    info = tarfile.TarInfo(path)
    info.size, info.mode, info.mtime = size, FILE_MODE, 0
    return info


def _zip_write(container: Container, target: BinaryIO, signer: _Signer) -> None:
    with zipfile.ZipFile(target, "w") as archive:
        for path, chunks in _files_hashed(container, signer):
            with archive.open(_zip_info(path, container.files[path]), "w") as member:
                for chunk in chunks:
                    member.write(chunk)
        statement = signer.statement()
        archive.writestr(_zip_info(VERIFICATION_FILE, len(statement)), statement)


def _zip_info(path: str, size: int) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(path, date_time=ZIP_EPOCH)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.create_system = 3  # Unix, whatever machine signs
    info.external_attr = FILE_MODE << 16
    info.file_size = size  # lets zipfile choose zip64 up front for a large member
    return info


class _ChunkReader:
    """A file-like `read(n)` over a stream of chunks, for tarfile.addfile."""

    def __init__(self, chunks: Iterator[bytes]):
        self._chunks = chunks
        self._chunk = b""
        self._pos = 0

    def finish(self) -> None:
        if self._pos < len(self._chunk) or next(self._chunks, None) is not None:
            raise BundleRejected("a member is longer than its header says")

    def read(self, size: int = -1) -> bytes:
        parts: list[bytes] = []
        while size != 0:
            if self._pos >= len(self._chunk):
                self._chunk, self._pos = next(self._chunks, b""), 0
                if not self._chunk:
                    break
            end = len(self._chunk) if size < 0 else min(len(self._chunk), self._pos + size)
            parts.append(self._chunk[self._pos : end])
            size = size if size < 0 else size - (end - self._pos)
            self._pos = end
        return b"".join(parts)
