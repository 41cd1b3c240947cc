"""Every task the product sends goes through ``liamemory.task_sending``, the one way that survives a
broker outage: a direct ``delay`` / ``apply_async`` / ``delay_on_commit`` / ``send_task`` would answer
500 after its rows were committed, or lose the task in a worker (``test_broker_outage.py``).
This reads every product file's syntax tree (no database, no broker)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
PRODUCT = (
    "config",
    "web",
    "api",
    "backoffice",
    "usecases",
    "conversations",
    "memories",
    "agents",
    "governance",
    "liamemory",
)
SENDING = {"delay", "delay_on_commit", "apply_async", "send_task"}
THE_SENDER = ROOT / "liamemory" / "task_sending.py"


def _direct_sends(source: str, name: str) -> list[str]:
    return [
        f"{name}:{node.lineno} {ast.unparse(node.func)}"
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in SENDING
    ]


def test_no_product_code_sends_a_task_around_the_resender():
    found = [
        send
        for package in PRODUCT
        for path in sorted((ROOT / package).rglob("*.py"))
        if path != THE_SENDER and "migrations" not in path.parts
        for send in _direct_sends(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    ]
    assert found == [], "send these with liamemory.task_sending.task_send(_on_commit):\n" + "\n".join(found)


def test_the_check_sees_a_direct_send():
    source = "def later(memory):\n    embed_memories.delay_on_commit([memory.pk])\n    task_send(embed_memories, 1)\n"
    assert _direct_sends(source, "x.py") == ["x.py:2 embed_memories.delay_on_commit"]
