"""One call to an OpenAI-compatible chat-completions endpoint (a hosted API, vLLM, Ollama,
LiteLLM), with the retries a long run needs and nothing that could leak the key.

- The official ``openai`` client (the optional extra ``[judge]``), with ``base_url``, its own
  retries off (``max_retries=0``) so that the tries counted here are the only ones, and
  temperature 0.
- 429, 408, 409, 5xx, timeouts and dropped connections are tried again, up to ``TRIES`` tries in
  all, after an exponential backoff with jitter (``backoff``), or after the time the server asks
  for (``Retry-After``, or ``retry-after-ms``); a wait asked for holds every thread back, not
  just the one that was told. A call whose tries run out fails (``CallFailed``) and the run goes
  on, except when the endpoint could never be reached: then nothing else will work either.
- 401, 403 and 404 (a wrong key, a key without access, a wrong URL or model) stop the run at
  once (``EndpointRefused``, a LabelerError: one line, exit 2), as does a server asking to wait
  more than ``MAX_WAIT_S`` (a spent quota).
- The key is read by the caller from the environment variable the user names and handed here;
  it is never part of a message: every text that came from the server or the client library
  passes through ``redact`` first, and the URL is shown without credentials or query.
"""

from __future__ import annotations

import email.utils
import json
import logging
import random
import threading
import time
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from labeler.errors import LabelerError

TRIES = 5
BACKOFF_BASE_S = 0.5
BACKOFF_CAP_S = 20.0
MAX_WAIT_S = 300.0
RETRY_STATUSES = frozenset({408, 409, 429})
STOP_STATUSES = {
    401: "refused the key (401 Unauthorized)",
    403: "refused access (403 Forbidden)",
    404: "has no such model or path (404 Not Found; the URL ends where the API starts, often /v1)",
}
INSTALL_HINT = 'pip install "labeler[judge]"'
STOPPED = "stopped before an answer came"


@dataclass(frozen=True, slots=True)
class Endpoint:
    base_url: str
    model: str
    api_key: str | None = field(default=None, repr=False)
    timeout: float = 60.0

    @property
    def host(self) -> str:
        """host[:port] only: what a rating records of where it came from."""
        parts = urlsplit(self.base_url)
        host = parts.hostname or ""
        return f"{host}:{parts.port}" if parts.port else host

    @property
    def shown(self) -> str:
        """The URL as messages show it: no user, password or query (which may hold a key)."""
        parts = urlsplit(self.base_url)
        return f"{parts.scheme}://{self.host}{parts.path}"


def check_endpoint(base_url: str, model: str, timeout: float) -> None:
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise LabelerError("expected an http:// or https:// URL", field="base-url")
    if not model.strip():
        raise LabelerError("name the model the endpoint serves", field="model")
    if not timeout > 0:
        raise LabelerError(f"must be more than 0 seconds, got {timeout!r}", field="timeout")


@dataclass(frozen=True, slots=True)
class Reply:
    text: str | None
    tokens_in: int | None
    tokens_out: int | None
    latency_ms: float
    tries: int
    problem: str | None = None  # the reply is no chat completion: ``text`` is its raw body


class CallFailed(Exception):
    """This call gave no answer (its tries ran out, or the server refused it for good)."""

    def __init__(self, reason: str, tries: int) -> None:
        super().__init__(reason)
        self.reason = reason
        self.tries = tries


class EndpointRefused(LabelerError):
    """No call to this endpoint can work: the run stops."""


def redact(text: str, secret: str | None) -> str:
    return text.replace(secret, "[key]") if secret else text


LIBRARY_LOGGERS = ("openai", "httpx", "httpcore")


class KeyFilter(logging.Filter):
    """Takes the key out of every log record of the client's libraries: a server that echoes
    what it was sent (in a header, in an error body) must not put the key in a log."""

    def __init__(self, secret: str) -> None:
        super().__init__()
        self.secret = secret

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if self.secret in message:
            record.msg, record.args = redact(message, self.secret), ()
        return True


