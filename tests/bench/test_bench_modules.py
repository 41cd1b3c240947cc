"""The benchmarks are not tests, but they must keep importing and the cheapest one must run."""

from __future__ import annotations

import importlib
import json

import numpy as np
import pytest

from bench.contradictions.__main__ import build_pairs, crowd, offline_rule, score, worst_writers
from bench.contradictions.lowo import Pairs, report
from bench.contradictions.sets import PAIRS, SUBSETS, Closeness, load_pairs, load_sets
from bench.stack import Stack
from bench.summaries import answer_held, names_in, words
from bench.tokens import figures, replay

MODULES = [
    "contradictions",
    "tokens",
    "context_recall",
    "summaries",
    "overhead",
    "latency",
    "vectors",
    "throughput",
    "footprint",
    "erasure",
    "scale_data",
    "prepare_data",
    "context_stages",
    "stack",
    "autovacuum",
    "common",
    "longchat.run",
    "longchat.data",
    "longchat.deep",
    "productchat.run",
    "productchat.replay",
    "productchat.score",
    "productchat.data",
    "productchat.facts",
    "productchat.facts_model",
    "contradictions.lowo",
]


@pytest.mark.parametrize("name", MODULES)
def test_benchmark_module_imports(name):
    module = importlib.import_module(f"bench.{name}")
    assert module.__doc__


@pytest.mark.django_db
def test_tokens_replay_sends_less_than_full_resend_and_keeps_identifiers():

    result = replay(60, [60])
    f = figures(result["rows"], result["held"][60])
    assert 0 < f["total_sent"] < f["total_full_resend"]
    # At most the latest statement (3 identifiers) may sit between a waiting summary and
    # the window, where only search_history reaches it.
    assert f["identifiers_stated"] - 3 <= f["identifiers_held"] <= f["identifiers_stated"]
    # Asked about at the end, every identifier reaches the context (whole tokens).
    recalled, asked, missed = result["recalled"]
    assert recalled == asked == f["identifiers_stated"] and missed == []
    # Every turn sends the same cacheable prefix, and it is part of what is counted.
    assert len({r["prefix"] for r in result["rows"]}) == 1
    assert all(r["sent"] >= r["prefix"] + r["window"] for r in result["rows"])


def test_contradiction_bench_scores_every_subset():

    assert load_pairs() == build_pairs(), "pairs.jsonl is stale: python -m bench.contradictions --write"
    rows = load_pairs()
    assert {r["subset"] for r in rows} == set(SUBSETS) and len(rows) >= 150
    figures = score(rows, offline_rule(Closeness(enabled=False)))
    assert figures["pairs"] == len(rows) and 0 <= figures["wrong_supersessions"] <= 1


def test_contradiction_bench_reads_fresh_sets_dropped_in_and_scores_each(tmp_path):
    import shutil

    shutil.copy(PAIRS, tmp_path / PAIRS.name)
    (tmp_path / "fresh").mkdir()
    fresh = [
        {"old": "I live in Rome", "new": "I moved to Turin", "label": "supersedes", "lang": "en", "writer": "w1"},
        {"old": "I live in Rome", "new": "I work in Turin", "label": "compatible", "lang": "en", "writer": "w1"},
    ]
    (tmp_path / "fresh" / "writer1.jsonl").write_text("\n".join(json.dumps(r) for r in fresh) + "\n")
    sets = load_sets(tmp_path)
    assert [r["new"] for r in sets["fresh/writer1"]] == ["I moved to Turin", "I work in Turin"]
    figures = score(sets["fresh/writer1"], offline_rule(Closeness(enabled=False)))
    assert (figures["recall"], figures["false_supersessions"]) == (1.0, 0)
    assert crowd(sets["fresh/writer1"], Closeness(enabled=False))["wrong"] == 0
    (tmp_path / "fresh" / "bad.jsonl").write_text(json.dumps({"old": "a", "new": "b", "label": "maybe"}) + "\n")
    with pytest.raises(SystemExit, match=r"bad\.jsonl:1"):
        load_sets(tmp_path)


def test_contradiction_bench_counts_a_method_by_its_worst_outside_writer():
    def figures(recall: float, wrong: float) -> dict:
        return {"offline": {"recall": recall, "wrong_supersessions": wrong}}

    results = {
        "dev": figures(0.2, 0.5),  # the project's own set: not an outside writer
        "dev/contra": figures(0.1, 0.4),
        "dev/w1": figures(0.9, 0.0),
        "dev/w12": figures(0.6, 0.03),
        "fresh/w40": figures(0.8, 0.09),
    }
    assert worst_writers(results) == {"recall": ("dev/w12", 0.6), "wrong": ("fresh/w40", 0.09)}
    assert worst_writers({"dev": figures(0.2, 0.5)}) == {}


def test_summary_bench_scores_answers_and_names_as_words():

    summary = words("- 2023-05-08 User: went to the Malmo support group [2023-05-07]; adopted two cats.")
    assert answer_held("7 May 2023", summary) and answer_held("Support groups", summary)
    assert not answer_held("Sweden", summary) and answer_held("the", summary) is None
    assert names_in("Hey Mel! I met Anna in Rome. Rome was great.", exclude={"mel"}) == {"anna", "rome"}


def test_quiet_run_script_parses_and_refuses_a_busy_machine():
    """The quiet run starts only below load 1 (the check comes before any work)."""
    import subprocess
    from pathlib import Path

    script = Path(__file__).resolve().parents[2] / "bench" / "quiet_run.sh"
    assert subprocess.run(["bash", "-n", str(script)]).returncode == 0
    text = script.read_text()
    assert text.index("not below 1") < text.index("manage.py migrate")


def test_quiet_run_builds_the_engine_before_measuring_and_runs_the_soak_alone_if_asked():
    """Every figure is the current kernel's (a checkout without its build measured the package's
    engine), and ``SOAK_ONLY=1`` runs the soak without the other benchmarks."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "bench" / "quiet_run.sh").read_text()
    assert text.index("liamemory.e5_build") < text.index("-m bench.overhead")
    others = text[text.index('if [ -z "${SOAK_ONLY:-}" ]') : text.index('if [ -z "${NO_SOAK:-}" ]')]
    assert all(name in others for name in ("bench.overhead", "bench.vectors", "bench.throughput"))
    assert "bench.footprint" not in others


def test_stack_starts_one_process_per_turn_worker_on_the_turn_queue():

    stack = Stack.production(turn_workers=4, concurrency=16)
    assert stack.label.startswith("gunicorn 2×64 gthread + celery 4 × threads 16 (turns)")
    # A thread per open event stream, but no more connections: streams hand theirs back between reads.
    assert stack.web_env["DB_POOL_MAX_SIZE"] == "16"


def test_a_learned_add_on_ships_only_if_the_worst_writer_gains_and_no_writer_supersedes_more_wrongly():
    # Two writers, two changes and two look-alikes each; the rules find one change of w1's, both of w2's.
    labels = np.array([True, True, False, False] * 2)
    rules = np.array([True, False, False, False, True, True, False, False])
    none = np.zeros(8, dtype=bool)
    pairs = Pairs(np.array(["w1"] * 4 + ["w2"] * 4), labels, rules, none, none, none, np.zeros((8, 1)))
    found = rules.copy()
    found[1] = True  # w1's missed change
    assert report(pairs, found)[0]
    also_wrong = found.copy()
    also_wrong[6] = True  # and one of w2's look-alikes
    ships, lines = report(pairs, also_wrong)
    assert not ships
    assert "more wrong on w2" in lines[-1]
    assert not report(pairs, rules)[0]  # nothing gained
