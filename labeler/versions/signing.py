"""Signing a version: who exported it, checkable anywhere with a public key.

A project has one Ed25519 key pair. Its private part is a 32-byte seed kept in the database
(``store.keys``), made when the database is created (migration 0009 made one for databases
created before); it is never printed, logged, exported or put in a URL: ``SigningKey`` hides it
from ``repr`` and only ever hands out signatures and the public key.

A version's ``signature.json`` sits beside its manifest::

    {"format": "labeler-signature/1", "algorithm": "Ed25519",
     "key": "SHA256:<base64 of the SHA-256 of the raw public key>",
     "public_key": "<base64 of the 32-byte raw public key>",
     "signed": {"name", "version", "content_hash",
                "fields": {manifest field: sha256 of its canonical JSON},
                "files": {file: sha256}},
     "signature": "<base64 of the 64-byte Ed25519 signature>"}

The signature is over ``b"labeler-signature/1\\n"`` followed by the canonical JSON of
``signed``: the content hash (which, in format labeler-testset/3, covers every manifest field
and every file), and a digest of each field and file, so that a check names what differs from
what was signed. Versions of the older formats, whose hash covers less, are signed by the same
rule: the digests then cover every field and file the hash does not.

The public key inside ``signature.json`` lets a copy be checked for consistency on its own, but
proves nothing about who signed it: anyone can sign with a key of their own. Trust comes from a
key known apart from the copy (``Trust``): ``--public-key FILE`` (from ``labeler key show`` or
``labeler key export-public``), or the project's own key when the command runs beside its
database.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from labeler.atomic import write_atomically
from labeler.errors import LabelerError
from labeler.readers import loads
from labeler.versions.format import SIGNATURE, canonical_json, sha256_hex

if TYPE_CHECKING:
    from labeler.store import Store

SIGNATURE_FORMAT = "labeler-signature/1"
ALGORITHM = "Ed25519"
DOMAIN = b"labeler-signature/1\n"
SEED_BYTES = 32
MAX_KEY_FILE = 64 * 1024
PEM_HEADER = "-----BEGIN PUBLIC KEY-----"


# keys -------------------------------------------------------------------------------------------


def fingerprint(raw: bytes) -> str:
    """``SHA256:`` and the unpadded base64 of the SHA-256 of the raw public key (as OpenSSH
    writes a key's fingerprint): short enough to read aloud, compared in full."""
    digest = hashlib.sha256(raw).digest()
    return "SHA256:" + base64.b64encode(digest).decode().rstrip("=")


@dataclass(frozen=True, slots=True)
class PublicKey:
    """An Ed25519 public key: 32 raw bytes."""

    raw: bytes

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.raw)

    def base64(self) -> str:
        return base64.b64encode(self.raw).decode()

    def pem(self) -> str:
        """The SubjectPublicKeyInfo PEM block (what ``openssl pkey -pubin`` reads)."""
        key = Ed25519PublicKey.from_public_bytes(self.raw)
        return key.public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        ).decode()

    def verifies(self, signature: bytes, message: bytes) -> bool:
        try:
            Ed25519PublicKey.from_public_bytes(self.raw).verify(signature, message)
        except (InvalidSignature, ValueError):
            return False
        return True


@dataclass(frozen=True, slots=True)
class SigningKey:
    """The project's private key. Its seed never leaves this object but as signatures."""

    seed: bytes = field(repr=False)

    def __repr__(self) -> str:
        return f"SigningKey({self.public.fingerprint})"

    @property
    def public(self) -> PublicKey:
        key = Ed25519PrivateKey.from_private_bytes(self.seed).public_key()
        return PublicKey(
            key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        )

    def sign(self, message: bytes) -> bytes:
        return Ed25519PrivateKey.from_private_bytes(self.seed).sign(message)


def new_seed() -> bytes:
    """A fresh private key: 32 bytes from the operating system's random source."""
    return os.urandom(SEED_BYTES)


def project_key(store: Store) -> SigningKey:
    """The project's key pair, made on first need for a database that has none."""
    seed = store.keys.seed()
    if seed is None:
        seed = store.keys.create(new_seed())
    return SigningKey(seed)


def parse_public_key(data: bytes, *, path: str | Path | None = None) -> PublicKey:
    """A public key as ``labeler key show`` prints it: a PEM block (``-----BEGIN PUBLIC
    KEY-----``), or the base64 of the 32 raw bytes on a line of its own."""
    try:
        text = data.decode("ascii").strip()
    except UnicodeDecodeError:
        raise LabelerError("not a public key (expected PEM or base64 text)", path=path) from None
    if text.startswith(PEM_HEADER):
        try:
            key = serialization.load_pem_public_key(text.encode())
        except (ValueError, TypeError):
            raise LabelerError("not a valid PEM public key", path=path) from None
        if not isinstance(key, Ed25519PublicKey):
            raise LabelerError("not an Ed25519 public key", path=path) from None
        raw = key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        return PublicKey(raw)
    try:
        raw = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raw = b""
    if len(raw) != SEED_BYTES:
        msg = (
            "not a public key: expected a PEM block (-----BEGIN PUBLIC KEY-----) or the base64"
            " of 32 bytes, as `labeler key show` prints them"
        )
        raise LabelerError(msg, path=path)
    return PublicKey(raw)


