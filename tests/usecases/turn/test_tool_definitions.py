"""What the model is told about the tools: only the kinds the agent may write."""

from __future__ import annotations

import pytest

from usecases.turn.registry import get_agent
from usecases.turn.tools import DEFINITIONS, ToolContext, definitions, execute


def _remember(agent_name: str) -> dict:
    agent = get_agent(agent_name)
    return next(d for d in definitions(agent.tools, kinds=agent.memory_kinds) if d["name"] == "remember_fact")


def test_single_kind_agent_gets_no_kind_argument():
    assert "kind" not in _remember("assistant")["input_schema"]["properties"]


def test_multi_kind_agent_is_offered_exactly_its_kinds():
    agent = get_agent("relationship")
    assert _remember("relationship")["input_schema"]["properties"]["kind"]["enum"] == list(agent.memory_kinds)


def test_no_model_is_told_of_the_offline_models_own_argument():
    for name in ("assistant", "relationship"):
        assert "only_if_it_replaces" not in _remember(name)["input_schema"]["properties"]
    assert "only_if_it_replaces" in DEFINITIONS["remember_fact"]["input_schema"]["properties"]


def test_narrowing_leaves_the_full_schema_used_to_check_arguments_alone():
    _remember("assistant")
    assert "team_policy" in DEFINITIONS["remember_fact"]["input_schema"]["properties"]["kind"]["enum"]


@pytest.mark.parametrize(
    ("args", "wrong"),
    [
        ({"reason": "refund", "amount": -900}, "amount"),
        ({"reason": "refund", "amount": -0.01}, "amount"),
        ({"reason": "refund", "amount": float("nan")}, "amount"),
        ({"reason": "refund", "amount": float("inf")}, "amount"),
        ({"reason": "refund", "amount": True}, "amount"),
    ],
)
def test_request_approval_enforces_its_schema_minimum(args, wrong):
    """A negative amount was approved "by policy": the schema's minimum is a refusal the model can act on."""
    ctx = ToolContext(
        user=None, thread=None, run=None, agent=get_agent("relationship"), window_first_sequence=1, memory_allowed=True
    )
    result = execute("request_approval", args, ctx)
    assert result["ok"] is False and wrong in result["error"] and result["how_to_fix"]
    assert "approved" not in result


def test_remember_fact_importance_outside_1_to_5_is_refused_before_any_write():
    ctx = ToolContext(
        user=None, thread=None, run=None, agent=get_agent("assistant"), window_first_sequence=1, memory_allowed=True
    )
    result = execute("remember_fact", {"content": "likes tea", "importance": 9}, ctx)
    assert result["ok"] is False and "importance" in result["error"]
