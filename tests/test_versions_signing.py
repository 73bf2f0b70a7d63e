"""The project's key and a version's signature: made once, hidden, checked against a key known
apart from the copy (labeler.versions.signing)."""

import base64
import hashlib
import json
import os
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from labeler.errors import LabelerError
from labeler.store import Store
from labeler.versions.format import canonical_json, sha256_hex
from labeler.versions.signing import (
    DOMAIN,
    NO_TRUST,
    PublicKey,
    SigningKey,
    Trust,
    check_signature,
    fingerprint,
    parse_public_key,
    project_key,
    read_public_key,
    signature_bytes,
    signature_record,
    write_public_key,
)

# RFC 8032, section 7.1, test 1: a seed, its public key, and the signature of the empty message.
RFC_SEED = bytes.fromhex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
RFC_PUBLIC = bytes.fromhex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
RFC_SIGNATURE = bytes.fromhex(
    "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155"
    "5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"
)

MANIFEST = {"name": "orders", "version": 1, "content_hash": "sha256:abc", "policy": None}
DIGESTS = {"questions.jsonl": "aa", "qrels.tsv": "bb"}


def test_the_key_is_ed25519_as_rfc_8032_defines_it() -> None:
    key = SigningKey(RFC_SEED)
    assert key.public.raw == RFC_PUBLIC
    assert key.sign(b"") == RFC_SIGNATURE
    assert key.public.verifies(RFC_SIGNATURE, b"")
    assert not key.public.verifies(RFC_SIGNATURE, b"x")


def test_the_fingerprint_is_sha256_base64_as_openssh_writes_it() -> None:
    digest = base64.b64encode(hashlib.sha256(RFC_PUBLIC).digest()).decode().rstrip("=")
    assert fingerprint(RFC_PUBLIC) == "SHA256:" + digest
    assert len(digest) == 43


def test_the_private_key_never_shows_in_a_repr() -> None:
    key = SigningKey(RFC_SEED)
    shown = repr(key) + str(key)
    assert RFC_SEED.hex() not in shown
    assert base64.b64encode(RFC_SEED).decode() not in shown
    assert shown.startswith(f"SigningKey({fingerprint(RFC_PUBLIC)})")


def test_a_new_database_has_a_key_made_once(tmp_path: Path) -> None:
    with Store(tmp_path / "p.db") as store:
        first = project_key(store)
        assert len(store.keys.seed()) == 32
    with Store(tmp_path / "p.db") as store:
        assert project_key(store).public == first.public
    with Store(tmp_path / "other.db") as other:
        assert project_key(other).public != first.public


def test_a_database_without_a_key_gets_one_on_first_need(tmp_path: Path) -> None:
    with Store(tmp_path / "p.db") as store:
        store.conn.execute("DELETE FROM signing_key")
        assert store.keys.seed() is None
        made = project_key(store)
        assert store.keys.seed() == made.seed
        assert store.keys.create(b"\x01" * 32) == made.seed  # the first one stays


@pytest.mark.parametrize("form", ["pem", "base64"])
def test_a_public_key_reads_back_from_either_form(form: str, tmp_path: Path) -> None:
    public = PublicKey(RFC_PUBLIC)
    text = public.pem() if form == "pem" else public.base64() + "\n"
    assert parse_public_key(text.encode()) == public
    path = write_public_key(tmp_path / "k.pub", public)
    assert read_public_key(path) == public
    assert path.read_text().startswith("-----BEGIN PUBLIC KEY-----\n")


