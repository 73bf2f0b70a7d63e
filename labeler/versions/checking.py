"""Checking a version folder: one function every reader calls (``inspect``), naming all that
differs from what was exported.

A version is intact when:

- its folder holds exactly its files (by format: the three content files, plus
  ``completeness.jsonl`` from labeler-testset/3), the manifest and at most a signature; anything
  else is an extra file;
- each file's sha256 is the one the manifest lists, and the manifest's content hash is the one
  its format's rule gives (``labeler.versions.format``);
- its signature, when it has one, is valid and covers exactly these files and manifest fields
  (``labeler.versions.signing``); a labeler-testset/3 version must have one (every such version
  is signed when written), and under a required ``Trust`` it must be by a trusted key.

A copy edited and "resealed" (its digests and hash recomputed) is consistent in itself; its
signature is what tells: kept, it no longer matches (and says which files and fields differ);
removed, the version is unsigned; redone with another key, the key is not the one trusted.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from labeler.errors import LabelerError
from labeler.versions.format import (
    FORMAT,
    FORMAT_V1,
    MANIFEST,
    SIGNATURE,
    format_of,
    hash_from_digests,
    hash_of,
    sha256_hex,
    version_files,
)
from labeler.versions.signing import NO_TRUST, SignatureCheck, Trust, check_signature


@dataclass(frozen=True, slots=True)
class Findings:
    """What checking a version folder found.

    ``changed``: files and manifest fields that differ from what the hash or the signature
    covers; ``extra``: files that are not part of a version; ``signature``: the signature's
    check; ``resealed``: the files agree with the manifest's hash, yet not with the signature
    (or the signature is gone or by another key): rewritten on purpose, not edited by mistake.
    """

    changed: tuple[str, ...] = ()
    extra: tuple[str, ...] = ()
    signature: SignatureCheck = field(default_factory=lambda: SignatureCheck("unsigned"))
    resealed: bool = False
    trust: Trust = NO_TRUST

    @property
    def intact(self) -> bool:
        return not self.changed and not self.extra and not self.signature.problems

    def problems(self) -> list[str]:
        """Every reason the version is refused, most specific first."""
        found = []
        if self.changed:
            found.append(", ".join(self.changed))
        if self.extra:
            found.append("extra file" + ("s" if len(self.extra) > 1 else "") + ": ")
            found[-1] += ", ".join(self.extra)
        found.extend(self.signature.problems)
        return found

    def describe(self) -> str:
        return "; ".join(self.problems())

    def note(self) -> str:
        """For an intact version: how far its signature vouches for it."""
        return self.signature.note(self.trust)


def folder_entries(folder: Path) -> list[str]:
    """The names in a version folder, sorted."""
    return sorted(child.name for child in folder.iterdir())


def _digests(
    folder: Path, manifest: dict, expected: tuple[str, ...], names: Iterable[str]
) -> tuple[dict[str, bytes], dict[str, str], list[str]]:
    """(bytes of ``names``, sha256 of every expected file, missing files): the files not read
    take the digest the manifest lists (the hash covers it)."""
    recorded = manifest.get("files") if isinstance(manifest.get("files"), dict) else {}
    files: dict[str, bytes] = {}
    digests: dict[str, str] = {}
    missing = []
    wanted = set(names)
    for name in expected:
        path = folder / name
        if not path.is_file():
            missing.append(name)
            continue
        if name in wanted:
            files[name] = path.read_bytes()
            digests[name] = sha256_hex(files[name])
        else:
            digests[name] = str((recorded.get(name) or {}).get("sha256"))
    return files, digests, missing


def _hash_changes(
    manifest: dict, files: dict[str, bytes], digests: dict[str, str], expected: tuple[str, ...]
) -> list[str]:
    """What no longer matches the manifest's own hash: the files whose digests differ from the
    manifest's list, or the manifest itself (a field edited, or its hash)."""
    recorded = manifest.get("files") if isinstance(manifest.get("files"), dict) else {}
    named = [
        n for n in expected if n in files and (recorded.get(n) or {}).get("sha256") != digests[n]
    ]
    if format_of(manifest) == FORMAT_V1:
        good = hash_of(manifest, files) == manifest.get("content_hash")
        if good or named:
            return named
        return ["the content files (labeler-testset/1 lists no digests)"]
    if named:
        return named
    if hash_from_digests(manifest, digests) != manifest.get("content_hash"):
        return [f"{MANIFEST} (no longer matches its content hash)"]
    return []


def inspect(
    folder: Path,
    manifest: dict,
    trust: Trust = NO_TRUST,
    *,
    names: Iterable[str] | None = None,
) -> tuple[Findings, dict[str, bytes]]:
    """Check ``folder`` (whose manifest is ``manifest``) and return what was found with the
    bytes of the files read: ``names`` (default: every file of the version). The files not
    read are checked through their digests in the manifest, which the hash covers, so an
    evaluation need not read the chunk texts. A first-format version is always read whole."""
    expected = version_files(manifest)
    if names is None or format_of(manifest) == FORMAT_V1:
        names = expected
    files, digests, missing = _digests(folder, manifest, expected, names)
    stale = _hash_changes(manifest, files, digests, expected) if not missing else []
    changed = [f"{name} (missing)" for name in missing] + stale
    allowed = {MANIFEST, SIGNATURE, *expected}
    extra = tuple(name for name in folder_entries(folder) if name not in allowed)
    signature = check_signature(
        folder, manifest, digests, trust, required=format_of(manifest) == FORMAT
    )
    if signature.differs:
        specific = [c for c in changed if not c.startswith(MANIFEST)]
        changed = [*dict.fromkeys([*specific, *signature.differs])]
    resealed = not missing and not stale and bool(signature.differs or signature.problems)
    findings = Findings(tuple(changed), extra, signature, resealed, trust)
    return findings, files


def modified_error(folder: Path, findings: Findings) -> LabelerError:
    verdict = "forged" if findings.resealed else "modified after export"
    msg = (
        f"{verdict} ({findings.describe()}); a version is immutable: restore it from version"
        " control"
    )
    return LabelerError(msg, path=folder)


def verify(
    folder: Path, manifest: dict, trust: Trust = NO_TRUST, *, names: Iterable[str] | None = None
) -> tuple[Findings, dict[str, bytes]]:
    """``inspect``, raising (naming all that differs) unless the version is intact."""
    findings, files = inspect(folder, manifest, trust, names=names)
    if not findings.intact:
        raise modified_error(folder, findings)
    return findings, files


__all__ = ["Findings", "folder_entries", "inspect", "modified_error", "verify"]
