"""A deterministic evaluation set for retrieval: long multi-session chats with known answers.

Each conversation has ``sessions`` sessions of chit-chat between a user and an
assistant (hundreds of turns). Facts from ``facts.py`` are said once, in passing, in
a random session; distractor turns that share words with them are scattered through
other sessions; every fact gets a paraphrased question whose answer is the turn that
stated it. Conversations are English, some Italian. Two styles:

- ``"a"``: short turns, facts stated in a turn of their own;
- ``"b"``: long rambling turns, facts buried among other sentences, assistant replies
  that echo the user's words (so the reply is a strong distractor), either
  paraphrase of each question equally often.

Dev and test: every fact belongs to one split (``fact_split``, a hash of its memory
template), and so do its questions; conversations hold the facts of both, so each
split's questions have the other's as distractors. Constants are tuned on ``dev``
questions (seeds ``DEV_SEEDS``) and figures are reported on ``test`` questions (seeds
``TEST_SEEDS``): a held-out set of facts in conversations never used for tuning.

Everything comes from a seeded ``random.Random``: same seed, same data. No downloads.
"""

from __future__ import annotations

import random
import zlib
from dataclasses import dataclass, field

from bench.retrieval.facts import EN_ASSISTANT_FACTS, EN_FACTS, IT_FACTS

DEV_SEEDS = (3, 5)
TEST_SEEDS = (7, 11)


def fact_split(fact: dict) -> str:
    """``dev`` or ``test``, fixed per fact (about half each)."""
    return "dev" if zlib.crc32(fact["mem"].encode()) % 2 == 0 else "test"


@dataclass
class Question:
    text: str
    answer_turns: list[int]  # indexes into Conversation.turns
    lang: str
    split: str = "test"
    # The values the answer turn states (a name, a code, a place): the gold answer.
    answer: tuple[str, ...] = ()


@dataclass
class Conversation:
    name: str
    lang: str
    turns: list[tuple[str, str]] = field(default_factory=list)  # (role, text)
    session_starts: list[int] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)


# --- chit-chat ------------------------------------------------------------------------

EN_TOPICS = {
    "work": ["meeting", "deadline", "project", "report", "office", "client", "email", "team", "presentation"],
    "food": ["dinner", "recipe", "pasta", "oven", "market", "lunch", "coffee", "salad", "restaurant"],
    "travel": ["flight", "hotel", "trip", "train", "luggage", "airport", "visa", "holiday", "booking"],
    "fitness": ["gym", "run", "stretching", "knees", "training", "yoga", "steps", "swim", "weights"],
    "home": ["kitchen", "laundry", "neighbour", "flat", "garden", "plumber", "sofa", "rent", "boiler"],
    "media": ["series", "movie", "podcast", "book", "album", "episode", "novel", "concert", "game"],
    "shopping": ["order", "parcel", "courier", "refund", "discount", "shoes", "jacket", "delivery", "price"],
    "family": ["sister", "mother", "kids", "cousin", "school", "birthday", "dog", "grandparents", "party"],
}
EN_USER = [
    "Ugh, the {a} took forever today and then the {b} was a mess.",
    "Random question: what's a good way to deal with a {a} when the {b} is late?",
    "I spent the whole evening on the {a}, honestly I need a break from {b} stuff.",
    "Can you give me three quick tips about {a}? Nothing too long.",
    "Not much news, just {a} and more {b}. How do people stay motivated?",
    "My {a} plans fell through, maybe I'll focus on the {b} instead.",
    "Do you think it's normal to worry this much about the {a}?",
    "Thanks, that helped. Also, any thoughts on {a} versus {b}?",
    "Today I mostly thought about the {a}. And the {b}, unfortunately.",
    "Quick one: how long should a {a} take, roughly?",
]
EN_ASSISTANT = [
    "That sounds frustrating. With a {a}, it often helps to set a small goal first and keep the {b} separate.",
    "Here are a few ideas: plan the {a} ahead, keep notes, and give yourself time for the {b}.",
    "It's completely normal. Many people find the {a} stressful, especially when the {b} piles up.",
    "A good rule of thumb is to start with the {a} and leave the {b} for later in the day.",
    "If you want, we can break the {a} into steps. The {b} can wait until you have more energy.",
    "Try not to overthink it. A short walk before the {a} can make the {b} feel lighter.",
    "Sure. First, decide what matters about the {a}. Second, limit the time on the {b}. Third, rest.",
    "I understand. Balancing the {a} and the {b} is hard; be kind to yourself this week.",
]
EN_PAD = [
    "Anyway, the weather was grey all day.",
    "I also need to call my mother back at some point.",
    "Not sure why I'm so tired lately.",
    "The neighbours were drilling again this morning.",
    "I should really clean the kitchen tonight.",
    "Work was the usual chaos.",
    "We might see friends on Saturday, not sure yet.",
    "I'm trying to drink more water, with mixed results.",
]

