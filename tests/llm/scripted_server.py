"""A loopback OpenAI-shaped chat server whose replies follow a rule written by the test.

For tests that need well-formed (or deliberately broken) model replies through the real
:class:`~policies.llm.OpenAIBackend` and HTTP stack: ``reply(content, seed)`` answers the last
user message; the first ``garbage`` requests get ``bad_reply`` instead. Every request body is kept
in ``requests``; while ``reply`` runs, ``caller.address`` is the (host, port) of the client that asked.
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class _QuietServer(ThreadingHTTPServer):
    """A client that hung up before its reply (a killed worker) is no error of the server's: not printed."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class _LoopbackServer:
    """Serves a handler class on 127.0.0.1 (a free port) in a daemon thread; ``url`` is the base URL."""

    def _serve(self, handler: type[BaseHTTPRequestHandler], port: int = 0) -> None:
        self.httpd = _QuietServer(("127.0.0.1", port), handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)


class ScriptedServer(_LoopbackServer):
    """Serves ``POST /v1/chat/completions`` on 127.0.0.1 (``port``; 0: a free one); ``url`` is the base URL."""

    def __init__(
        self,
        reply: Callable[[str, "int | None"], str],
        garbage: int = 0,
        bad_reply: str = "not json at all",
        port: int = 0,
    ) -> None:
        self.reply, self.garbage, self.bad_reply = reply, garbage, bad_reply
        self.requests: list[dict] = []
        self.lock = threading.Lock()
        self.caller = threading.local()  # each request is served by a thread of its own
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
                server.caller.address = self.client_address
                text = server.bad_reply if bad else server.reply(body["messages"][-1]["content"], body.get("seed"))
                payload = {
                    "id": "x",
                    "object": "chat.completion",
                    "created": 0,
                    "model": body.get("model", ""),
                    "choices": [
                        {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}
                    ],
                    "usage": {"prompt_tokens": 5, "completion_tokens": 5, "total_tokens": 10},
                }
                data = json.dumps(payload).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self._serve(Handler, port)


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


# --------------------------------------------------------------------------------------------- completions


def toy_logprob(prefix: "list[int]", token: int) -> float:
    """The :class:`CompletionServer`'s language model: a fixed, made-up log p(token | prefix)."""
    h = (sum(prefix) * 31 + len(prefix) * 17 + token * 7) % 101
    return -0.5 - h / 25.0


class CompletionServer(_LoopbackServer):
    """Serves ``POST /v1/completions`` (and a fixed chat reply) on 127.0.0.1 with :func:`toy_logprob`.

    A token-id prompt is scored as given; a text prompt is one token per character (``ord``). Echo
    requests (``echo=True, max_tokens=0``) get every prompt token's log-probability; ``max_tokens=1``
    requests get ``top_logprobs[0]`` with the sampled token (id 1) and each ``logprob_token_ids``
    entry, keyed ``token_id:N`` when ``return_tokens_as_token_ids`` is set, else by ``decode(id)``.

    Behaviour switches: ``echo`` (False: HTTP 400 to echo), ``next_token`` (``"token_ids"``: honour
    ``logprob_token_ids``; ``"ignore"``: answer as a server that does not know it; ``"refuse"``: HTTP
    400), ``token_id_keys`` (False: text keys always), ``bad_replies`` (bodies sent with HTTP 200
    before any valid reply, one per request, as
    ``(content_type, body)``; ``bad_default``: sent to every request once those are used, if set).
    Every request body is kept in ``requests``.
    """

    def __init__(self, decode: "Callable[[int], str] | None" = None) -> None:
        self.decode = decode or chr
        self.echo = True
        self.next_token = "token_ids"
        self.token_id_keys = True  # False: key top_logprobs by token text even when asked for token ids
        self.bad_replies: list[tuple[str, str]] = []
        self.bad_default: "tuple[str, str] | None" = None
        self.requests: list[dict] = []
        self.lock = threading.Lock()
        self.caller = threading.local()  # each request is served by a thread of its own
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                with server.lock:
                    server.requests.append({"path": self.path, "body": body})
                    bad = server.bad_replies.pop(0) if server.bad_replies else server.bad_default
                if bad is not None:
                    return self._send(200, bad[1].encode(), bad[0])
                status, payload = server.answer(self.path, body)
                self._send(status, json.dumps(payload).encode(), "application/json")

            def _send(self, status: int, data: bytes, content_type: str) -> None:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self._serve(Handler)

    def answer(self, path: str, body: dict) -> "tuple[int, dict]":
        """The HTTP status and JSON reply to one request."""

        def refuse(message: str) -> "tuple[int, dict]":
            return 400, {"error": {"message": message, "type": "BadRequestError"}}

        if path.endswith("/chat/completions"):
            return 200, {
                "id": "x",
                "object": "chat.completion",
                "created": 0,
                "model": body.get("model", ""),
                "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "Rock"}}],
                "usage": {"prompt_tokens": 5, "completion_tokens": 1, "total_tokens": 6},
            }
        prompt = body["prompt"]
        ids = list(prompt) if isinstance(prompt, list) else [ord(c) for c in prompt]
        tokens = [self.decode(i) for i in ids]
        usage = {"prompt_tokens": len(ids), "completion_tokens": 0, "total_tokens": len(ids)}
        if body.get("echo"):
            if not self.echo:
                return refuse("echo is not supported")
            lps = [None] + [toy_logprob(ids[:k], ids[k]) for k in range(1, len(ids))]
            logprobs = {
                "tokens": tokens,
                "token_logprobs": lps,
                "top_logprobs": [None] * len(ids),
                "text_offset": [sum(map(len, tokens[:k])) for k in range(len(ids))],
            }
            text = "".join(tokens)
        else:
            wanted = body.get("logprob_token_ids")
            if wanted and self.next_token == "refuse":
                return refuse("unknown field: logprob_token_ids")
            if self.next_token == "ignore":
                wanted = None
            by_id = body.get("return_tokens_as_token_ids") and wanted and self.token_id_keys
            key = (lambda i: f"token_id:{i}") if by_id else self.decode
            step = {key(i): toy_logprob(ids, i) for i in [1, *(wanted or [])]}
            logprobs = {
                "tokens": [key(1)],
                "token_logprobs": [toy_logprob(ids, 1)],
                "top_logprobs": [step],
                "text_offset": [0],
            }
            text = self.decode(1)
            usage["completion_tokens"] = 1
        choice = {"index": 0, "text": text, "finish_reason": "length", "logprobs": logprobs}
        return 200, {
            "id": "cmpl",
            "object": "text_completion",
            "created": 0,
            "model": body.get("model", ""),
            "choices": [choice],
            "usage": usage,
        }