def test_an_exported_key_has_ordinary_permissions(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        path = write_public_key(tmp_path / "k.pub", PublicKey(RFC_PUBLIC))
    finally:
        os.umask(old)
    assert path.stat().st_mode & 0o777 == 0o644
    assert [p.name for p in tmp_path.iterdir()] == ["k.pub"]  # no temporary file left


@pytest.mark.parametrize(
    ("data", "says"),
    [
        (b"hello", "not a public key: expected a PEM block"),
        (base64.b64encode(b"x" * 31), "not a public key: expected a PEM block"),
        (b"-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n", "not a valid PEM"),
        (b"\xff\xfe", "expected PEM or base64 text"),
    ],
)
def test_what_is_not_a_public_key(data: bytes, says: str, tmp_path: Path) -> None:
    path = tmp_path / "k.pub"
    path.write_bytes(data)
    with pytest.raises(LabelerError, match=says) as caught:
        read_public_key(path)
    assert caught.value.path == str(path)


def test_a_key_of_another_algorithm_is_refused(tmp_path: Path) -> None:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    other = ec.generate_private_key(ec.SECP256R1()).public_key()
    pem = other.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    with pytest.raises(LabelerError, match="not an Ed25519 public key"):
        parse_public_key(pem)


def test_the_signature_is_over_the_domain_and_the_canonical_payload() -> None:
    key = SigningKey(RFC_SEED)
    record = signature_record(key, MANIFEST, DIGESTS)
    signed = record["signed"]
    assert signed["content_hash"] == "sha256:abc"
    assert signed["files"] == DIGESTS
    assert signed["fields"]["policy"] == sha256_hex(b"null")
    assert signed["fields"]["name"] == sha256_hex(b'"orders"')
    message = DOMAIN + canonical_json(signed)
    Ed25519PrivateKey.from_private_bytes(RFC_SEED).public_key().verify(
        base64.b64decode(record["signature"]), message
    )
    assert record["key"] == fingerprint(RFC_PUBLIC)
    assert json.loads(signature_bytes(record)) == record


def signed_folder(tmp_path: Path, key: SigningKey, manifest: dict = MANIFEST) -> Path:
    folder = tmp_path / "v1"
    folder.mkdir(exist_ok=True)
    (folder / "signature.json").write_bytes(
        signature_bytes(signature_record(key, manifest, DIGESTS))
    )
    return folder


def test_the_states_of_a_signature(tmp_path: Path) -> None:
    ours = SigningKey(RFC_SEED)
    theirs = SigningKey(b"\x07" * 32)
    folder = signed_folder(tmp_path, ours)
    project = Trust((ours.public,), source="this project's key")
    required = Trust((theirs.public,), True, "the key in k.pub", unsigned_ok=False)
    assert check_signature(folder, MANIFEST, DIGESTS, project, required=True).state == "verified"
    assert check_signature(folder, MANIFEST, DIGESTS, NO_TRUST, required=True).state == (
        "self-signed"
    )
    loose = Trust((theirs.public,), source="this project's key")
    foreign = check_signature(folder, MANIFEST, DIGESTS, loose, required=True)
    assert (foreign.state, foreign.problems) == ("foreign", ())
    unknown = check_signature(folder, MANIFEST, DIGESTS, required, required=True)
    assert unknown.problems == (
        f"unknown key: signed by {ours.public.fingerprint}, not the key in k.pub"
        f" {theirs.public.fingerprint}",
    )
    (folder / "signature.json").unlink()
    assert check_signature(folder, MANIFEST, DIGESTS, NO_TRUST, required=False).state == (
        "unsigned"
    )
    assert check_signature(folder, MANIFEST, DIGESTS, NO_TRUST, required=True).problems
    assert check_signature(folder, MANIFEST, DIGESTS, required, required=False).problems


def test_what_differs_from_what_was_signed_is_named(tmp_path: Path) -> None:
    key = SigningKey(RFC_SEED)
    folder = signed_folder(tmp_path, key)
    changed = {**MANIFEST, "policy": "max", "content_hash": "sha256:new", "extra": 1}
    found = check_signature(
        folder, changed, {**DIGESTS, "qrels.tsv": "cc"}, NO_TRUST, required=True
    )
    # content_hash changes with anything else: named only when nothing more specific is.
    assert found.differs == ("qrels.tsv", "manifest.json field extra", "manifest.json field policy")
    resealed = {**MANIFEST, "content_hash": "sha256:new"}
    alone = check_signature(folder, resealed, DIGESTS, NO_TRUST, required=True)
    assert alone.differs == ("manifest.json field content_hash",)


@pytest.mark.parametrize(
    ("edit", "says"),
    [
        (lambda r: r.update(signature=base64.b64encode(b"\0" * 64).decode()), "does not match"),
        (lambda r: r["signed"].update(content_hash="sha256:x"), "does not match"),
        (lambda r: r.update(key="SHA256:someone-else"), "names key 'SHA256:someone-else'"),
        (lambda r: r.update(algorithm="RSA"), "is not a labeler-signature/1 Ed25519"),
        (lambda r: r.pop("public_key"), "is incomplete"),
    ],
)
def test_a_bad_signature_is_refused_whatever_the_trust(tmp_path: Path, edit, says: str) -> None:
    key = SigningKey(RFC_SEED)
    record = signature_record(key, MANIFEST, DIGESTS)
    edit(record)
    folder = tmp_path / "v1"
    folder.mkdir()
    (folder / "signature.json").write_bytes(signature_bytes(record))
    found = check_signature(folder, MANIFEST, DIGESTS, NO_TRUST, required=True)
    assert found.state == "bad"
    assert says in found.problems[0]


def test_a_signature_file_that_is_not_json(tmp_path: Path) -> None:
    (tmp_path / "signature.json").write_text("{", encoding="utf-8")
    found = check_signature(tmp_path, MANIFEST, DIGESTS, NO_TRUST, required=False)
    assert found.problems == ("bad signature: signature.json is not valid JSON",)