def write_public_key(path: str | Path, key: PublicKey) -> Path:
    """Write ``key`` as PEM to ``path`` (``labeler key export-public``), whole or not at all,
    with the ordinary permissions of a new file."""
    return write_atomically(path, key.pem().encode("ascii"))


def read_public_key(path: str | Path) -> PublicKey:
    """A public key file (``--public-key FILE``)."""
    path = Path(path)
    if not path.is_file():
        raise LabelerError("no such file", path=path)
    if path.stat().st_size > MAX_KEY_FILE:
        raise LabelerError("not a public key (the file is too large)", path=path)
    return parse_public_key(path.read_bytes(), path=path)


# trust ------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Trust:
    """Which keys vouch for a version, and whether only they may have signed it.

    ``required``: a signature by any other key is refused (``--public-key``, or the project's
    key for a version this database exported into that very folder), and so is none at all
    unless ``unsigned_ok`` (the project's own record vouches for its old, unsigned versions by
    their hash). Otherwise a version signed by another key, or an unsigned version of an old
    format, is read with a note. ``source`` says where the keys came from, for messages.
    """

    keys: tuple[PublicKey, ...] = ()
    required: bool = False
    source: str = ""
    unsigned_ok: bool = True

    def knows(self, raw: bytes) -> bool:
        return any(key.raw == raw for key in self.keys)


NO_TRUST = Trust()


def given_key(path: str | Path) -> Trust:
    """``--public-key FILE``: only that key may have signed the version."""
    return Trust(
        (read_public_key(path),), required=True, source=f"the key in {path}", unsigned_ok=False
    )


def project_trust(store: Store, *, required: bool) -> Trust:
    """The project's own key, from its database."""
    return Trust((project_key(store).public,), required=required, source="this project's key")


# what is signed ---------------------------------------------------------------------------------


def field_digests(manifest: Mapping) -> dict[str, str]:
    """The sha256 of each manifest field's canonical JSON."""
    return {key: sha256_hex(canonical_json(value)) for key, value in manifest.items()}


def payload(manifest: Mapping, digests: Mapping[str, str]) -> dict:
    """What a signature covers (see the module docstring); ``digests``: sha256 per file."""
    return {
        "name": manifest.get("name"),
        "version": manifest.get("version"),
        "content_hash": manifest.get("content_hash"),
        "fields": field_digests(manifest),
        "files": dict(sorted(digests.items())),
    }


def signature_record(key: SigningKey, manifest: Mapping, digests: Mapping[str, str]) -> dict:
    """The content of ``signature.json`` for a version with this manifest and file digests."""
    signed = payload(manifest, digests)
    public = key.public
    return {
        "format": SIGNATURE_FORMAT,
        "algorithm": ALGORITHM,
        "key": public.fingerprint,
        "public_key": public.base64(),
        "signed": signed,
        "signature": base64.b64encode(key.sign(DOMAIN + canonical_json(signed))).decode(),
    }


def signature_bytes(record: Mapping) -> bytes:
    return (json.dumps(record, ensure_ascii=False, sort_keys=True, indent=2) + "\n").encode()


# checking a signature ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SignatureCheck:
    """What checking a version's signature found.

    ``state``: ``verified`` (by a key of the trust), ``foreign`` (valid, by a key the trust does
    not hold, which was not required), ``self-signed`` (valid under the key it carries; no key
    was known to check it against), ``unsigned`` or ``bad``. ``problems`` say why a version is
    refused (a bad signature, an unknown key, a missing signature that was required);
    ``differs`` names the files and manifest fields that are not what was signed.
    """

    state: str
    key: str | None = None
    problems: tuple[str, ...] = ()
    differs: tuple[str, ...] = ()

    def note(self, trust: Trust) -> str:
        """One phrase for a version that passed: how far its signature vouches for it."""
        if self.state == "verified":
            return f"signed by {trust.source} {self.key}"
        if self.state == "foreign":
            return f"signed by key {self.key}, not {trust.source}"
        if self.state == "self-signed":
            return f"signed by key {self.key}; no known key to check it against"
        return "unsigned"


def read_signature(folder: Path) -> tuple[dict | None, str | None]:
    """(signature.json's record, None), (None, None) when there is none, or (None, why it
    cannot be read)."""
    path = folder / SIGNATURE
    if not path.exists():
        return None, None
    if not path.is_file() or path.stat().st_size > MAX_KEY_FILE:
        return None, f"{SIGNATURE} is not a signature file"
    try:
        record = loads(path.read_bytes().decode("utf-8"), path=path)
    except (LabelerError, UnicodeDecodeError):
        return None, f"{SIGNATURE} is not valid JSON"
    if not isinstance(record, dict):
        return None, f"{SIGNATURE} is not a JSON object"
    return record, None


