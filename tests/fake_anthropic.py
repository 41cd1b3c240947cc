"""A fake Anthropic Messages API on loopback, speaking the real wire format.

Tests (and processes they start, such as the product's own worker) point the real
``anthropic`` SDK at it. It is scripted: each ``POST /v1/messages`` takes the next step
of the script (a reply, an HTTP error, a delay); with the script empty it answers a
plain text reply. Every request it receives is recorded. A request with
``"stream": true`` (the SDK's ``messages.stream``) is answered as server-sent events
in the Messages API's streaming format (``message_start``, ``content_block_*`` with
``text_delta`` / ``input_json_delta``, ``message_delta``, ``message_stop``), the text
cut into word chunks with ``chunk_delay`` seconds between them.

Control endpoints, for processes other than the test:
- ``POST /_control/script``  body: a JSON list of steps (replaces the script)
- ``GET  /_control/requests`` the recorded requests (method, path, headers, body)
- ``POST /_control/reset``    clears script and records
- ``POST /_control/config``   body: ``{"delay": s, "chunk_delay": s}`` defaults for every answer

Run standalone: ``python -m tests.fake_anthropic --port 8765 [--delay 2] [--chunk-delay 0.05]``
(``--quiet-records`` keeps no request bodies: for benchmarks).
"""

from __future__ import annotations

import argparse
import json
import re
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


def stream_error(error_type: str = "overloaded_error", message: str = "Overloaded", after_words: int = 2) -> dict:
    """A streamed answer that fails mid-way with an ``error`` event after a few words."""
    step = text_reply("partial words before the failure and more")
    step["stream_error"] = {"type": error_type, "message": message, "after_words": after_words}
    return step


def slow_stream(then: dict, chunk_delay: float) -> dict:
    """A step whose streamed text arrives in word chunks ``chunk_delay`` seconds apart."""
    step = dict(then)
    step["chunk_delay"] = chunk_delay
    return step


def word_chunks(text: str) -> list[str]:
    """Text cut after each space, as a model streams it (joined back, it is the text)."""
    return [m for m in re.findall(r"\S+\s*|\s+", text)] or [""]


def _sse(event: str, data: dict) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


def delay_reply(seconds: float, then: dict | None = None) -> dict:
    """A step that waits before answering (to provoke client timeouts)."""
    step = dict(then or text_reply("late reply"))
    step["delay"] = seconds
    return step


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256  # a benchmark opens dozens of connections at once


class FakeAnthropicServer:
    def __init__(
        self, host: str = "127.0.0.1", port: int = 0, delay: float = 0.0, chunk_delay: float = 0.0, record: bool = True
    ) -> None:
        self._lock = threading.Lock()
        self._script: list[dict] = []
        self.requests: list[dict[str, Any]] = []
        self.delay = delay
        self.chunk_delay = chunk_delay
        self.record = record
        # (wall-clock time, text) of every streamed text chunk, when it was written to the socket.
        self.emitted: list[tuple[float, str]] = []
        self.httpd = _Server((host, port), self._handler_class())
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
            self.emitted = []
            self.delay = 0.0
            self.chunk_delay = 0.0

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
                if self.path == "/_control/config":
                    server.delay = float(body.get("delay", server.delay))
                    server.chunk_delay = float(body.get("chunk_delay", server.chunk_delay))
                    return self._send(200, {"ok": True})
                if not self.path.startswith("/v1/messages"):
                    return self._send(404, {"type": "error", "error": {"type": "not_found_error", "message": "no"}})
                if server.record:
                    with server._lock:
                        server.requests.append({"path": self.path, "headers": dict(self.headers.items()), "body": body})
                step = server._next_step() or text_reply("Fake reply.")
                delay = step.get("delay", server.delay)
                if delay:
                    time.sleep(delay)
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
                if (body or {}).get("stream"):
                    return self._stream(reply, step)
                self._send(200, reply)

            def _stream(self, reply: dict, step: dict) -> None:
                """The reply as the Messages API streams it; the connection closes at the end."""
                chunk_delay = step.get("chunk_delay", server.chunk_delay)
                failure = step.get("stream_error")
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("cache-control", "no-cache")
                self.send_header("request-id", f"req_{uuid.uuid4().hex[:12]}")
                self.send_header("connection", "close")
                self.end_headers()
                full_usage = reply.get("usage") or usage()
                start = {k: v for k, v in reply.items() if k not in ("content", "stop_reason", "usage")}
                start.update(content=[], stop_reason=None, usage={**full_usage, "output_tokens": 1})
                try:
                    self.wfile.write(_sse("message_start", {"type": "message_start", "message": start}))
                    self.wfile.write(_sse("ping", {"type": "ping"}))
                    words = 0
                    for index, block in enumerate(reply.get("content") or []):
                        is_text = block["type"] == "text"
                        opening = {"type": "text", "text": ""} if is_text else {**block, "input": {}}
                        self.wfile.write(
                            _sse(
                                "content_block_start",
                                {"type": "content_block_start", "index": index, "content_block": opening},
                            )
                        )
                        if block["type"] == "text":
                            for chunk in word_chunks(block["text"]):
                                if failure and words >= failure["after_words"]:
                                    error = {"type": failure["type"], "message": failure["message"]}
                                    self.wfile.write(_sse("error", {"type": "error", "error": error}))
                                    return
                                if chunk_delay and words:
                                    time.sleep(chunk_delay)
                                delta = {"type": "text_delta", "text": chunk}
                                self.wfile.write(
                                    _sse(
                                        "content_block_delta",
                                        {"type": "content_block_delta", "index": index, "delta": delta},
                                    )
                                )
                                if server.record:
                                    server.emitted.append((time.time(), chunk))
                                words += 1
                        else:
                            delta = {"type": "input_json_delta", "partial_json": json.dumps(block.get("input") or {})}
                            self.wfile.write(
                                _sse(
                                    "content_block_delta",
                                    {"type": "content_block_delta", "index": index, "delta": delta},
                                )
                            )
                        self.wfile.write(_sse("content_block_stop", {"type": "content_block_stop", "index": index}))
                    end = {"stop_reason": reply.get("stop_reason"), "stop_sequence": None}
                    out = {"output_tokens": full_usage.get("output_tokens", 0)}
                    self.wfile.write(_sse("message_delta", {"type": "message_delta", "delta": end, "usage": out}))
                    self.wfile.write(_sse("message_stop", {"type": "message_stop"}))
                except (BrokenPipeError, ConnectionResetError):
                    return  # the client stopped reading (a cancelled run closes its stream)
                finally:
                    self.close_connection = True

        return Handler


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--delay", type=float, default=0.0, help="seconds before every answer")
    parser.add_argument("--chunk-delay", type=float, default=0.0, help="seconds between streamed word chunks")
    parser.add_argument("--quiet-records", action="store_true", help="keep no request records (benchmarks)")
    args = parser.parse_args()
    srv = FakeAnthropicServer(
        port=args.port, delay=args.delay, chunk_delay=args.chunk_delay, record=not args.quiet_records
    ).start()
    print(f"fake Anthropic API on {srv.url}", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        srv.stop()


if __name__ == "__main__":
    main()
