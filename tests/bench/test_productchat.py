"""The product evaluation's scorer, on a tiny hand-made chat and record (no stack)."""

from __future__ import annotations

import json

import pytest

from bench.productchat import data, score

CHAT = {
    "id": "tiny-1",
    "lang": "en",
    "turns": [
        {"text": "hi there, long day", "kind": "smalltalk", "store": False},
        {
            "text": "our dog is called Bruno, he is a beagle",
            "kind": "fact",
            "fact_id": "dog",
            "value": "Bruno",
            "store": True,
        },
        {
            "text": "my order number is B-7781 for the new desk",
            "kind": "fact",
            "fact_id": "order",
            "value": "B-7781",
            "store": True,
        },
        {"text": "that film was overrated", "kind": "opinion", "store": False},
        {
            "text": "we renamed the dog Rocco, Bruno never suited him",
            "kind": "correction",
            "fact_id": "dog",
            "value": "Rocco",
            "store": True,
        },
        {
            "text": "what's my dog's name?",
            "kind": "question",
            "fact_id": "dog",
            "expected": ["Rocco"],
            "new_thread": False,
        },
        {
            "text": "what was my order number?",
            "kind": "question",
            "fact_id": "order",
            "expected": ["B-7781"],
            "new_thread": True,
        },
        {
            "text": "and the dog's name again?",
            "kind": "question",
            "fact_id": "dog",
            "expected": ["Rocco"],
            "new_thread": False,
        },
    ],
}


def _record() -> dict:
    turns = [
        {
            "index": i,
            "thread": "main",
            "message_id": 100 + i,
            "sequence": 2 * i + 1,
            "status": "completed",
            "reply": "(offline model) I don't have information about that.",
        }
        for i in range(8)
    ]
    # Question 5: the correction (message 104) quoted as an excerpt; the reply gives the old name.
    turns[5].update(
        reply="From what I remember: our dog is called Bruno.",
        context={"window": [10, 11], "summary": "", "message_ids": {"excerpts": [104, 203]}, "memories": []},
    )
    # Question 6, in a new thread: a memory from the order's message; the reply holds the value.
    turns[6].update(
        thread="new-6",
        sequence=1,
        reply="From what I remember: “order number B-7781”.",
        context={
            "window": [1, 1],
            "summary": "",
            "message_ids": {},
            "memories": [{"id": 1, "content": "order number B-7781", "source_message_id": 102}],
        },
    )
    # Question 7: only the summary holds it; a bare key-facts line would not count.
    turns[7].update(
        reply="Your dog is Rocco.",
        context={
            "window": [13, 15],
            "summary": "Key facts: Rocco\n- User: we renamed the dog Rocco",
            "message_ids": {"excerpts": []},
            "memories": [],
        },
    )
    rows = [
        {
            "turn": 5,
            "key": "excerpts",
            "message_id": 104,
            "role": "user",
            "text": CHAT["turns"][4]["text"],
            "tool": False,
            "reply_to": None,
            "turn_kind": "correction",
        },
        {
            "turn": 5,
            "key": "excerpts",
            "message_id": 203,
            "role": "assistant",
            "text": "(offline model) I don't have information about that.",
            "tool": False,
            "reply_to": "hi",
            "turn_kind": None,
        },
        {
            "turn": 7,
            "key": "excerpts",
            "message_id": 204,
            "role": "tool",
            "text": '{"ok": true, "memory_id": 1}',
            "tool": True,
            "reply_to": None,
            "turn_kind": None,
        },
        {
            "turn": 7,
            "key": "excerpts",
            "message_id": 205,
            "role": "assistant",
            "text": "What's your dog's name?",
            "tool": False,
            "reply_to": "what's my dog's name?",
            "turn_kind": None,
        },
        {
            "turn": 7,
            "key": "excerpts",
            "message_id": 105,
            "role": "user",
            "text": "what's my dog's name?",
            "tool": False,
            "reply_to": None,
            "turn_kind": "question",
        },
        {
            "turn": 7,
            "key": "excerpts",
            "message_id": 206,
            "role": "assistant",
            "text": "A beagle needs two walks a day.",
            "tool": False,
            "reply_to": "how often to walk a beagle",
            "turn_kind": None,
        },
    ]
    memories = [
        {"id": 1, "content": "order number B-7781", "status": "active", "source_message_id": 102},
        {"id": 2, "content": "our dog is called Bruno", "status": "active", "source_message_id": 101},
        {"id": 3, "content": "the film was overrated", "status": "active", "source_message_id": 103},
        {"id": 4, "content": "dog renamed Rocco", "status": "superseded", "source_message_id": None},
    ]
    return {
        "chat": "tiny-1",
        "lang": "en",
        "turns": turns,
        "excerpt_rows": rows,
        "memories": memories,
        "tokens": {"sent": 300, "full": 1200},
    }


