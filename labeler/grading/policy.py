"""The project's disagreement policy: one default for every face that settles reviewers'
disagreements (the Results page, ``labeler next`` and the "decide A vs B" queue, ``labeler
export`` and the Export page).

Before, each face chose its own (Results: median, the decide queue: median, export and ``next``:
stop, the README's examples: majority), so one question, "is hybrid ahead?", got two answers
(issue #23). Now the policy is a project setting kept in the database, so every face and every
reviewer of a shared project read the same one; a face may still be told another for one call
(``--policy``, a page's selectbox), and says which it used.

A project that never chose has ``DEFAULT_POLICY``: majority (a tie goes to the lower grade),
the conservative choice with three or more reviewers, equal to median-low with two.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from labeler.grading.consensus import POLICIES, get_policy

if TYPE_CHECKING:
    from labeler.store import Store

DEFAULT_POLICY = "majority"
SETTING = "consensus:policy"
# The export's own extra choice: settle nothing, list the disagreements and stop.
STOP = "stop"


def project_policy(store: Store) -> str:
    """The policy the project settles disagreements with (``DEFAULT_POLICY`` until one is set)."""
    stored = store.get_setting(SETTING)
    return stored if stored in POLICIES else DEFAULT_POLICY


def set_project_policy(store: Store, name: str) -> str:
    """Make ``name`` the project's policy; returns the previous one. An unknown name is a user
    error naming the choices."""
    get_policy(name)
    previous = project_policy(store)
    store.set_setting(SETTING, name)
    return previous


def resolve_policy(store: Store, given: str | None) -> str | None:
    """The policy a call uses: ``given`` when a face was told one, else the project's; ``STOP``
    means none (disagreements stop an export and are listed)."""
    if given == STOP:
        return None
    if given is None:
        return project_policy(store)
    get_policy(given)
    return given


def describe_policy(name: str | None) -> str:
    """How pages and commands name a policy: "majority (the grade most reviewers gave; ...)"."""
    if name is None:
        return "none: disagreements are listed and stop the export"
    return f"{name} ({POLICIES[name].summary})"


__all__ = [
    "DEFAULT_POLICY",
    "STOP",
    "describe_policy",
    "project_policy",
    "resolve_policy",
    "set_project_policy",
]