IT_TOPICS = {
    "lavoro": ["riunione", "scadenza", "progetto", "ufficio", "cliente", "email", "squadra", "relazione"],
    "cibo": ["cena", "ricetta", "pasta", "forno", "mercato", "pranzo", "caffè", "ristorante"],
    "viaggi": ["volo", "albergo", "treno", "valigia", "aeroporto", "vacanza", "prenotazione"],
    "casa": ["cucina", "bucato", "vicino", "giardino", "idraulico", "divano", "affitto", "caldaia"],
    "acquisti": ["ordine", "pacco", "corriere", "rimborso", "sconto", "scarpe", "consegna", "prezzo"],
    "famiglia": ["sorella", "madre", "bambini", "cugino", "scuola", "compleanno", "cane", "festa"],
}
IT_USER = [
    "Uffa, oggi la {a} non finiva più e poi anche il {b} è andato storto.",
    "Domanda veloce: come si gestisce una {a} quando il {b} è in ritardo?",
    "Ho passato la serata sulla {a}, mi serve una pausa dal {b}.",
    "Mi dai tre consigli veloci sulla {a}? Niente di lungo.",
    "Poche novità, solo {a} e ancora {b}. Come si resta motivati?",
    "È normale preoccuparsi così tanto per la {a}?",
    "Grazie, utile. E invece tra {a} e {b} cosa conviene?",
]
IT_ASSISTANT = [
    "Capisco, è frustrante. Con la {a} aiuta fissare un piccolo obiettivo e tenere separato il {b}.",
    "Ecco qualche idea: pianifica la {a}, prendi appunti e lascia tempo per il {b}.",
    "È del tutto normale. Molti trovano stressante la {a}, soprattutto quando il {b} si accumula.",
    "Una buona regola è cominciare dalla {a} e lasciare il {b} per dopo.",
    "Se vuoi possiamo dividere la {a} in passi. Il {b} può aspettare.",
]
IT_PAD = [
    "Comunque oggi il tempo era grigio.",
    "Devo anche richiamare mia madre prima o poi.",
    "Non so perché sono così stanco ultimamente.",
    "I vicini trapanavano di nuovo stamattina.",
    "Stasera dovrei proprio pulire la cucina.",
]

EN_ECHO = [
    "Thanks for sharing that! {s} Let me know if you want help planning around it.",
    "Good to know. {s} I'll keep that in mind for later.",
    "Oh, interesting — {s} How do you feel about it?",
]
IT_ECHO = [
    "Grazie per avermelo detto! {s} Fammi sapere se vuoi aiuto.",
    "Buono a sapersi. {s} Lo terrò a mente.",
]


def _lang_pack(lang: str) -> dict:
    if lang == "it":
        return {"topics": IT_TOPICS, "user": IT_USER, "assistant": IT_ASSISTANT, "pad": IT_PAD, "echo": IT_ECHO}
    return {"topics": EN_TOPICS, "user": EN_USER, "assistant": EN_ASSISTANT, "pad": EN_PAD, "echo": EN_ECHO}


def _chitchat(rng: random.Random, pack: dict, style: str) -> tuple[str, str]:
    words = rng.choice(list(pack["topics"].values()))
    a, b = rng.sample(words, 2)
    user = rng.choice(pack["user"]).format(a=a, b=b)
    reply = " ".join(rng.choice(pack["assistant"]).format(a=a, b=b) for _ in range(rng.randint(1, 3)))
    if style == "b":
        user = " ".join([*rng.sample(pack["pad"], 2), user])
        reply = " ".join([reply, *rng.sample(pack["assistant"], 2)]).replace("{a}", a).replace("{b}", b)
    return user, reply


def _fill(template: str, values: tuple) -> str:
    return template.format(*values)


