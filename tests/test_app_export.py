"""The Export page through AppTest, run as a single page; every write is checked on disk and in
the store afterwards."""

import json
import os
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from labeler.store import Store
from labeler.versions.signing import project_key
from tests.conftest import notes, retext

PAGE = str(Path(__file__).resolve().parents[1] / "labeler" / "app" / "app_pages" / "export.py")
APP = str(Path(__file__).resolve().parents[1] / "labeler" / "app" / "streamlit_app.py")


@pytest.fixture
def graded(loaded: Store) -> Store:
    loaded.labels.set_grade("q1", "default", "rate-limits", "ana", 2)
    loaded.labels.set_grade("q1", "default", "error-codes", "ana", 1)
    loaded.labels.set_grade("q2", "default", "pagination", "ana", 2)
    loaded.labels.set_mark("q3", "default", "ana", mark="unanswerable", value=True)
    return loaded


@pytest.fixture
def out(tmp_path: Path) -> Path:
    return tmp_path / "exports"


@pytest.fixture
def page(graded: Store, out: Path, monkeypatch) -> AppTest:
    monkeypatch.setenv("LABELER_DB", str(graded.path))
    monkeypatch.setenv("LABELER_EXPORTS", str(out))
    return AppTest.from_file(PAGE, default_timeout=30)


def table(at: AppTest, box: str):
    """The dataframe inside the keyed container ``box``, as pandas."""
    return at.container(key=box).dataframe[0].value


def submit(at: AppTest, button: str, name: str = "orders") -> AppTest:
    at.text_input(key="export_name").input(name)
    at.button(key=button).click().run()
    assert not at.exception
    return at


def test_preview_writes_nothing_then_create_writes_v1(page: AppTest, graded: Store, out: Path):
    page.run()
    assert not page.exception
    submit(page, "export_preview")
    assert notes(page, "info") == ["Would create v1 of orders."]
    assert [m.value for m in page.metric][:4] == ["3", "1", "3", "1"]
    # #19: the partial questions, each with its ungraded candidates and bm25's depth: q1's
    # pagination (rank 2) and webhooks (rank 4), q2's webhooks (rank 2) are ungraded.
    partial = table(page, "export_partial")
    assert partial.to_dict("records") == [
        {
            "question": "q1",
            "ungraded": 2,
            "candidates": 4,
            "complete to (run depth/pool depth)": "bm25 1/10",
        },
        {
            "question": "q2",
            "ungraded": 1,
            "candidates": 2,
            "complete to (run depth/pool depth)": "bm25 1/10",
        },
    ]
    assert not out.exists()
    submit(page, "export_create")
    assert notes(page, "ok") == ["Created version v1 of orders."]
    assert sorted(os.listdir(out / "orders")) == ["v1"]
    assert list(graded.versions.recorded("orders")) == [1]
    history = table(page, "export_history")
    assert list(history["version"]) == ["v1"]
    key = project_key(graded).public.fingerprint
    assert list(history["status"]) == [f"ok (signed by this project's key {key})"]
    assert list(history["parent"]) == ["\N{EM DASH}"]
    created = json.loads((out / "orders" / "v1" / "manifest.json").read_text())["created"]
    assert list(history["created"]) == [f"{created[:10]} {created[11:16]} UTC"]
    assert [d.label for d in page.get("download_button")] == ["Download orders v1 (zip)"]


def test_the_same_content_is_not_written_twice(page: AppTest, out: Path) -> None:
    page.run()
    submit(page, "export_create")
    submit(page, "export_create")
    assert notes(page, "info") == ["Nothing written: v1 already holds this content."]
    assert sorted(os.listdir(out / "orders")) == ["v1"]


