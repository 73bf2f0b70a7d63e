"""OpenID Connect through Streamlit's own st.login, against a real provider the test starts on
127.0.0.1 (``tests/e2e/oidc_provider.py``): the provider's email logs in the account an owner
gave it, an email no account has is refused, and logging out ends the session on the server."""

import secrets
from pathlib import Path

import pytest

from labeler.accounts import users
from labeler.accounts.roles import shell_authority
from labeler.store import Store
from tests.e2e.conftest import screenshot, wait_for_app
from tests.e2e.oidc_provider import Provider
from tests.e2e.server import Server

pytestmark = pytest.mark.e2e

CLIENT_ID = "labeler-test"
CLIENT_SECRET = secrets.token_urlsafe(16)


@pytest.fixture
def provider():
    started = Provider(CLIENT_ID, CLIENT_SECRET, redirect_uri="").start()
    yield started
    started.stop()


@pytest.fixture
def oidc_server(demo_db: Path, provider: Provider, tmp_path: Path):
    with Store(demo_db) as store, shell_authority("root"):
        users.add_user(store, "olga", "owner", None, actor="root", email="Olga@Fernleaf.example")
    config = tmp_path / "secrets.toml"
    config.write_text(
        "[auth]\n"
        'redirect_uri = "http://127.0.0.1:{port}/oauth2callback"\n'
        f'cookie_secret = "{secrets.token_urlsafe(32)}"\n'
        f'client_id = "{CLIENT_ID}"\n'
        f'client_secret = "{CLIENT_SECRET}"\n'
        f'server_metadata_url = "{provider.issuer}/.well-known/openid-configuration"\n',
        encoding="utf-8",
    )
    server = Server(demo_db, extra=("--secrets.files", str(config)))
    provider.redirect_uri = f"{server.url}/oauth2callback"
    yield server
    server.stop()


def oidc_login(page, server: Server) -> None:
    page.goto(server.url)
    wait_for_app(page)
    page.get_by_role("button", name="Log in with your organisation's account").click()
    page.wait_for_url(f"{server.url}/**")
    wait_for_app(page)


def test_the_providers_email_logs_in_its_account(
    oidc_server: Server, provider: Provider, demo_db: Path, page
) -> None:
    provider.user = {"email": "olga@fernleaf.example", "name": "Olga"}
    oidc_login(page, oidc_server)
    page.get_by_text("Reviewing as olga (owner)").wait_for()
    page.wait_for_selector(".st-key-label_card_0")
    screenshot(page, "accounts-oidc-logged-in")
    assert provider.requests[:1] == ["GET /.well-known/openid-configuration"]
    assert {"GET /authorize", "POST /token", "GET /jwks"} <= set(provider.requests)
    with Store(demo_db) as store:
        (session,) = store.query("SELECT account, method, ended_at FROM sessions")
    assert session == {"account": "olga", "method": "oidc", "ended_at": None}
    # Log out: the session ends on the server and the provider's cookie goes.
    page.get_by_role("button", name="Log out").click()
    page.get_by_role("button", name="Log in with your organisation's account").wait_for()
    with Store(demo_db) as store:
        (ended,) = store.query("SELECT end_reason FROM sessions")
    assert ended == {"end_reason": "logout"}
    assert "_streamlit_user" not in {c["name"] for c in page.context.cookies()}


def test_an_email_no_account_has_is_refused(oidc_server: Server, provider: Provider, page) -> None:
    provider.user = {"email": "mallory@elsewhere.example", "name": "Mallory"}
    oidc_login(page, oidc_server)
    page.get_by_text("No account on this project has the email").wait_for()
    # The button comes in the same run, just after the message: wait for it, then count.
    page.get_by_role("button", name="Use another account").wait_for()
    assert page.get_by_role("button", name="Use another account").count() == 1
    assert page.locator(".st-key-label_card_0").count() == 0
