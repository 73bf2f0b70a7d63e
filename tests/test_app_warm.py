"""The server's warm-up reads the imported runs ahead, so the Results page finds them kept."""

from labeler.app import warm
from labeler.grading import current
from labeler.store import Store


def test_the_runs_are_read_ahead_and_kept(loaded: Store) -> None:
    current._RUNS.clear()
    warm._read_runs(str(loaded.path))
    kept = [key for key in current._RUNS if key[0] == str(loaded.path)]
    assert [key[1] for key in kept] == ["bm25"]
    # the page's own read is then the kept run itself, not a second read
    assert current.kept_run(loaded, "bm25") is current._RUNS[kept[0]]


def test_a_database_that_cannot_be_read_is_left_to_the_page(tmp_path) -> None:
    warm._read_runs(str(tmp_path / "missing" / "nowhere.db"))  # logged, not raised


def test_runs_too_large_to_read_ahead_are_left_to_the_page(loaded: Store, monkeypatch) -> None:
    """Beyond READ_AHEAD_RESULTS run lines in all, the read would take the first seconds of
    grading on a fresh server: the Results page reads them when it needs them."""
    lines = loaded.runs.all()[0]["results"]
    current._RUNS.clear()
    monkeypatch.setattr(warm, "READ_AHEAD_RESULTS", lines - 1)
    warm._read_runs(str(loaded.path))
    assert not [key for key in current._RUNS if key[0] == str(loaded.path)]
    monkeypatch.setattr(warm, "READ_AHEAD_RESULTS", lines)
    warm._read_runs(str(loaded.path))
    assert [key[1] for key in current._RUNS if key[0] == str(loaded.path)] == ["bm25"]
