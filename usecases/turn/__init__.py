"""The chat turn as the worker runs it: the agent registry, context assembly, the LangGraph
graph and its tools, the offline model and the runner (``usecases/turns.py`` submits,
retries, cancels, approves and forks turns)."""
