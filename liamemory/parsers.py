"""The API's JSON parser: DRF's, refusing what PostgreSQL cannot hold or Python cannot walk."""

from __future__ import annotations

from typing import Any

from rest_framework.parsers import JSONParser

from liamemory.errors import ApplicationError
from liamemory.jsoncheck import MAX_DEPTH, json_problems


class StrictJSONParser(JSONParser):
    """A body nested past :data:`MAX_DEPTH`, a NUL character, a lone surrogate or a number
    beyond a float (``1e400``) answers 400 naming where, before any view, serializer or
    query sees it (they answered 500: RecursionError, or the database refusing)."""

    def parse(self, stream, media_type=None, parser_context=None) -> Any:
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError as exc:
            # Python's decoder gives up at its recursion limit, far past ours.
            raise _refused([{"path": "$", "message": f"nested deeper than {MAX_DEPTH} levels"}]) from exc
        problems = json_problems(data)
        if problems:
            raise _refused(problems)
        return data


def _refused(errors: list[dict[str, str]]) -> ApplicationError:
    first = errors[0]
    return ApplicationError(f"JSON body refused at {first['path']}: {first['message']}.", extra={"errors": errors})
