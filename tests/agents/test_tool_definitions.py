"""What the model is told about the tools: only the kinds the agent may write."""

from __future__ import annotations

from agents.registry import get_agent
from agents.tools import DEFINITIONS, definitions


def _remember(agent_name: str) -> dict:
    agent = get_agent(agent_name)
    return next(d for d in definitions(agent.tools, kinds=agent.memory_kinds) if d["name"] == "remember_fact")


def test_single_kind_agent_gets_no_kind_argument():
    assert "kind" not in _remember("assistant")["input_schema"]["properties"]


def test_multi_kind_agent_is_offered_exactly_its_kinds():
    agent = get_agent("relationship")
    assert _remember("relationship")["input_schema"]["properties"]["kind"]["enum"] == list(agent.memory_kinds)


def test_narrowing_leaves_the_full_schema_used_to_check_arguments_alone():
    _remember("assistant")
    assert "team_policy" in DEFINITIONS["remember_fact"]["input_schema"]["properties"]["kind"]["enum"]