def _decode(record: dict, key: str) -> bytes | None:
    value = record.get(key)
    if not isinstance(value, str):
        return None
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return None


def _valid(record: dict) -> tuple[PublicKey | None, str | None]:
    """The key a well-formed, valid signature record was made with, or why it is not one."""
    if record.get("format") != SIGNATURE_FORMAT or record.get("algorithm") != ALGORITHM:
        return None, f"{SIGNATURE} is not a {SIGNATURE_FORMAT} {ALGORITHM} signature"
    raw = _decode(record, "public_key")
    signature = _decode(record, "signature")
    signed = record.get("signed")
    if raw is None or len(raw) != SEED_BYTES or signature is None or not isinstance(signed, dict):
        return None, f"{SIGNATURE} is incomplete (public_key, signed, signature)"
    key = PublicKey(raw)
    if record.get("key") != key.fingerprint:
        return None, f"{SIGNATURE} names key {record.get('key')!r} but carries {key.fingerprint}"
    if not key.verifies(signature, DOMAIN + canonical_json(signed)):
        return None, "the signature does not match what signature.json says was signed"
    return key, None


def _differences(signed: dict, manifest: Mapping, digests: Mapping[str, str]) -> list[str]:
    """The files, then the manifest fields, that are not what was signed. ``files`` and
    ``content_hash`` change with anything else, so they are named only when nothing else is."""
    files = signed.get("files") if isinstance(signed.get("files"), dict) else {}
    fields = signed.get("fields") if isinstance(signed.get("fields"), dict) else {}
    found = [
        name if name in digests else f"{name} (missing)"
        for name in sorted(set(files) | set(digests))
        if files.get(name) != digests.get(name)
    ]
    now = field_digests(manifest)
    changed = [key for key in sorted(set(fields) | set(now)) if fields.get(key) != now.get(key)]
    specific = [key for key in changed if key not in ("files", "content_hash")]
    named = specific if specific or found else changed
    return found + [f"manifest.json field {key}" for key in named]


def check_signature(
    folder: Path, manifest: Mapping, digests: Mapping[str, str], trust: Trust, *, required: bool
) -> SignatureCheck:
    """Check ``folder``'s signature against the manifest and the files' digests, under
    ``trust``. ``required``: a version of this format is always signed when written, so a
    missing signature is a problem whatever the trust."""
    record, unreadable = read_signature(folder)
    if unreadable is not None:
        return SignatureCheck("bad", problems=(f"bad signature: {unreadable}",))
    if record is None:
        if required:
            why = "it has no signature.json, which every version of its format is written with"
            return SignatureCheck("unsigned", problems=(f"unsigned: {why}",))
        if trust.required and not trust.unsigned_ok:
            why = f"{trust.source} must have signed it"
            return SignatureCheck("unsigned", problems=(f"unsigned: {why}",))
        return SignatureCheck("unsigned")
    key, invalid = _valid(record)
    if key is None:
        return SignatureCheck("bad", problems=(f"bad signature: {invalid}",))
    differs = tuple(_differences(record["signed"], manifest, digests))
    if trust.knows(key.raw):
        state = "verified"
    elif not trust.keys:
        state = "self-signed"
    else:
        state = "foreign"
    problems = ()
    if state == "foreign" and trust.required:
        expected = ", ".join(k.fingerprint for k in trust.keys)
        problems = (f"unknown key: signed by {key.fingerprint}, not {trust.source} {expected}",)
    return SignatureCheck(state, key.fingerprint, problems, differs)


def write_signature(folder: Path, record: Mapping) -> Path:
    """Put ``signature.json`` into an existing version folder, whole or not at all: written
    beside the folder (never inside, where a half-written file would be an extra file), made
    read-only, then renamed into place."""
    handle, temporary = tempfile.mkstemp(
        prefix=f".{folder.name}-signature-", suffix=".tmp", dir=folder.parent
    )
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(signature_bytes(record))
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, 0o444)
        os.replace(temporary, folder / SIGNATURE)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return folder / SIGNATURE


__all__ = [
    "ALGORITHM",
    "DOMAIN",
    "NO_TRUST",
    "SIGNATURE_FORMAT",
    "PublicKey",
    "SignatureCheck",
    "SigningKey",
    "Trust",
    "check_signature",
    "field_digests",
    "fingerprint",
    "given_key",
    "new_seed",
    "parse_public_key",
    "payload",
    "project_key",
    "project_trust",
    "read_public_key",
    "read_signature",
    "signature_bytes",
    "signature_record",
    "write_public_key",
    "write_signature",
]
