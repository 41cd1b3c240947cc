"""``make bench`` runs every benchmark the README's table names, with the flags it names (no database)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _table_commands() -> set[tuple[str, str]]:
    """(module, flag or "") of every command in the README's benchmark table."""
    section = ROOT.joinpath("README.md").read_text(encoding="utf-8").split("## Benchmarks", 1)[1]
    commands: set[tuple[str, str]] = set()
    for row in (line for line in section.splitlines() if line.startswith("| ") and "python -m" in line):
        cell = row.rstrip(" |").rsplit("|", 1)[1]
        for module, rest in re.findall(r"python -m (bench[\w.]*)(.*?)(?=python -m|$)", cell):
            commands.add((module, ""))
            commands |= {(module, flag) for flag in re.findall(r"--[\w-]+(?: [\w.]+)?", rest)}
    return commands


def _bench_lines() -> list[str]:
    makefile = ROOT.joinpath("Makefile").read_text(encoding="utf-8")
    target = makefile.split("\nbench:", 1)[1].split("\n\n", 1)[0]
    return [line.strip() for line in target.splitlines()[1:]]


def test_make_bench_runs_every_command_of_the_readme_table() -> None:
    commands = _table_commands()
    assert len({module for module, _ in commands}) >= 10  # the table was read
    assert ("bench.throughput", "--model-delay 2") in commands
    lines = _bench_lines()
    missing = sorted(
        f"{module} {flag}".strip()
        for module, flag in commands
        if not any(re.search(rf"-m {re.escape(module)}(?:\s|$)", line) and flag in line for line in lines)
    )
    assert missing == [], f"make bench leaves out: {missing}"
