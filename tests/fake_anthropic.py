"""A fake Anthropic Messages API on loopback, speaking the real wire format.

Tests (and processes they start, such as the product's own worker) point the real
``anthropic`` SDK at it. It is scripted: each ``POST /v1/messages`` takes the next step
of the script (a reply, an HTTP error, a delay); with the script empty it answers a
plain text reply. Every request it receives is recorded.

Control endpoints, for processes other than the test:
- ``POST /_control/script``  body: a JSON list of steps (replaces the script)
- ``GET  /_control/requests`` the recorded requests (method, path, headers, body)
- ``POST /_control/reset``    clears script and records

Run standalone: ``python -m tests.fake_anthropic --port 8765``.
"""

from __future__ import annotations

import argparse
import json
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def usage(input_tokens: int = 10, output_tokens: int = 5, cache_read: int = 0, cache_write: int = 0) -> dict:
    return {
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
        "cache_read_input_tokens": cache_read,
        "cache_creation_input_tokens": cache_write,
    }


def text_reply(text: str, **usage_kw: int) -> dict:
    """A step answering one text block with ``stop_reason=end_turn``."""
    return {
        "body": {"content": [{"type": "text", "text": text}], "stop_reason": "end_turn", "usage": usage(**usage_kw)}
    }


def tool_use_reply(name: str, tool_input: dict, text: str = "", tool_id: str | None = None, **usage_kw: int) -> dict:
    """A step asking for one tool call (``stop_reason=tool_use``)."""
    blocks: list[dict] = [{"type": "text", "text": text}] if text else []
    blocks.append(
        {"type": "tool_use", "id": tool_id or f"toolu_{uuid.uuid4().hex[:20]}", "name": name, "input": tool_input}
    )
    return {"body": {"content": blocks, "stop_reason": "tool_use", "usage": usage(**usage_kw)}}


def error_reply(status: int, error_type: str, message: str = "scripted error", retry_after: str | None = "0") -> dict:
    headers = {"retry-after": retry_after} if retry_after is not None else {}
    return {
        "status": status,
        "headers": headers,
        "body": {"type": "error", "error": {"type": error_type, "message": message}},
    }


def raw_reply(body: str, status: int = 200, content_type: str = "application/json") -> dict:
    """A step answering these exact bytes (a body that is not JSON, or JSON with NaN)."""
    return {"status": status, "raw": body, "content_type": content_type}


def delay_reply(seconds: float, then: dict | None = None) -> dict:
    """A step that waits before answering (to provoke client timeouts)."""
    step = dict(then or text_reply("late reply"))
    step["delay"] = seconds
    return step


class FakeAnthropicServer:
    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self._lock = threading.Lock()
        self._script: list[dict] = []
        self.requests: list[dict[str, Any]] = []
        self.httpd = ThreadingHTTPServer((host, port), self._handler_class())
        self.httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> FakeAnthropicServer:
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def script(self, *steps: dict) -> None:
        with self._lock:
            self._script = list(steps)

    def reset(self) -> None:
        with self._lock:
            self._script = []
            self.requests = []

    def message_requests(self) -> list[dict]:
        return [r["body"] for r in self.requests if r["path"].startswith("/v1/messages")]

    def _next_step(self) -> dict | None:
        with self._lock:
            return self._script.pop(0) if self._script else None

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                return

            def _send(self, status: int, body: Any, headers: dict | None = None) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.send_header("request-id", f"req_{uuid.uuid4().hex[:12]}")
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

            def _body(self) -> Any:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length) if length else b""
                return json.loads(raw) if raw else None

            def do_GET(self) -> None:
                if self.path == "/_control/requests":
                    with server._lock:
                        self._send(200, server.requests)
                else:
                    self._send(404, {"type": "error", "error": {"type": "not_found_error", "message": self.path}})

            def do_POST(self) -> None:
                body = self._body()
                if self.path == "/_control/script":
                    server.script(*body)
                    return self._send(200, {"ok": True, "steps": len(body)})
                if self.path == "/_control/reset":
                    server.reset()
                    return self._send(200, {"ok": True})
                if not self.path.startswith("/v1/messages"):
                    return self._send(404, {"type": "error", "error": {"type": "not_found_error", "message": "no"}})
                with server._lock:
                    server.requests.append({"path": self.path, "headers": dict(self.headers.items()), "body": body})
                step = server._next_step() or text_reply("Fake reply.")
                if step.get("delay"):
                    time.sleep(step["delay"])
                status = step.get("status", 200)
                if "raw" in step:
                    data = step["raw"].encode()
                    self.send_response(status)
                    self.send_header("content-type", step["content_type"])
                    self.send_header("content-length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                    return None
                if status != 200:
                    return self._send(status, step["body"], step.get("headers"))
                reply = {
                    "id": f"msg_{uuid.uuid4().hex[:20]}",
                    "type": "message",
                    "role": "assistant",
                    "model": (body or {}).get("model", "fake-model"),
                    "stop_sequence": None,
                    **step["body"],
                }
                self._send(200, reply)

        return Handler


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, default=8765)
    args = parser.parse_args()
    srv = FakeAnthropicServer(port=args.port).start()
    print(f"fake Anthropic API on {srv.url}", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        srv.stop()


if __name__ == "__main__":
    main()
