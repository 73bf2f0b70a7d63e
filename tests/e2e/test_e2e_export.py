"""Exporting from the app in a real browser: with "stop" the demo's disagreements stop the
export, the project's policy (majority) settles them, and the new version appears in the
history on disk."""

import json

import pytest

from labeler.demo import load_demo
from labeler.store import Store
from tests.e2e.conftest import screenshot, wait_for_app

pytestmark = pytest.mark.e2e


def test_create_a_version_from_the_export_page(tmp_path, serve, page, monkeypatch) -> None:
    exports = tmp_path / "exports"
    monkeypatch.setenv("LABELER_EXPORTS", str(exports))
    with Store(tmp_path / "demo.db") as store:
        load_demo(store)
        db = store.path
    server = serve(db)
    page.goto(f"{server.url}/export?reviewer=maria")
    wait_for_app(page)
    page.locator(".st-key-export_name input").fill("orders-faq")
    # Commit the name before opening the dropdown: the rerun its blur would start otherwise can
    # redraw the select box while it opens, and the option is never shown.
    page.locator(".st-key-export_name input").press("Enter")
    wait_for_app(page)
    page.locator(".st-key-export_policy").click()
    page.get_by_role("option", name="stop", exact=True).click()
    wait_for_app(page)
    page.get_by_role("button", name="Create version").click()
    wait_for_app(page)
    page.wait_for_selector(".st-key-export_disagreements")
    assert not (exports / "orders-faq").exists()  # (the demo's own fernleaf-support is there)
    page.locator(".st-key-export_policy").click()
    page.get_by_role("option", name="majority (the project's)", exact=True).click()
    wait_for_app(page)
    page.get_by_role("button", name="Create version").click()
    wait_for_app(page)
    page.wait_for_selector(".st-key-export_history")
    screenshot(page, "export-created")
    manifest = json.loads((exports / "orders-faq" / "v1" / "manifest.json").read_text())
    assert manifest["policy"] == "majority"
    assert manifest["counts"]["questions"] == 39  # 33 graded questions and 6 graded turns
    # A second version: the comparison appears, and switching its versions redraws only it.
    with Store(db) as store:
        store.labels.set_grade("q001", "default", "orders-api-rate-limits#1", "maria", 0)
    page.get_by_role("button", name="Create version").click()
    wait_for_app(page)
    page.wait_for_selector(".st-key-export_diff")
    page.locator(".st-key-export_diff").scroll_into_view_if_needed()
    wait_for_app(page)
    screenshot(page, "export-compare")
    from labeler.versions.diff import diff_versions

    summary = diff_versions(exports / "orders-faq" / "v1", exports / "orders-faq" / "v2").summary()
    assert summary["labels_regraded"] + summary["labels_removed"] >= 1
    shown = (
        f"{summary['labels_added']} / {summary['labels_removed']} / {summary['labels_regraded']}"
    )
    assert shown in page.locator("[data-testid='stMetricValue']").all_inner_texts()
