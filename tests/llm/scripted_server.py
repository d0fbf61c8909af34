"""A loopback OpenAI-shaped chat server whose replies follow a rule written by the test.

For tests that need well-formed (or deliberately broken) model replies through the real
:class:`~policies.llm.OpenAIBackend` and HTTP stack: ``reply(content, seed)`` answers the last
user message; the first ``garbage`` requests get ``bad_reply`` instead. Every request body is kept
in ``requests``.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class ScriptedServer:
    """Serves ``POST /v1/chat/completions`` on 127.0.0.1 (a free port); ``url`` is the base URL."""

    def __init__(self, reply: Callable[[str, "int | None"], str], garbage: int = 0,
                 bad_reply: str = "not json at all") -> None:
        self.reply, self.garbage, self.bad_reply = reply, garbage, bad_reply
        self.requests: list[dict] = []
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                with server.lock:
                    server.requests.append(body)
                    bad = server.garbage > 0
                    server.garbage -= bad
                text = server.bad_reply if bad else server.reply(body["messages"][-1]["content"], body.get("seed"))
                payload = {"id": "x", "object": "chat.completion", "created": 0, "model": body.get("model", ""),
                           "choices": [{"index": 0, "finish_reason": "stop",
                                        "message": {"role": "assistant", "content": text}}],
                           "usage": {"prompt_tokens": 5, "completion_tokens": 5, "total_tokens": 10}}
                data = json.dumps(payload).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)


@contextmanager
def scripted_backend(
    reply: Callable[[str, "int | None"], str], **backend_kwargs: Any
) -> Iterator[tuple[ScriptedServer, Any]]:
    """A :class:`ScriptedServer` and a real OpenAIBackend talking to it (no retries); both closed afterwards."""
    from policies.llm import OpenAIBackend

    server = ScriptedServer(reply)
    backend = OpenAIBackend(server.url, "scripted", **{"max_retries": 0, "timeout": 10, **backend_kwargs})
    try:
        yield server, backend
    finally:
        backend.close()
        server.close()
