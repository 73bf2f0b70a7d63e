"""A test-set version on disk: its format and hash (``format``), its signature (``signing``),
checking it (``checking``), reading it (``reading``), writing it once (``writing``), the
versions of a test set and their record in the database (``history``), and what changed
between two (``diff``).

Making a version from the project's labels is ``labeler export`` (``labeler.export``); other
tools' formats are written from a version by ``labeler.exporters``. Names load on first use
(``labeler.lazy``).
"""

from labeler.lazy import lazy_exports

__getattr__, __all__ = lazy_exports(
    __name__,
    {
        "format": ("ChunkEntry", "Content", "Version", "check_name", "serialise", "seal"),
        "signing": ("PublicKey", "Trust", "project_key", "read_public_key"),
        "checking": ("Findings", "inspect", "verify"),
        "reading": ("TestSet", "read_manifest", "read_testset", "read_version"),
        "writing": ("clear_abandoned", "resign_recorded", "write_version"),
        "history": (
            "VersionInfo",
            "check_intact",
            "check_record",
            "list_versions",
            "names_under",
            "resolve_version",
            "zip_version",
        ),
        "diff": ("VersionDiff", "describe_changes", "diff_contents", "diff_versions"),
    },
)