def test_disagreements_are_listed_then_settled_by_a_policy(
    graded: Store, out: Path, monkeypatch
) -> None:
    monkeypatch.setenv("LABELER_DB", str(graded.path))
    monkeypatch.setenv("LABELER_EXPORTS", str(out))
    # Through the entrypoint: the message links the Adjudicate page, which needs the navigation.
    page = AppTest.from_file(APP, default_timeout=30)
    page.session_state["reviewer"] = "ana"
    page.switch_page("app_pages/export.py")
    graded.labels.set_grade("q1", "default", "rate-limits", "ben", 0)
    page.run()
    page.selectbox(key="export_policy").set_value("stop")
    submit(page, "export_create")
    assert page.error[0].value.startswith("1 disagreement(s) between reviewers.")
    listed = table(page, "export_disagreements")
    assert list(listed["question"]) == ["q1"]
    assert list(listed["grades"]) == ["ana: 2, ben: 0"]
    assert [link.label for link in page.get("page_link")] == ["Adjudicate the disagreements"]
    assert not out.exists()
    page.selectbox(key="export_policy").set_value("max")
    submit(page, "export_create")
    assert notes(page, "ok") == ["Created version v1 of orders."]
    assert (out / "orders" / "v1" / "qrels.tsv").read_text().splitlines()[1] == (
        "q1\t0\trate-limits\t2"
    )


def test_selection_by_tag_in_the_preview(page: AppTest) -> None:
    page.run()
    page.multiselect(key="export_tags").set_value(["paging"])
    submit(page, "export_preview")
    assert page.metric[0].value == "1"


def test_a_second_version_shows_what_changed_and_compares(
    page: AppTest, graded: Store, out: Path
) -> None:
    page.run()
    submit(page, "export_create")
    graded.labels.set_grade("q1", "default", "error-codes", "ana", 0)
    submit(page, "export_preview")
    changes = table(page, "export_changes")
    assert list(changes["question"]) == ["q1"]
    assert list(changes["labels"]) == ["error-codes: 1 → 0"]
    submit(page, "export_create")
    assert sorted(os.listdir(out / "orders")) == ["v1", "v2"]
    diff = table(page, "export_diff")
    assert list(diff["change"]) == ["relabelled"]
    assert page.selectbox(key="export_diff_old").value == 1
    assert page.selectbox(key="export_diff_new").value == 2


def test_a_modified_version_is_reported(page: AppTest, out: Path) -> None:
    page.run()
    submit(page, "export_create")
    qrels = out / "orders" / "v1" / "qrels.tsv"
    os.chmod(qrels, 0o644)
    qrels.write_text("q1\t0\trate-limits\t1\n", encoding="utf-8")
    page.run()
    assert any("Changed after export" in e.value for e in page.error)
    status = table(page, "export_history")["status"]
    assert list(status) == ["MODIFIED: qrels.tsv"]


def test_bad_names_are_refused_with_a_message(page: AppTest, out: Path) -> None:
    page.run()
    submit(page, "export_create", name="")
    assert [w.value for w in page.warning] == ["Type a name for the test set."]
    submit(page, "export_create", name="../escape")
    assert 'field "name"' in notes(page, "error")[0]
    assert not out.exists()


def test_question_text_is_never_rendered_as_markdown(page: AppTest, graded: Store) -> None:
    page.run()
    submit(page, "export_create")
    hostile = "![x](http://tracker.example/px.png) [click](http://evil.example)"
    retext(graded, "q2", hostile, tags=["api", "paging"])
    submit(page, "export_create")
    rendered = [m.value for m in page.markdown] + [c.value for c in page.caption]
    assert not any("tracker.example" in text for text in rendered)
    assert hostile in list(table(page, "export_diff")["text"])


def test_the_history_says_who_exported_each_version(page: AppTest, graded: Store) -> None:
    page.session_state["reviewer"] = "lead-ana"  # the logged-in account, or the name typed
    page.run()
    submit(page, "export_create")
    assert list(table(page, "export_history")["by"]) == ["lead-ana"]
    assert graded.versions.recorded("orders")[1]["exported_by"] == "lead-ana"