def hide_in_logs(secret: str) -> None:
    """Filter ``secret`` out of the client libraries' logs, for the rest of the process: a
    call still in flight when a run stops may log after it (once per secret)."""
    for logger in _library_loggers():
        if not any(isinstance(f, KeyFilter) and f.secret == secret for f in logger.filters):
            logger.addFilter(KeyFilter(secret))


def _library_loggers() -> list[logging.Logger]:
    """Every logger of the client's libraries (a filter acts on the logger a record is made
    on, not on its parents)."""
    names = [
        name
        for name in list(logging.root.manager.loggerDict)
        if name.split(".")[0] in LIBRARY_LOGGERS
    ]
    return [logging.getLogger(name) for name in sorted({*names, *LIBRARY_LOGGERS})]


def check_openai() -> None:
    """A LabelerError saying how to install the client when it is missing, found without
    importing it (a run that needs no call never pays for the import)."""
    import importlib.util
    import sys

    try:
        missing = sys.modules.get("openai", True) is None or not importlib.util.find_spec("openai")
    except (ImportError, ValueError):
        missing = True
    if missing:
        msg = f"labeler judge run needs the openai client: {INSTALL_HINT}"
        raise LabelerError(msg)


def load_openai():
    """The ``openai`` module, or a LabelerError saying how to install it."""
    try:
        import openai
    except ImportError:
        msg = f"labeler judge run needs the openai client: {INSTALL_HINT}"
        raise LabelerError(msg) from None
    return openai


def retry_after(headers: object) -> float | None:
    """The wait a response asks for: ``retry-after-ms``, or ``Retry-After`` in seconds or as
    an HTTP date; None when it asks for none (or says something unreadable)."""
    get = getattr(headers, "get", None)
    if get is None:
        return None
    millis = get("retry-after-ms")
    if millis is not None:
        try:
            return max(float(millis) / 1000.0, 0.0)
        except ValueError:
            pass
    value = get("retry-after")
    if value is None:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(when.timestamp() - time.time(), 0.0)


def backoff(attempt: int, rng: random.Random) -> float:
    """The wait after failed try ``attempt`` (1, 2, ...): 0.5 s doubling to at most 20 s, each
    drawn between half and all of it (jitter, so waiting threads do not return together)."""
    ceiling = min(BACKOFF_CAP_S, BACKOFF_BASE_S * 2 ** (attempt - 1))
    return ceiling * (0.5 + 0.5 * rng.random())


