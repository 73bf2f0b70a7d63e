"""Every page of the app on the demo data, in a real browser: it renders without an error, and
a screenshot is left in tests/e2e/screenshots/ for a person to look at."""

import pytest

from labeler.app.pages import PAGES
from tests.e2e.conftest import screenshot, wait_for_app

pytestmark = pytest.mark.e2e


def test_every_page_renders_on_the_demo(demo_db, serve, page) -> None:
    server = serve(demo_db)
    for number, (file, title, _icon, _section, _right) in enumerate(PAGES):
        url_path = file.removesuffix(".py")
        # The first page is the default one: it lives at the root.
        page.goto(f"{server.url}/{'' if number == 0 else url_path}?reviewer=maria")
        wait_for_app(page)
        page.wait_for_selector("[data-testid='stMainBlockContainer']")
        page.wait_for_timeout(300)
        screenshot(page, f"page-{url_path}")
        assert page.locator("[data-testid='stException']").count() == 0, title
