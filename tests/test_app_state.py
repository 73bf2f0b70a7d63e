"""The app's store lifecycle: a script run or fragment run takes a store on its thread and gives it
back when it ends, and a later run (on another thread) may take it again; runs that overlap
never share one; callbacks, which run before the script, share their run's."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from labeler.app import state
from labeler.store import Store

APP = str(Path(__file__).resolve().parents[1] / "labeler" / "app" / "streamlit_app.py")


class Recorder:
    """Replaces state.Store: records every store opened, on which threads it was used, and
    whether it was closed."""

    def __init__(self) -> None:
        self.opened: list = []


@pytest.fixture
def tracked(loaded: Store, monkeypatch) -> Recorder:
    recorder = Recorder()

    class TrackedStore(Store):
        def __init__(self, path, **options) -> None:
            super().__init__(path, **options)
            self.closed = False
            recorder.opened.append(self)

        def close(self) -> None:
            self.closed = True
            super().close()

    monkeypatch.setattr(state, "Store", TrackedStore)
    monkeypatch.setattr(state, "_IDLE", {})
    monkeypatch.setenv("LABELER_DB", str(loaded.path))
    return recorder


def idle(recorder: Recorder) -> list:
    return state._IDLE.get(str(recorder.opened[0].path), []) if recorder.opened else []


def in_thread(func) -> None:
    """Run ``func`` on a new thread, as Streamlit runs every script run."""
    errors: list[BaseException] = []

    def target() -> None:
        try:
            func()
        except BaseException as error:  # pragma: no cover - re-raised below
            errors.append(error)

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    if errors:
        raise errors[0]


def test_a_script_run_takes_one_store_and_gives_it_back(tracked: Recorder) -> None:
    def run() -> None:
        with state.run_scope():
            state.get_store().corpus.current_chunking()
            state.get_store().questions.ids()
            assert len(tracked.opened) == 1
            assert idle(tracked) == []  # held by this run

    in_thread(run)
    assert len(tracked.opened) == 1
    assert not tracked.opened[0].closed
    assert idle(tracked) == tracked.opened  # given back, open, for the next run


def test_a_callback_before_the_script_shares_the_run_store(tracked: Recorder) -> None:
    def run() -> None:
        state.get_store().questions.ids()  # a widget callback: it runs before the script
        with state.run_scope():
            state.get_store().corpus.current_chunking()
            with state.run_scope():  # a fragment running inside the full run joins it
                state.get_store().questions.ids()
            assert idle(tracked) == []  # the inner scope did not give it back

    in_thread(run)
    assert len(tracked.opened) == 1
    assert idle(tracked) == tracked.opened


def test_runs_one_after_another_take_the_same_store_on_their_own_threads(
    tracked: Recorder,
) -> None:
    handle = state.get_store()  # a page may keep the handle at its top, across runs
    threads: set[int] = set()

    def full_run() -> None:
        with state.run_scope():
            handle.questions.ids()
            threads.add(threading.get_ident())

    def fragment_rerun() -> None:
        handle.questions.ids()  # the fragment's callback
        with state.run_scope():  # the fragment body, without the entrypoint
            handle.corpus.current_chunking()

    for run in (full_run, fragment_rerun, fragment_rerun, full_run):
        in_thread(run)
    assert len(tracked.opened) == 1  # one connection, handed from thread to thread
    assert not tracked.opened[0].closed


def test_runs_that_overlap_never_share_a_store(tracked: Recorder) -> None:
    """A second run starting while the first holds its store gets one of its own; both are
    given back, and a store the pool has no room for is closed."""
    held: list = []
    started, release = threading.Barrier(state._IDLE_KEEP + 2), threading.Event()

    def run() -> None:
        with state.run_scope():
            state.get_store().questions.ids()
            held.append(state._current())
            started.wait()
            release.wait()

    threads = [threading.Thread(target=run) for _ in range(state._IDLE_KEEP + 1)]
    for thread in threads:
        thread.start()
    started.wait()
    assert len({id(s) for s in held}) == state._IDLE_KEEP + 1
    release.set()
    for thread in threads:
        thread.join()
    assert len(idle(tracked)) == state._IDLE_KEEP
    assert sum(s.closed for s in tracked.opened) == 1


def test_a_run_that_fails_inside_a_write_closes_its_store(tracked: Recorder) -> None:
    def run() -> None:
        with state.run_scope():
            state.get_store().conn.execute("BEGIN IMMEDIATE")  # left open, as by a crash

    in_thread(run)
    assert tracked.opened[0].closed
    assert idle(tracked) == []
    in_thread(run)  # the next run opens a fresh one
    assert len(tracked.opened) == 2


def test_a_reused_thread_id_never_gets_another_run_store(tracked: Recorder) -> None:
    """Thread ids are reused as soon as a thread ends (here they mostly are): the run's store is
    tied to the thread itself, so a new run never finds a store the thread's last run held (it
    takes one from those given back)."""
    handle = state.get_store()
    held: list = []

    def run() -> None:
        assert getattr(state._run, "store", None) is None
        with state.run_scope():
            handle.questions.ids()
            held.append(state._current())

    for _ in range(5):
        in_thread(run)
    assert len(held) == 5
    assert len(tracked.opened) == 1


def test_several_reruns_in_two_sessions_close_every_store(tracked: Recorder) -> None:
    sessions = []
    for name in ("ana", "ben"):
        at = AppTest.from_file(APP, default_timeout=30)
        at.query_params["reviewer"] = name
        at.query_params["question"] = "q1"
        sessions.append(at.run())
    for _ in range(3):
        for at in sessions:
            at.button(key="label_key_1").click().run()
            assert not at.exception
    assert 1 <= len(tracked.opened) <= state._IDLE_KEEP  # handed from run to run
    assert all(store.closed or store in idle(tracked) for store in tracked.opened)
    with Store(tracked.opened[0].path) as store:
        graded = store.labels.question_labels("q1", "default")
    assert {r["reviewer"] for r in graded} == {"ana", "ben"}
    assert len(graded) == 6


def test_only_one_database_keeps_stores(tracked: Recorder, tmp_path: Path, monkeypatch) -> None:
    """A test session (or a server restarted on another file) moves to another database: the
    stores kept for the last one are closed, not left open."""

    def run() -> None:
        with state.run_scope():
            state.get_store().questions.ids()

    in_thread(run)
    first = tracked.opened[0]
    monkeypatch.setenv("LABELER_DB", str(tmp_path / "other.db"))
    in_thread(run)
    assert first.closed
    assert list(state._IDLE) == [str(tmp_path / "other.db")]


def test_a_store_is_handed_on_as_it_was_opened(tracked: Recorder) -> None:
    """An import enlarges SQLite's page cache and leaves temporary tables on its connection: the
    next run, on the same connection, sees neither."""

    def importing() -> None:
        with state.run_scope():
            conn = state.get_store().conn
            conn.execute("PRAGMA cache_size = -1048576")
            conn.execute("CREATE TEMP TABLE text_changes (chunk_id TEXT)")
            conn.execute("INSERT INTO temp.text_changes VALUES ('left-over')")

    def reading() -> None:
        with state.run_scope():
            conn = state.get_store().conn
            seen.append(conn.execute("PRAGMA cache_size").fetchone()[0])
            seen.append(conn.execute("SELECT count(*) FROM temp.sqlite_master").fetchone()[0])

    seen: list = []
    in_thread(importing)
    in_thread(reading)
    assert len(tracked.opened) == 1  # the same connection
    assert seen == [-2000, 0]  # SQLite's default page cache, no temporary table
