"""What a JSON value must not hold before it reaches PostgreSQL or a recursive function.

JSON can say things PostgreSQL cannot store and Python cannot walk: a NUL character
(``\\u0000``; no ``text`` or ``jsonb`` value holds it), a lone UTF-16 surrogate
(``\\ud800``; not encodable as UTF-8), a number too large for a float (``1e400`` parses
to infinity, which ``jsonb`` refuses), and nesting deep enough to exhaust Python's
recursion limit in the schema validator, the serializer or ``json.dumps``. Each is a
400 naming where it is, never a 500 from the database or the interpreter.
"""

from __future__ import annotations

import math
import re
from typing import Any

MAX_DEPTH = 64
_FORBIDDEN = re.compile("[\x00\ud800-\udfff]")


def _string_problem(text: str) -> str | None:
    found = _FORBIDDEN.search(text)
    if found is None:
        return None
    if found.group() == "\x00":
        return "contains a NUL character (\\u0000), which cannot be stored"
    return "contains a lone UTF-16 surrogate, which is not valid Unicode text"


def json_problems(value: Any, *, max_depth: int = MAX_DEPTH, limit: int = 20) -> list[dict[str, str]]:
    """Up to ``limit`` problems as ``{"path", "message"}``, paths like ``$.threads[0].title``.

    Iterative, so a value nested past the recursion limit is reported, not crashed on.
    """
    problems: list[dict[str, str]] = []
    stack: list[tuple[Any, str, int]] = [(value, "$", 0)]
    while stack and len(problems) < limit:
        item, path, depth = stack.pop()
        if isinstance(item, str):
            problem = _string_problem(item)
            if problem:
                problems.append({"path": path, "message": f"the text {problem}"})
        elif isinstance(item, float):
            if not math.isfinite(item):
                problems.append({"path": path, "message": "the number is too large (or not a number) to store"})
        elif isinstance(item, dict | list):
            if depth >= max_depth:
                problems.append({"path": path, "message": f"nested deeper than {max_depth} levels"})
                continue
            if isinstance(item, list):
                children = [(child, f"{path}[{i}]", depth + 1) for i, child in enumerate(item)]
            else:
                children = []
                for key, child in item.items():
                    problem = _string_problem(str(key))
                    if problem:
                        problems.append({"path": path, "message": f"a key {problem}"})
                        continue
                    children.append((child, f"{path}.{key}", depth + 1))
            stack.extend(reversed(children))
    return problems
