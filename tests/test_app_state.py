"""The app's store lifecycle: one store per script run or fragment run, opened on the run's thread
and closed when the run ends; callbacks, which run before the script, share it."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from labeler.app import state
from labeler.store import Store

APP = str(Path(__file__).resolve().parents[1] / "labeler" / "app" / "streamlit_app.py")


class Recorder:
    """Replaces state.Store: records every store opened, where, and whether it was closed."""

    def __init__(self) -> None:
        self.opened: list = []


@pytest.fixture
def tracked(loaded: Store, monkeypatch) -> Recorder:
    recorder = Recorder()

    class TrackedStore(Store):
        def __init__(self, path) -> None:
            super().__init__(path)
            self.thread = threading.get_ident()
            self.closed = False
            recorder.opened.append(self)

        def close(self) -> None:
            self.closed = True
            super().close()

    monkeypatch.setattr(state, "Store", TrackedStore)
    monkeypatch.setenv("LABELER_DB", str(loaded.path))
    return recorder


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


def test_a_script_run_opens_one_store_and_closes_it(tracked: Recorder) -> None:
    def run() -> None:
        with state.run_scope():
            state.get_store().corpus.current_chunking()
            state.get_store().questions.ids()
            assert len(tracked.opened) == 1
            assert not tracked.opened[0].closed

    in_thread(run)
    assert len(tracked.opened) == 1
    assert tracked.opened[0].closed


def test_a_callback_before_the_script_shares_the_run_store(tracked: Recorder) -> None:
    def run() -> None:
        state.get_store().questions.ids()  # a widget callback: it runs before the script
        with state.run_scope():
            state.get_store().corpus.current_chunking()
            with state.run_scope():  # a fragment running inside the full run joins it
                state.get_store().questions.ids()
            assert not tracked.opened[0].closed

    in_thread(run)
    assert len(tracked.opened) == 1
    assert tracked.opened[0].closed


def test_a_fragment_rerun_has_its_own_scope_and_every_run_its_own_store(
    tracked: Recorder,
) -> None:
    handle = state.get_store()  # a page may keep the handle at its top, across runs

    def full_run() -> None:
        with state.run_scope():
            handle.questions.ids()

    def fragment_rerun() -> None:
        handle.questions.ids()  # the fragment's callback
        with state.run_scope():  # the fragment body, without the entrypoint
            handle.corpus.current_chunking()

    for run in (full_run, fragment_rerun, fragment_rerun, full_run):
        in_thread(run)
    assert len(tracked.opened) == 4
    assert all(s.closed for s in tracked.opened)
    assert len({id(s) for s in tracked.opened}) == 4


def test_a_reused_thread_id_never_gets_another_run_store(tracked: Recorder) -> None:
    """Thread ids are reused as soon as a thread ends (here they mostly are): the run's store is
    tied to the thread itself, so a new run never sees the previous run's store."""
    handle = state.get_store()

    def run() -> None:
        with state.run_scope():
            handle.questions.ids()

    for _ in range(5):
        in_thread(run)
    assert len({id(s) for s in tracked.opened}) == 5
    assert all(s.closed for s in tracked.opened)


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
    assert tracked.opened
    assert all(store.closed for store in tracked.opened)
    with Store(tracked.opened[0].path) as store:
        graded = store.labels.question_labels("q1", "default")
    assert {r["reviewer"] for r in graded} == {"ana", "ben"}
    assert len(graded) == 6