@pytest.fixture
def chat():
    return data.parse_chat(json.loads(json.dumps(CHAT)))


def test_questions_find_the_newest_statement_and_score_the_reply(chat):
    rows = {q["turn"]: q for q in score.score_questions(chat, _record())}
    assert rows[5]["source"] == "excerpt" and rows[5]["corrected"]
    assert not rows[5]["correct"] and rows[5]["old_value_in_reply"]
    assert rows[6]["new_thread"] and rows[6]["source"] == "memory" and rows[6]["correct"]
    assert rows[7]["source"] == "summary" and rows[7]["correct"]


def test_an_older_statement_or_a_bare_value_does_not_count_as_reaching_the_context(chat):
    record = _record()
    record["turns"][5]["context"]["message_ids"] = {"excerpts": [101]}  # the old name's message
    record["turns"][7]["context"]["summary"] = "Key facts: Rocco"
    rows = {q["turn"]: q for q in score.score_questions(chat, record)}
    assert not rows[5]["reached"] and not rows[7]["reached"]


def test_the_window_counts_only_in_the_statement_s_own_thread(chat):
    record = _record()
    record["turns"][6]["context"] = {"window": [1, 9], "summary": "", "message_ids": {}, "memories": []}
    assert not score.score_questions(chat, record)[1]["reached"]
    record["turns"][5]["context"] = {"window": [9, 11], "summary": "", "message_ids": {}, "memories": []}
    assert score.score_questions(chat, record)[0]["source"] == "window"


def test_an_excerpt_of_another_conversation_reaches_a_new_thread(chat):
    record = _record()
    record["turns"][6]["context"] = {
        "window": [1, 1],
        "summary": "",
        "memories": [],
        "message_ids": {"other_threads": [102]},
    }
    assert score.score_questions(chat, record)[1]["source"] == "other_thread"


def test_excerpt_rows_are_classified_as_tool_nothing_or_content():
    classes = [score.classify_row(r) for r in _record()["excerpt_rows"]]
    assert classes == ["content", "nothing", "tool", "nothing", "nothing", "content"]
    quoted = {"role": "assistant", "text": 'Earlier: - “{"ok": true, "memory_id": 2}”', "tool": False}
    assert score.classify_row(quoted) == "tool"
    assert score.classify_row({"role": "assistant", "text": "Non ho informazioni su questo.", "tool": False}) == (
        "nothing"
    )


def test_memories_precision_recall_and_stale_values(chat):
    m = score.score_memories(chat, _record())
    # 1 (order) and 2 (dog, from its fact turn) and 4 (matched by its value to the correction) are labelled
    # store; 3 comes from an opinion.
    assert (m["stored"], m["stored_true"]) == (4, 3)
    assert (m["labelled"], m["labelled_stored"]) == (3, 3)
    assert m["stale_active"] == 1 and m["stale"][0]["fact_id"] == "dog"
    assert [f["kind"] for f in m["false"]] == ["opinion"]


def test_split_figures(chat):
    s = score.summarize([score.score_chat(chat, _record())])
    assert s["same_thread"]["questions"] == 2 and s["same_thread"]["reached"] == 2
    assert s["same_thread"]["correct"] == 1 and s["new_thread"]["correct_share"] == 1.0
    assert s["excerpt_rows"] == {
        "shown": 6,
        "tool": 1,
        "nothing": 3,
        "tool_share": 0.167,
        "nothing_share": 0.5,
        # Only the correction is about the asked fact; "What's your dog's name?" repeats the question row.
        "under_questions": 6,
        "about_fact": 1,
        "elsewhere": 0,
        "repeats": 1,
    }
    assert s["memories"]["precision"] == 0.75 and s["memories"]["recall"] == 1.0
    assert s["tokens"]["ratio"] == 0.25
    assert s["by_lang"] == {"en": {"questions": 3, "reached": 3, "correct": 2}}
    assert s["memories"]["labelled_by_kind"] == {"correction": [1, 1], "fact": [2, 2], "remember": [0, 0]}


def test_chat_files_are_checked(tmp_path):
    bad = dict(CHAT, turns=[CHAT["turns"][5]])
    with pytest.raises(data.ChatFormatError):
        data.parse_chat(bad)
    (tmp_path / "dev").mkdir()
    (tmp_path / "dev" / "a.jsonl").write_text(json.dumps(CHAT) + "\n" + json.dumps(dict(CHAT, id="tiny-2")) + "\n")
    chats = data.load_split("dev", root=tmp_path)
    assert [c.id for c in chats] == ["tiny-1", "tiny-2"] and len(data.quick_subset(chats, 1)) == 1
    assert data.load_split("heldout", root=tmp_path) == []


def test_the_development_chats_parse():
    chats = data.load_split("dev")
    assert chats and all(c.questions for c in chats)
