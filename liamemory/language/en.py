"""English words and patterns used by the heuristics (see the package docstring)."""
