"""A small, real OpenID Connect provider on 127.0.0.1 for the tests: a discovery document, a
JWKS, an authorization endpoint and a token endpoint (authorization code flow with PKCE S256),
signing RS256 ID tokens with a key made at start. It logs in whoever ``user`` names, without a
form (the tests drive the app's side, not a provider's login page). Standard library, plus
joserfc for the JSON Web Key and the token's signature (Authlib, which Streamlit's st.login
needs, brings it).

It checks what a provider must: the client's id, secret and redirect URI, a code used once and
within a minute, the PKCE verifier against the challenge; a request it refuses gets a 400.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from joserfc import jwt
from joserfc.jwk import RSAKey

from tests.e2e.server import free_port


@dataclass
class Grant:
    client_id: str
    redirect_uri: str
    nonce: str | None
    challenge: str | None
    email: str
    issued: float = field(default_factory=time.monotonic)


class Provider:
    """``start()``, then ``issuer`` is its URL; ``stop()`` ends it."""

    def __init__(self, client_id: str, client_secret: str, redirect_uri: str) -> None:
        self.client_id = client_id
        self.client_secret = client_secret
        self.redirect_uri = redirect_uri
        self.user = {"email": "", "name": ""}
        self.key = RSAKey.generate_key(2048, parameters={"kid": "test-key", "use": "sig"})
        self.grants: dict[str, Grant] = {}
        self.requests: list[str] = []
        self.port = free_port()
        self.issuer = f"http://127.0.0.1:{self.port}"
        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), self._handler())
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def start(self) -> Provider:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def discovery(self) -> dict:
        return {
            "issuer": self.issuer,
            "authorization_endpoint": f"{self.issuer}/authorize",
            "token_endpoint": f"{self.issuer}/token",
            "jwks_uri": f"{self.issuer}/jwks",
            "response_types_supported": ["code"],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["RS256"],
            "scopes_supported": ["openid", "email", "profile"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
            "code_challenge_methods_supported": ["S256"],
            "claims_supported": ["sub", "email", "email_verified", "name"],
        }

    def authorize(self, query: dict[str, str]) -> str:
        """The redirect back to the client with a code; raises ValueError on a bad request."""
        if query.get("response_type") != "code" or query.get("client_id") != self.client_id:
            raise ValueError("bad client or response type")
        if query.get("redirect_uri") != self.redirect_uri:
            raise ValueError("unregistered redirect_uri")
        if "openid" not in query.get("scope", "").split():
            raise ValueError("not an OpenID request")
        if query.get("code_challenge") and query.get("code_challenge_method") != "S256":
            raise ValueError("only S256")
        code = secrets.token_urlsafe(24)
        self.grants[code] = Grant(
            self.client_id,
            query["redirect_uri"],
            query.get("nonce"),
            query.get("code_challenge"),
            self.user["email"],
        )
        back = {"code": code, "state": query.get("state", "")}
        return f"{query['redirect_uri']}?{urllib.parse.urlencode(back)}"

    def token(self, form: dict[str, str], authorization: str | None) -> dict:
        """The token response for a code; raises ValueError on a bad request."""
        client_id, secret = form.get("client_id"), form.get("client_secret")
        if authorization and authorization.startswith("Basic "):
            decoded = base64.b64decode(authorization[6:]).decode("utf-8")
            client_id, _, secret = (urllib.parse.unquote(p) for p in decoded.partition(":"))
        if client_id != self.client_id or secret != self.client_secret:
            raise ValueError("bad client credentials")
        if form.get("grant_type") != "authorization_code":
            raise ValueError("unsupported grant")
        grant = self.grants.pop(form.get("code", ""), None)
        if grant is None or time.monotonic() - grant.issued > 60:
            raise ValueError("unknown, used or expired code")
        if form.get("redirect_uri") != grant.redirect_uri:
            raise ValueError("redirect_uri differs")
        if grant.challenge is not None:
            verifier = form.get("code_verifier", "")
            digest = hashlib.sha256(verifier.encode("ascii")).digest()
            if base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii") != grant.challenge:
                raise ValueError("PKCE verifier does not match")
        now = int(time.time())
        claims = {
            "iss": self.issuer,
            "sub": hashlib.sha256(grant.email.encode()).hexdigest()[:16],
            "aud": self.client_id,
            "iat": now,
            "exp": now + 300,
            "email": grant.email,
            "email_verified": True,
            "name": self.user["name"],
        }
        if grant.nonce is not None:
            claims["nonce"] = grant.nonce
        id_token = jwt.encode({"alg": "RS256", "kid": "test-key"}, claims, self.key)
        return {
            "access_token": secrets.token_urlsafe(24),
            "token_type": "Bearer",
            "expires_in": 300,
            "id_token": id_token,
        }

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        provider = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:  # quiet
                return

            def _send(self, status: int, body: dict | None = None, location: str = "") -> None:
                self.send_response(status)
                if location:
                    self.send_header("Location", location)
                data = json.dumps(body or {}).encode("utf-8")
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                url = urllib.parse.urlsplit(self.path)
                provider.requests.append(f"GET {url.path}")
                query = dict(urllib.parse.parse_qsl(url.query))
                if url.path == "/.well-known/openid-configuration":
                    self._send(200, provider.discovery())
                elif url.path == "/jwks":
                    self._send(200, {"keys": [provider.key.as_dict(private=False)]})
                elif url.path == "/authorize":
                    try:
                        self._send(302, location=provider.authorize(query))
                    except ValueError as error:
                        self._send(400, {"error": "invalid_request", "detail": str(error)})
                else:
                    self._send(404, {"error": "not_found"})

            def do_POST(self) -> None:
                url = urllib.parse.urlsplit(self.path)
                provider.requests.append(f"POST {url.path}")
                length = int(self.headers.get("Content-Length") or 0)
                form = dict(urllib.parse.parse_qsl(self.rfile.read(length).decode("utf-8")))
                if url.path != "/token":
                    self._send(404, {"error": "not_found"})
                    return
                try:
                    self._send(200, provider.token(form, self.headers.get("Authorization")))
                except ValueError as error:
                    self._send(400, {"error": "invalid_grant", "detail": str(error)})

        return Handler


__all__ = ["Provider"]