class ChatClient:
    """Calls one model at one endpoint; safe to share between threads."""

    def __init__(self, endpoint: Endpoint, *, tries: int = TRIES, seed: int | None = None) -> None:
        openai = load_openai()
        self.endpoint = endpoint
        self.tries = tries
        self._openai = openai
        # The key goes to the client and nowhere else; "" sends no Authorization header (and
        # keeps the library from reading OPENAI_API_KEY, which belongs to another endpoint).
        # The client's own post (its documented way to call any path) with the raw response:
        # its request checks, headers, errors and timeouts, without building typed objects
        # of the request and the reply, which cost more CPU than the rest of a call.
        import httpx  # the client's own transport, installed with it

        self._raw = httpx.Response
        self._client = openai.OpenAI(
            base_url=endpoint.base_url,
            api_key=endpoint.api_key or "",
            max_retries=0,
            timeout=endpoint.timeout,
        )
        self._rng = random.Random(seed)
        self._lock = threading.Lock()
        self._pause_until = 0.0
        if endpoint.api_key:
            hide_in_logs(endpoint.api_key)

    def close(self) -> None:
        self._client.close()

    def _hold(self, stop: threading.Event) -> None:
        """Wait while the server has asked every caller to (Retry-After), or until stopped."""
        while not stop.is_set():
            with self._lock:
                wait = self._pause_until - time.monotonic()
            if wait <= 0:
                return
            stop.wait(wait)

    def _pause(self, seconds: float) -> float:
        with self._lock:
            jitter = seconds * 0.1 * self._rng.random()
            self._pause_until = max(self._pause_until, time.monotonic() + seconds + jitter)
            return seconds + jitter

    def _message(self, error: Exception) -> str:
        body = getattr(error, "body", None)
        text = ""
        if isinstance(body, dict):
            detail = body.get("error", body)
            text = str(detail.get("message", detail) if isinstance(detail, dict) else detail)
        elif body is not None:
            text = str(body)
        text = redact(" ".join(text.split()), self.endpoint.api_key)
        return text if len(text) <= 200 else text[:199] + "…"

    def complete(self, prompt: str, *, stop: threading.Event | None = None) -> Reply:
        """The model's reply to ``prompt`` (one user message), after up to ``tries`` tries;
        ``stop`` set ends the waiting between tries (CallFailed with ``STOPPED``)."""
        openai = self._openai
        stop = stop or threading.Event()
        for attempt in range(1, self.tries + 1):
            self._hold(stop)
            if stop.is_set():
                raise CallFailed(STOPPED, attempt - 1)
            wait: float | None = None
            unreachable = False
            started = time.perf_counter()
            try:
                response = self._client.post(
                    "/chat/completions",
                    cast_to=self._raw,
                    body={
                        "model": self.endpoint.model,
                        "messages": [{"role": "user", "content": prompt}],
                        "temperature": 0,
                    },
                )
            except openai.APITimeoutError:
                reason = f"no answer within {self.endpoint.timeout:g} s"
            except openai.APIConnectionError as error:
                cause = error.__cause__ or error
                reason = redact(f"cannot connect ({type(cause).__name__})", self.endpoint.api_key)
                unreachable = True
            except openai.APIStatusError as error:
                status = error.status_code
                detail = self._message(error)
                if status in STOP_STATUSES:
                    msg = f"{self.endpoint.shown} {STOP_STATUSES[status]}" + (
                        f": {detail}" if detail else ""
                    )
                    raise EndpointRefused(msg, field="base-url") from None
                reason = f"HTTP {status}" + (f": {detail}" if detail else "")
                if status not in RETRY_STATUSES and status < 500:
                    raise CallFailed(reason, attempt) from None
                wait = retry_after(error.response.headers)
                if wait is not None and wait > MAX_WAIT_S:
                    msg = (
                        f"{self.endpoint.shown} asks to wait {wait:.0f} s before the next call"
                        " (Retry-After): run again later"
                    )
                    raise EndpointRefused(msg, field="base-url") from None
            else:
                return reply_of(response.content, started, attempt)
            if attempt == self.tries:
                if unreachable:
                    msg = f"cannot reach {self.endpoint.shown}: {reason}"
                    raise EndpointRefused(msg, field="base-url")
                raise CallFailed(f"{reason} ({attempt} tries)", attempt)
            stop.wait(self._pause(wait) if wait is not None else backoff(attempt, self._rng))
        raise CallFailed(STOPPED, self.tries)


def reply_of(body: bytes, started: float, attempt: int) -> Reply:
    """The reply's text and token counts, read from the chat completion's JSON (a body that is
    not one is kept as the raw text, with the problem named)."""
    latency = (time.perf_counter() - started) * 1000.0
    text = body.decode("utf-8", errors="replace")
    try:
        data = json.loads(text)
        content = data["choices"][0]["message"]["content"]
        if content is not None and not isinstance(content, str):
            raise TypeError("content")
    except (ValueError, KeyError, IndexError, TypeError):
        problem = "the server's reply is not a chat completion"
        return Reply(text[:10_000], None, None, latency, attempt, problem)
    usage = data.get("usage") if isinstance(data, dict) else None
    usage = usage if isinstance(usage, dict) else {}
    return Reply(
        text=content,
        tokens_in=_count(usage.get("prompt_tokens")),
        tokens_out=_count(usage.get("completion_tokens")),
        latency_ms=latency,
        tries=attempt,
    )


def _count(value: object) -> int | None:
    return value if type(value) is int and value >= 0 else None


__all__ = [
    "INSTALL_HINT",
    "STOPPED",
    "TRIES",
    "CallFailed",
    "ChatClient",
    "Endpoint",
    "EndpointRefused",
    "Reply",
    "backoff",
    "check_endpoint",
    "check_openai",
    "load_openai",
    "redact",
    "retry_after",
]
