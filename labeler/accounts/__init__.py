"""Who is who on a team server: names, passwords, sessions, roles and assigned work.

- ``roles``: the roles, the one table of their rights, and ``require``, which every core
  call that acts for a person asks first (and ``shell_authority``, the CLI's);
- ``passwords``: the policy and argon2id hashes;
- ``sessions``: login (same message for a wrong name or password; the lockout), server-side
  sessions (12 hours idle, logout ends them), OpenID Connect logins by email;
- ``users``: accounts, managed by an owner; a name a reviewer already graded under is adopted;
- ``assignments``: questions split among reviewers with an overlap for agreement.

The name rule itself is ``labeler.names`` (the store needs it too). Pure core: no Streamlit, no
click. Names load on first use (``labeler.lazy``).
"""

from labeler.lazy import lazy_exports

__getattr__, __all__ = lazy_exports(
    __name__,
    {
        "roles": (
            "RIGHTS",
            "Right",
            "Role",
            "least_role",
            "may",
            "require",
            "rights_table_markdown",
            "role_of",
            "shell_authority",
            "shell_user",
        ),
        "passwords": ("MIN_LENGTH", "check_policy", "hash_password", "verify"),
        "sessions": (
            "IDLE_LIMIT",
            "LOCK_AFTER",
            "Session",
            "lock_of",
            "locked_until",
            "login",
            "logout",
            "oidc_login",
            "resume",
            "start_session",
        ),
        "users": (
            "Account",
            "Added",
            "add_user",
            "adoptable",
            "disable",
            "enable",
            "list_users",
            "set_email",
            "set_password",
            "set_role",
        ),
        "assignments": (
            "AssignResult",
            "Assignment",
            "assign",
            "assignment_list",
            "load_assignments",
            "split",
        ),
    },
)