def conversation(rng: random.Random, *, name: str, lang: str, style: str, sessions: int, turns: int) -> Conversation:
    """One conversation of ``sessions`` sessions of about ``turns`` user+assistant pairs each."""
    pack = _lang_pack(lang)
    conv = Conversation(name=name, lang=lang)
    pool = list(IT_FACTS if lang == "it" else EN_FACTS)
    assistant_pool = [] if lang == "it" else list(EN_ASSISTANT_FACTS)
    rng.shuffle(pool)
    # Plan: which session states which fact, and where the distractors go.
    planned: dict[int, list[tuple[str, dict, tuple]]] = {s: [] for s in range(sessions)}
    for fact in pool + assistant_pool:
        values = rng.choice(fact["values"])
        kind = "assistant" if fact in assistant_pool else "user"
        planned[rng.randrange(sessions)].append((kind, fact, values))
        for near in fact["near"]:
            planned[rng.randrange(sessions)].append(("near", {"text": near}, values))
    pending: list[tuple[dict, tuple, list[int]]] = []
    for s in range(sessions):
        conv.session_starts.append(len(conv.turns))
        events = planned[s]
        slots = sorted(rng.sample(range(turns), min(turns, len(events))))
        by_slot = dict(zip(slots, events, strict=False))
        for i in range(turns):
            event = by_slot.get(i)
            if event is None:
                user, reply = _chitchat(rng, pack, style)
                conv.turns += [("user", user), ("assistant", reply)]
                continue
            kind, fact, values = event
            filler_user, filler_reply = _chitchat(rng, pack, style)
            if kind == "near":
                text = _fill(fact["text"], values)
                if style == "b":
                    text = " ".join([rng.choice(pack["pad"]), text, rng.choice(pack["pad"])])
                conv.turns += [("user", text), ("assistant", filler_reply)]
            elif kind == "user":
                statement = _fill(rng.choice(fact["say"]), values)
                said = statement
                if style == "b":
                    said = " ".join([*rng.sample(pack["pad"], 2), statement, filler_user])
                reply = filler_reply
                if style == "b" or rng.random() < 0.3:
                    # Assistants paraphrase what they were told: a strong distractor.
                    echoed = statement.split(", ")[0].rstrip(".!")
                    reply = rng.choice(pack["echo"]).format(s=echoed + ".") + " " + filler_reply
                conv.turns += [("user", said), ("assistant", reply)]
                pending.append((fact, values, [len(conv.turns) - 2]))
            else:
                answer = _fill(fact["say"][0], values)
                if style == "b":
                    answer = " ".join([filler_reply, answer])
                conv.turns += [("user", fact["user"]), ("assistant", answer)]
                pending.append((fact, values, [len(conv.turns) - 1]))
    for fact, values, answer_turns in pending:
        asks = fact["ask"]
        # Style a mostly asks the closer paraphrase, style b either one.
        text = asks[0] if len(asks) == 1 or rng.random() < (0.7 if style == "a" else 0.5) else asks[1]
        conv.questions.append(
            Question(
                text=_fill(text, values),
                answer_turns=answer_turns,
                lang=lang,
                split=fact_split(fact),
                answer=tuple(values),
            )
        )
    return conv


def generate(
    *, seed: int = 7, style: str = "a", conversations: int = 6, sessions: int = 12, turns: int = 22
) -> list[Conversation]:
    """``conversations`` chats; every third one is in Italian."""
    rng = random.Random(f"{seed}-{style}")
    return [
        conversation(
            rng,
            name=f"{style}{seed}-{i}",
            lang="it" if i % 3 == 2 else "en",
            style=style,
            sessions=sessions,
            turns=turns,
        )
        for i in range(conversations)
    ]


# --- memory recall ----------------------------------------------------------------------


@dataclass
class MemorySet:
    memories: list[str]
    questions: list[tuple[str, int, str]]  # (question, index of the memory that answers it, split)
    lang: str
    # Chit-chat user turns that concern none of the memories: what recall should leave alone.
    unrelated: list[str] = field(default_factory=list)


def memory_sets(*, seed: int = 7, users: int = 8) -> list[MemorySet]:
    """For each user up to 20 short memories (the per-user cap) and a question per memory."""
    rng = random.Random(f"mem-{seed}")
    sets = []
    for u in range(users):
        lang = "it" if u % 4 == 3 else "en"
        facts = list(IT_FACTS if lang == "it" else EN_FACTS + EN_ASSISTANT_FACTS)
        chosen = rng.sample(facts, min(20, len(facts)))
        memories, questions = [], []
        for fact in chosen:
            values = rng.choice(fact["values"])
            memories.append(_fill(fact["mem"], values))
            questions.append((_fill(rng.choice(fact["ask"]), values), len(memories) - 1, fact_split(fact)))
        pack = _lang_pack(lang)
        unrelated = [_chitchat(rng, pack, "a")[0] for _ in range(10)]
        sets.append(MemorySet(memories=memories, questions=questions, lang=lang, unrelated=unrelated))
    return sets
