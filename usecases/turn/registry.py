"""The agents this installation offers, in one registry.

An agent is chosen when a thread is created; every run and assistant message records
which one answered.
"""

from __future__ import annotations

from dataclasses import dataclass

from memories.models import MemoryKind

# Identity, instructions and tool definitions are sent on every turn: every sentence
# must earn its tokens (bench/tokens.py counts them).
COMMON_IDENTITY = (
    "You are an assistant of liamemory, which remembers each user across conversations. Be accurate and "
    "concise; answer in the user's language. Never guess what changes (today's date, stored facts, older "
    "parts of this conversation): use the tools. Claim to remember only what your context or a tool shows."
)


@dataclass(frozen=True)
class AgentSpec:
    name: str
    title: str
    instructions: str
    tools: tuple[str, ...]
    memory_kinds: tuple[str, ...] = (MemoryKind.FACT,)
    # Kinds put into every context whatever the message (e.g. relationship rules).
    pinned_kinds: tuple[str, ...] = ()
    # Critical constraints repeated as the last message (models attend best to the
    # start and the end of a long context).
    constraints: tuple[str, ...] = ()
    max_steps: int = 6
    max_tokens: int = 1024


MEMORY_TOOLS = ("remember_fact", "recall_facts", "forget_fact", "search_history")

AGENTS: dict[str, AgentSpec] = {
    spec.name: spec
    for spec in (
        AgentSpec(
            name="assistant",
            title="General assistant",
            instructions=(
                "Help with everyday questions. Store durable facts the user states about themselves "
                "(preferences, identifiers, constraints) with remember_fact."
            ),
            tools=(*MEMORY_TOOLS, "get_current_date"),
            memory_kinds=(MemoryKind.FACT,),
        ),
        AgentSpec(
            name="relationship",
            title="Relationship agent",
            instructions=(
                "You manage the relationship with a client for a team. Keep relationship rules (kind 'rule'), "
                "how to present yourself on each channel ('platform') and emotional KPIs ('kpi') up to date "
                "with remember_fact. Follow stored rules strictly. Any payment plan or discount above the "
                "approval threshold goes through request_approval first."
            ),
            tools=(*MEMORY_TOOLS, "get_current_date", "request_approval"),
            memory_kinds=(MemoryKind.RULE, MemoryKind.PLATFORM, MemoryKind.KPI, MemoryKind.FACT),
            pinned_kinds=(MemoryKind.RULE,),
            constraints=(
                "Never promise a payment plan or discount without an approved request_approval.",
                "Follow the stored relationship rules.",
            ),
        ),
    )
}

DEFAULT_AGENT = "assistant"


class UnknownAgent(Exception):
    pass


def get_agent(name: str) -> AgentSpec:
    try:
        return AGENTS[name]
    except KeyError as exc:
        raise UnknownAgent(name) from exc


def agent_choices() -> list[tuple[str, str]]:
    return [(a.name, a.title) for a in AGENTS.values()]
