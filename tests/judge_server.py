"""A small real OpenAI-compatible server for the judge run's tests and benchmark: a
``ThreadingHTTPServer`` on 127.0.0.1 answering ``POST /v1/chat/completions`` as the protocol
says, and counting every call it gets.

What it answers is read from the passage (or answer) in the prompt, so a test states it in its
data: a passage holding ``GRADE2`` or ``GRADE1`` gets that grade (anything else 0), with a reason;
``GARBAGE`` gets prose instead of JSON; ``FENCED`` a JSON object in a code fence;
``RATELIMIT`` a 429 with ``Retry-After: 1`` on its first call; ``BROKEN`` a 500 on its first two
calls; ``ALWAYS500`` a 500 every time; ``HANG`` no answer for ``hang_s`` on its first call. With
``key`` set, a call without ``Authorization: Bearer <key>`` gets a 401 whose body echoes the
header it got (a server that repeats what it was sent: the client must not pass it on); a
model other than ``model`` gets a 404.

Run on its own (the benchmark runs it in another process so that its CPU is not the tool's)::

    python tests/judge_server.py --delay 0.05      # prints the port, then serves
"""

from __future__ import annotations

import argparse
import json
import re
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PASSAGE = re.compile(r"<(passage|answer)>\n(.*?)\n</\1>", re.S)


class JudgeServer:
    def __init__(
        self,
        *,
        delay: float = 0.0,
        hang_s: float = 3.0,
        key: str | None = None,
        model: str = "test-model",
    ) -> None:
        self.delay = delay
        self.hang_s = hang_s
        self.key = key
        self.model = model
        self.calls = 0
        self.requests: list[dict] = []
        self.auth_headers: list[str | None] = []
        self.seen: dict[str, int] = {}
        self.lock = threading.Lock()
        self.httpd = _Server(("127.0.0.1", 0), _handler(self))
        self.httpd.errors = []
        self.httpd.daemon_threads = True
        self.thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return self.httpd.server_address[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> JudgeServer:
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> JudgeServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def count(self, body: dict, auth: str | None) -> tuple[str, int]:
        """Count the call; returns the passage and how many times it was seen before."""
        content = body["messages"][-1]["content"]
        found = PASSAGE.findall(content)
        passage = found[-1][1] if found else content
        with self.lock:
            self.calls += 1
            self.requests.append(body)
            self.auth_headers.append(auth)
            before = self.seen.get(passage, 0)
            self.seen[passage] = before + 1
        return passage, before


class _Server(ThreadingHTTPServer):
    errors: list[BaseException]

    def handle_error(self, request, client_address) -> None:
        """Kept, not printed: a client that hangs up mid-answer (a run stopping its calls) is
        no error here, and the CLI's output under test is its own alone."""
        self.errors.append(sys.exc_info()[1])


def answer_for(passage: str) -> str:
    grade = 2 if "GRADE2" in passage else 1 if "GRADE1" in passage else 0
    if "GARBAGE" in passage:
        return f"Sure! I would say this passage deserves a {grade}."
    text = json.dumps({"grade": grade, "reason": f"The passage earns {grade}."})
    if "FENCED" in passage:
        return f"```json\n{text}\n```"
    return text


def _handler(server: JudgeServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:  # quiet
            return

        def setup(self) -> None:
            super().setup()
            # As real servers do: no Nagle delay between the headers and the body.
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

        def _send(self, status: int, payload: dict, headers: dict | None = None) -> None:
            data = json.dumps(payload).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            # headers and body in one write
            self._headers_buffer.append(b"\r\n" + data)
            self.flush_headers()

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
            except ValueError:  # the client hung up mid-request (a run stopping its calls)
                return
            if not self.path.endswith("/chat/completions"):
                self._send(404, {"error": {"message": f"no route {self.path}"}})
                return
            auth = self.headers.get("Authorization")
            passage, before = server.count(body, auth)
            if server.key is not None and auth != f"Bearer {server.key}":
                echoed = {"message": f"bad credentials: {auth}", "type": "invalid_request_error"}
                self._send(401, {"error": echoed}, {"X-Echo": str(auth)})
                return
            if body.get("model") != server.model:
                message = f"model {body.get('model')!r} not found"
                self._send(404, {"error": {"message": message}})
                return
            if server.delay:
                time.sleep(server.delay)
            if "RATELIMIT" in passage and before == 0:
                message = {"message": "slow down"}
                self._send(429, {"error": message}, {"Retry-After": "1"})
                return
            if ("BROKEN" in passage and before < 2) or "ALWAYS500" in passage:
                self._send(500, {"error": {"message": "internal error"}})
                return
            if "HANG" in passage and before == 0:
                time.sleep(server.hang_s)
            content = answer_for(passage)
            self._send(
                200,
                {
                    "id": f"chatcmpl-{server.calls}",
                    "object": "chat.completion",
                    "created": 0,
                    "model": server.model,
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": content},
                            "finish_reason": "stop",
                        }
                    ],
                    "usage": {
                        "prompt_tokens": len(body["messages"][-1]["content"].split()),
                        "completion_tokens": len(content.split()),
                        "total_tokens": 0,
                    },
                },
            )

    return Handler


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--delay", type=float, default=0.0)
    parser.add_argument("--model", default="test-model")
    args = parser.parse_args()
    server = JudgeServer(delay=args.delay, model=args.model)
    print(server.port, flush=True)
    try:
        server.httpd.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        print(f"calls {server.calls}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
