"""OpenAPI: every operation documents the error answers it can give, in the one error format."""

from __future__ import annotations

from typing import Any

from drf_spectacular.hooks import postprocess_schema_enums

ERROR_SCHEMA = {
    "type": "object",
    "description": "Every error answer: a readable message, and details (field errors, JSON paths, limits).",
    "properties": {"message": {"type": "string"}, "extra": {"type": "object", "additionalProperties": {}}},
    "required": ["message", "extra"],
}
ERROR_REF = {"$ref": "#/components/schemas/Error"}
DESCRIPTIONS = {
    "400": "Bad input (a missing or invalid field, invalid JSON, an out-of-range limit); nothing was changed.",
    "401": "Not authenticated.",
    "403": "Authenticated, but this role may not do this.",
    "404": "No such object (in the path or named in the body), or not yours: the two are indistinguishable.",
    "413": "The request body is too large.",
    "415": "Unsupported content type.",
}
# Operations that refuse with 409 when the object is not in a state that allows it.
CONFLICTS = {
    ("post", "/api/threads/{thread_id}/messages"): "A run of this conversation is in flight or waiting for approval.",
    ("post", "/api/runs/{run_id}/retry"): "Only a failed or cancelled run can be retried.",
    ("post", "/api/runs/{run_id}/cancel"): "The run has already ended.",
    ("post", "/api/approvals/{approval_id}/approve"): "Already decided, or its run was cancelled.",
    ("post", "/api/approvals/{approval_id}/reject"): "Already decided, or its run was cancelled.",
    ("patch", "/api/me/memories/{memory_id}"): "The memory was already superseded or rejected.",
    ("post", "/api/memories/{memory_id}/correct"): "The memory was already superseded or rejected.",
    ("post", "/api/memories/{memory_id}/approve"): "The memory is not pending.",
    ("post", "/api/memories/{memory_id}/reject"): "The memory is not pending.",
    ("post", "/api/threads/{thread_id}/messages/{sequence}/correct"): "The statement was corrected already.",
    ("post", "/api/staff/threads/{thread_id}/messages/{sequence}/correct"): "The statement was corrected already.",
    ("post", "/api/erasure-requests"): "The person already has an open erasure request.",
    ("post", "/api/people/{user_id}/import"): "A thread id of the document belongs to another person.",
}


# Operations that spend model tokens, throttled per user (THROTTLE_TURNS).
THROTTLED = {("post", "/api/threads/{thread_id}/messages"), ("post", "/api/runs/{run_id}/retry")}
# Operations whose body names another object by id (the user a memory is for, the subject
# of an erasure or a hold): a missing one answers 404.
BODY_IDS = {("post", "/api/memories"), ("post", "/api/erasure-requests"), ("post", "/api/legal-holds")}


def _errors_for(method: str, path: str, operation: dict[str, Any]) -> list[str]:
    codes = ["401", "403"]
    has_query = any(p.get("in") == "query" for p in operation.get("parameters", []))
    if has_query or method in ("post", "put", "patch"):
        codes.append("400")
    if "{" in path or (method, path) in BODY_IDS:
        codes.append("404")
    if method in ("post", "put", "patch"):
        codes += ["413", "415"]
    return codes


def add_error_responses(result: dict[str, Any], generator, **kwargs: Any) -> dict[str, Any]:
    result = postprocess_schema_enums(result, generator, **kwargs)
    result.setdefault("components", {}).setdefault("schemas", {})["Error"] = ERROR_SCHEMA
    for path, item in result.get("paths", {}).items():
        if not path.startswith("/api/") or path.startswith(("/api/schema", "/api/docs")):
            continue
        for method, operation in item.items():
            responses = operation.setdefault("responses", {})
            descriptions = {code: DESCRIPTIONS[code] for code in _errors_for(method, path, operation)}
            if (method, path) in CONFLICTS:
                descriptions["409"] = CONFLICTS[(method, path)]
            if (method, path) in THROTTLED:
                descriptions["429"] = "Too many requests that spend model tokens; wait and retry."
            for code, description in descriptions.items():
                responses.setdefault(
                    code, {"description": description, "content": {"application/json": {"schema": ERROR_REF}}}
                )
    return result
