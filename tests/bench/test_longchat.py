"""The long-chat evaluation runs on a LoCoMo-shaped file (a tiny made-up one, never the real data)."""

from __future__ import annotations

import importlib.util
import json

import pytest

from bench.longchat import run
from bench.longchat.data import locomo_chats

FILLER = [
    "How was your week? Mine was busy with work and errands.",
    "The weather has been strange lately, sunny then rainy.",
    "I watched a documentary about whales, it was lovely.",
    "We should try the new bakery on the corner sometime.",
]


def _sample() -> dict:
    conversation = {"speaker_a": "Caroline", "speaker_b": "Melanie"}
    for s in (1, 2, 3):
        conversation[f"session_{s}_date_time"] = f"1:56 pm on {s * 3} May, 2023"
        turns = []
        for i in range(12):
            speaker = "Caroline" if i % 2 == 0 else "Melanie"
            text = FILLER[(i + s) % len(FILLER)] + f" (session {s}, turn {i})"
            turns.append({"speaker": speaker, "dia_id": f"D{s}:{i + 1}", "text": text})
        conversation[f"session_{s}"] = turns
    conversation["session_1"][2]["text"] = "We adopted a puppy from the shelter and named him Biscuit."
    return {
        "sample_id": "tiny-1",
        "conversation": conversation,
        "qa": [
            {
                "question": "What is the name of Caroline's puppy?",
                "answer": "Biscuit",
                "evidence": ["D1:3"],
                "category": 4,
            },
            {
                "question": "Which documentary did Melanie watch?",
                "answer": "whales",
                "evidence": ["D3:2; D3:6"],
                "category": 1,
            },
            {"question": "What is unanswerable here?", "answer": "", "evidence": [], "category": 3},
        ],
    }


@pytest.fixture
def tiny_file(tmp_path):
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps([_sample()]))
    return path


def test_locomo_file_becomes_dated_turns_and_questions_with_evidence(tiny_file):
    [chat] = locomo_chats(tiny_file)
    assert len(chat.turns) == 36
    role, text, created = chat.turns[2]
    assert (role, text) == ("user", "Caroline: We adopted a puppy from the shelter and named him Biscuit.")
    assert (created.year, created.month, created.day) == (2023, 5, 3)
    assert chat.turns[12][2].day == 6  # the second session's date
    # Evidence ids split on ";", questions without evidence skipped.
    assert [q.evidence for q in chat.questions] == [[2], [25, 29]]


@pytest.mark.django_db
def test_evaluation_runs_and_finds_the_evidence(tiny_file, alice, capsys, monkeypatch):
    baseline = importlib.util.find_spec("bm25s") is not None  # requirements-bench.txt
    if not baseline:
        monkeypatch.setattr(run, "_bm25", lambda texts, lang: lambda query, k: [])
    groups = {"tiny-1": locomo_chats(tiny_file)}
    [result] = run.evaluate(groups, user=alice)
    assert result["questions"] == 2
    # The turn naming the puppy is found by every method in the top 5.
    for method in run.METHODS if baseline else ("ours", "lexical"):
        assert result["recall"][method][5] >= 0.5
    assert result["by_category"]["single-hop"]["recall"]["ours"][5] == 1.0
    context = result["context"]
    assert 0 < context["tokens"] < context["full"]
    run.print_report([result])
    out = capsys.readouterr().out
    assert "tiny-1" in out and "Context evidence recall" in out
