"""Passwords: the policy, and their argon2id hashes.

The parameters are OWASP's recommended minimum for argon2id (19 MiB, 2 passes, 1 lane): about
50 ms on an idle core, so a login stays well under the 1.5 s it may take on a loaded 2-core
server (argon2-cffi's default, 64 MiB and 3 passes over 4 lanes, took 1.4 s there), while a
guess still costs an attacker 19 MiB of memory. A hash made with other parameters is rehashed
with these at the next login (``needs_rehash``).

A password is never stored, logged or put in a message; only its hash is kept. ``verify`` of an
unknown account still hashes (against ``DUMMY``), so a wrong name and a wrong password take the
same time as well as getting the same message.
"""

from __future__ import annotations

import functools

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from labeler.errors import LabelerError

MIN_LENGTH = 10
MAX_LENGTH = 1024  # argon2 takes any length; a megabyte "password" is an attack, not a secret


@functools.cache
def hasher() -> PasswordHasher:
    return PasswordHasher(time_cost=2, memory_cost=19_456, parallelism=1)


def check_policy(password: str, *, name: str) -> str:
    """The password, if it may be one: at least MIN_LENGTH characters, not the account's name.
    The message never quotes it."""
    if not isinstance(password, str) or len(password) < MIN_LENGTH:
        msg = f"a password needs at least {MIN_LENGTH} characters"
        raise LabelerError(msg, field="password")
    if len(password) > MAX_LENGTH:
        msg = f"a password has at most {MAX_LENGTH} characters"
        raise LabelerError(msg, field="password")
    if not password.strip():
        raise LabelerError("a password cannot be only spaces", field="password")
    if password.strip().lower() == name.lower():
        raise LabelerError("a password cannot be the account's name", field="password")
    return password


def hash_password(password: str) -> str:
    return hasher().hash(password)


@functools.cache
def _dummy() -> str:
    return hash_password("not a password of anyone's")


def verify(stored: str | None, password: str) -> bool:
    """Whether ``password`` matches the ``stored`` hash (None: no password: hash anyway, to
    take the same time, and refuse)."""
    try:
        return hasher().verify(stored or _dummy(), password[:MAX_LENGTH]) and stored is not None
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


def needs_rehash(stored: str) -> bool:
    """True when the hash was made with weaker parameters than today's: rehashed at login."""
    return hasher().check_needs_rehash(stored)


__all__ = ["MAX_LENGTH", "MIN_LENGTH", "check_policy", "hash_password", "needs_rehash", "verify"]
