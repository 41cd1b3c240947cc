"""Server-sent events of a run (``/api/runs/<id>/events``), which the chat page follows too.

Each event id is a cursor (characters of text and tool steps seen so far): a client that
reconnects sends it back as ``Last-Event-ID`` (or ``?cursor=``) and gets only what is new.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

from django.http import StreamingHttpResponse

from agents import streaming


def sse(event: str, data: dict, event_id: str | None = None) -> str:
    """One server-sent event (the data is one line of JSON)."""
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {event}\ndata: {json.dumps(data, ensure_ascii=False, default=str)}\n\n"


def event_stream_response(events: Iterator[str]) -> StreamingHttpResponse:
    response = StreamingHttpResponse(events, content_type="text/event-stream; charset=utf-8")
    response["Cache-Control"] = "no-cache, no-store"
    response["X-Accel-Buffering"] = "no"  # a proxy in front must pass each event at once
    return response


def stream_events(run_id, cursor: str | None, final: Callable[[Any, str], str]) -> Iterator[str]:
    """``delta``/``tool`` events of the reply as written, then ``final(run_id, cursor)``'s event.

    The cursor is checked here, before the response starts (``ApplicationError``: a
    400), not inside the stream. ``:`` comment lines keep an idle connection alive (and
    let the server notice a client that went away).
    """
    streaming.parse_cursor(cursor)
    return _events(run_id, cursor, final)


def _events(run_id, cursor: str | None, final: Callable[[Any, str], str]) -> Iterator[str]:
    yield "retry: 1000\n\n"
    for event in streaming.follow_run(run_id=run_id, cursor=cursor):
        if event.kind == "ping":
            yield ": keep-alive\n\n"
        elif event.kind == "delta":
            yield sse("delta", event.data, event.cursor)
        elif event.kind == "tool":
            yield sse("tool", event.data, event.cursor)
        elif event.kind == "restart":  # the run writes its reply again: drop what was shown
            yield sse("restart", event.data, event.cursor)
        elif event.kind == "end":
            yield final(run_id, event.cursor)
            return
        else:  # the run is gone (deleted or erased meanwhile)
            yield sse("gone", {}, event.cursor)
            return
