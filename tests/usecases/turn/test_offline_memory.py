"""The offline model as a newcomer meets it: facts said in passing are kept and answered later.

Every turn goes through the real services, the graph and the tools (``run_turn``).
"""

import pytest

from conversations.content import text_block
from conversations.services import messages_append, thread_create
from memories.embedding_services import memory_embeddings_update
from memories.models import Memory, MemoryPreference
from tests.usecases.turn.helpers import reply_text, run_turn
from usecases.turn.offline import _REMEMBER, _match
from usecases.turn.offline_context import Line, answer_lines
from usecases.turn.offline_facts import stable_fact

SMALL_TALK = [
    "hey, long day at work today",
    "How long do you boil an egg for a soft yolk?",
    "that film last night was so overrated",
    "ugh it's raining again",
    "Any tips for sleeping better?",
]


def _chat(user, thread, n: int) -> None:
    for i in range(n):
        run_turn(user, thread, SMALL_TALK[i % len(SMALL_TALK)])


@pytest.mark.django_db
def test_a_pet_named_long_ago_and_renamed_later_is_answered_with_its_name(alice):
    thread = thread_create(owner=alice)
    run_turn(alice, thread, "Our dog is called Bruno, he's a very lazy beagle.")
    _chat(alice, thread, 25)
    reply = reply_text(run_turn(alice, thread, "What's my dog's name?"))
    assert reply.startswith("(offline model)") and "Bruno" in reply
    assert "“Our dog is called Bruno" in reply  # the line it used, quoted

    run_turn(alice, thread, "We renamed the dog Rocco last week, Bruno never suited him.")
    _chat(alice, thread, 22)
    reply = reply_text(run_turn(alice, thread, "What's my dog's name?"))
    assert "Rocco" in reply
    assert "Bruno" not in reply or reply.index("Rocco") < reply.index("Bruno")  # the newest first


@pytest.mark.django_db
def test_an_italian_question_gets_an_italian_answer_from_the_summary_or_excerpts(alice):
    thread = thread_create(owner=alice)
    run_turn(alice, thread, "Il mio medico si chiama dottor Ferri, riceve il martedì.")
    _chat(alice, thread, 24)
    reply = reply_text(run_turn(alice, thread, "Come si chiama il mio medico?"))
    assert "Ferri" in reply and reply.startswith("(offline model) Da quanto")


@pytest.mark.django_db
def test_a_fact_in_the_window_is_answered_from_the_window(alice):
    thread = thread_create(owner=alice, incognito=True)  # no memory: only the window holds it
    run_turn(alice, thread, "The invoice for the boiler is INV-7731.")
    run_turn(alice, thread, "ugh it's raining again")
    reply = reply_text(run_turn(alice, thread, "what was the boiler invoice number?"))
    assert "INV-7731" in reply


@pytest.mark.django_db
def test_facts_said_in_passing_are_stored_through_the_remember_tool(alice):
    thread = thread_create(owner=alice)
    for text in [
        "im a nurse on the cardiac ward at St Brigid's, nearly six years now",
        "random one, any nitrile gloves that don't smell? I'm allergic to latex so nitrile it is",
        "and I have the dentist Thursday 14 November at 8:30am, great planning",
        "Il mio gatto si chiama Miso ed è molto pigro",
    ]:
        run = run_turn(alice, thread, text)
        assert reply_text(run).startswith(("(offline model) Noted: “", "(offline model) Me lo segno: “"))
        call = run.trace_events.get(kind="tool_call", name="remember_fact")
        assert call.payload["result"]["ok"] is True
    stored = list(Memory.objects.filter(user=alice).values_list("content", "source_thread", "writer_name"))
    contents = [c for c, *_ in stored]
    assert len(stored) == 4 and all(t == thread.pk and w == "assistant" for _, t, w in stored)
    assert "I'm allergic to latex so nitrile it is" in contents  # the sentence that states it, openers out
    assert "I have the dentist Thursday 14 November at 8:30am, great planning" in contents
    # A new conversation knows them (their vectors are made by the worker; here, now).
    memory_embeddings_update(memory_ids=list(Memory.objects.filter(user=alice).values_list("pk", flat=True)))
    new_thread = thread_create(owner=alice)
    reply = reply_text(run_turn(alice, new_thread, "which kind of gloves must I avoid, with my allergy?"))
    assert "latex" in reply


@pytest.mark.django_db
def test_a_change_said_in_passing_retires_the_older_value(alice):
    thread = thread_create(owner=alice)
    run_turn(alice, thread, "were closed mondays, its my only proper day off")
    run_turn(alice, thread, "rent is 4900 nok a month for a tiny room")
    run_turn(alice, thread, "changing things up, from next week were shut tuesdays instead")
    run_turn(alice, thread, "landlord just put the rent up to 5200 from next month. great. amazing.")
    active = list(Memory.objects.filter(user=alice, status="active").values_list("content", flat=True))
    assert len(active) == 2 and any("tuesdays" in c for c in active) and any("5200" in c for c in active)
    old = Memory.objects.get(user=alice, content__startswith="Were closed mondays")
    assert old.status == "superseded" and "tuesdays" in old.superseded_by.content


@pytest.mark.django_db
def test_a_change_that_retires_nothing_is_not_a_new_memory(alice):
    thread = thread_create(owner=alice)
    run_turn(alice, thread, "our cat is called Pickle")
    for text in [
        "dinner plan changed btw, they couldn't fit 8 of us on saturday so it's now Sunday at 6",
        "Daniel moved the 1:1 again, it's now Thursday at 4",
    ]:
        run = run_turn(alice, thread, text)
        assert "Noted" not in reply_text(run)
        assert run.trace_events.get(kind="tool_call", name="remember_fact").payload["result"]["ok"] is False
    active = list(Memory.objects.filter(user=alice).values_list("content", "status"))
    assert active == [("Our cat is called Pickle", "active")]


@pytest.mark.django_db
def test_small_talk_questions_and_opinions_are_never_stored(alice):
    thread = thread_create(owner=alice)
    for text in [*SMALL_TALK, "I think Rome is the best city in the world", "what's my doctor's name?"]:
        run_turn(alice, thread, text)
    assert not Memory.objects.filter(user=alice).exists()


@pytest.mark.django_db
def test_a_fact_said_where_memory_is_off_is_not_stored(alice):
    run = run_turn(alice, thread_create(owner=alice, incognito=True), "our cat is called Pickle")
    assert "Noted" not in reply_text(run) and not Memory.objects.filter(user=alice).exists()
    MemoryPreference.objects.create(user=alice, long_term_enabled=False)
    run_turn(alice, thread_create(owner=alice), "our cat is called Pickle")
    assert not Memory.objects.filter(user=alice).exists()


@pytest.mark.django_db
def test_the_cap_applies_to_facts_said_in_passing(alice, settings):
    settings.MEMORY_MAX_ACTIVE_PER_USER = 2
    thread = thread_create(owner=alice)
    for text in ["our cat is called Pickle", "my sister Maeve lives in Cork", "I work at Nexora as a developer"]:
        run_turn(alice, thread, text)
    assert Memory.objects.filter(user=alice).count() == 2


def test_which_sentences_state_a_stable_fact():
    assert stable_fact("also the flat is a mess. our cat is called Pickle!") == "Our cat is called Pickle!"
    assert stable_fact("my order number is A-7781, can you check it") is not None
    assert stable_fact("Lavoro da Nexora come sviluppatore") is not None
    for text in [
        "hey. just off a 12 hour night shift",
        "I think the Latin Quarter is overrated",
        "How long do you boil an egg?",
        "What's my dog's name?",
        "Matilde mi chiede cosa voglio per il mio compleanno. Qual è il mio piatto preferito?",
        "I'm tired today",
    ]:
        assert stable_fact(text) is None, text


def test_a_fact_is_told_by_the_shape_of_the_sentence_not_its_topic():
    # Stated in passing, in a request to the assistant, or in the third person: kept.
    for text in [
        "we live in Leeds so the drive is long. is it worth a hotel?",
        "write a note to my landlord, Mr. Hughes: the boiler is broken again",
        "scrivi a mia sorella Giada che arrivo tardi",
        "my neighbour's son can't eat eggs, what cake can I make for him?",
        "sono vegana: cosa posso ordinare in pizzeria?",
        "the plate of my van is KD 441 PX, the form keeps rejecting it",
        "Il medico è giovedì 3 aprile alle 9:40",
    ]:
        assert stable_fact(text) is not None, text
    # Work schedules, deliveries, someone else's codes, quoted text and requests: never kept.
    for text in [
        "the team meeting moved to Thursday at 2pm",
        "the budget deadline is 14 March, no extensions",
        "ho ordinato una sedia nuova, ordine 88-2231, arriva lunedì",
        "their van collecting the pallets is LK21 BNE",
        "summarise this: 'The council approved 42 new homes and a £3,000 grant per family.'",
        "draft a reply to the invoice query, amount £1,240, polite",
        "fammi una scaletta per la riunione di martedì alle 10",
    ]:
        assert stable_fact(text) is None, text


def test_news_of_someone_beyond_the_household_is_not_the_persons_fact():
    # A spouse, a child or a manager named is a fact of the person's life, whatever the sentence says of them.
    for text in [
        "Mio marito Enzo dice che è colpa mia",
        "my housemate Jonas is a chef at a seafood place on the harbour",
        "I'm seriously allergic to shellfish, like epipen allergic",
    ]:
        assert stable_fact(text) is not None, text
    # A friend, a cousin, an in-law or a neighbour named in their own news: theirs, not the person's.
    for text in [
        "Mio genero Raffaele d'inverno fa il maestro di sci all'Alpe di Siusi",
        "Il burraco e la pinnacola sono lo stesso gioco? Mia cugina Graziella dice di sì",
        "on friday I'm meeting my friend Jess to work at The Brew Room for the day",
        "Mr. Doherty next door just got a golden retriever puppy named Murphy",
    ]:
        assert stable_fact(text) is None, text


def test_a_guess_is_no_fact_but_the_fact_beside_it_is():
    assert stable_fact("I might ask Ray for one of those kneeler seats for my birthday.") is None
    assert stable_fact("forse mia sorella Giada viene a Natale") is None
    kept = stable_fact("finally booked the dentist too, Thursday the 14th at 9:30, after my shift which is maybe dumb")
    assert kept == "Finally booked the dentist too, Thursday the 14th at 9:30"


def test_dotted_initials_do_not_cut_the_fact_from_what_it_is_about():
    stored = stable_fact("Conti file: R.G. number is 45821/2023. put it in the header of the memo")
    assert stored is not None and stored.startswith("R.G. number is 45821/2023")


def test_remember_requests_are_kept_however_they_are_phrased():
    for text, kept in [
        ("remember: the wifi password at the cabin is 7hills", "the wifi password at the cabin is 7hills"),
        ("oh before I forget, remember my locker is 212", "my locker is 212"),
        ("can you remember AB-1234 for me? it's the boiler's serial", "AB-1234 for me? it's the boiler's serial"),
        ("ricorda: il codice del box è 5521", "il codice del box è 5521"),
    ]:
        assert _match(_REMEMBER, text) == kept, text
    for text in ["can you remember my dog's name?", "remember when we went to Rome?", "do you remember my job?"]:
        assert not _match(_REMEMBER, text), text


def test_a_name_is_not_an_answer_to_any_question_about_a_name():
    lines = [Line("Hi! My name is Marco Bianchi.", "excerpt", "2026-01-01", 1, (1, "2026-01-01", 1))]
    lines.append(Line("Our dog is called Bruno", "excerpt", "2026-01-01", 9, (1, "2026-01-01", 9)))
    assert [line.text for line in answer_lines("What's my dog's name?", lines)] == ["Our dog is called Bruno"]


def test_an_earlier_question_is_no_answer_to_a_question_about_the_same_thing():
    def line(text: str, seq: int) -> Line:
        return Line(text, "excerpt", "2026-01-01", seq, (1, "2026-01-01", seq))

    lines = [
        line("brb Biscuit needs a wee. he's a beagle and he has strong opinions about timing", 3),
        line("what's a good dog friendly walk near here that isn't the downs", 40),
        line("hey quick test, what's my dog called? my kid bet me you wouldn't know", 41),
        line("what should I feed a dog that hates kibble", 42),
    ]
    assert [x.text for x in answer_lines("random test: what's my dog called?", lines)] == [lines[0].text]


def test_a_newer_line_about_something_else_never_stands_in_for_the_answer():
    def line(text: str, seq: int, source: str = "excerpt") -> Line:
        return Line(text, source, "2026-01-01", seq, (0 if source == "memory" else 1, "2026-01-01", seq))

    flatmate = line("my flatmate Ruaridh is sitting the same exam so we might quiz each other", 12)
    moved = line("WAIT. the exam got moved to 13 January, same time", 41)
    answer = answer_lines("whats my flatmate's name again? the one sitting the same exam", [flatmate, moved])
    assert answer[0] == flatmate
    # An active memory holding the value is not dropped for lines that are merely newer.
    visit = line("the cardiology visit stays on Tuesday 12 March but at 11:15 instead of 10:30", 7, "memory")
    fear = line("dentists scare me more than the cardiologist, honestly", 60, "window")
    gate = line("the gate code at home is 4417", 8, "memory")
    reply = answer_lines("what time is my cardiologist on Tuesday?", [gate, visit, fear])
    assert visit in reply
    assert answer_lines("I'm at the door and forgot the gate code, what is it?", [gate, visit])[0] == gate


def test_a_correction_that_never_names_the_thing_stands_in_for_the_line_it_corrects():
    def line(text: str, seq: int) -> Line:
        return Line(text, "excerpt", "2026-01-01", seq, order=(1, "2026-01-01", seq))

    dose = line("the blood pressure one is amlodipine 5mg in the morning", 10)
    walk = line("went for a walk by the canal, lovely morning", 14)
    switched = line("saw the GP and she switched me to the 10mg ones for my blood pressure", 40)
    answer = answer_lines("What dose is my amlodipine now?", [dose, walk, switched])
    assert answer[0] == switched and dose not in answer
    # A correction of another thing, naming the value it replaces, corrects nothing here.
    badge = line("my staff badge number is 20931", 12)
    locker = line("sorry, typo: the locker code is 4417 not 4471", 30)
    assert answer_lines("what's my badge number?", [badge, walk, locker])[0] == badge


@pytest.mark.django_db
def test_tool_traffic_in_the_window_is_never_quoted(alice):
    thread = thread_create(owner=alice)
    messages_append(thread=thread, items=[{"role": "user", "content": [text_block("hello")]}])
    run_turn(alice, thread, "remember that my gate code is 4411")
    reply = reply_text(run_turn(alice, thread, "what is my gate code?"))
    assert "4411" in reply and "remember_fact" not in reply and "memory_id" not in reply


def test_facts_said_around_a_code_a_name_or_a_date_are_kept_and_passing_orders_are_not():
    for text in [
        "the garage wants the car reg: KM21 YTR",
        "B&B booked for June, booking reference PW4K82",
        "Jasper, our old tabby, has taken over the armchair",
        "can you write to Dana Whitfield, she's my landlord, about the leak?",
        "my brother's birthday is 9 July, I always forget",
        "I'm on metformin every morning since the spring",
        "Ella's at Oakfield Primary since September",
        "been at Brightwater Foods for six years now",
        "il cardiologo mi ha prescritto il bisoprololo",
        "ho accettato un'offerta dalla Lumen Srl, inizio a marzo",
        "ho il dentista martedì 14 alle 17:30, e odio già l'idea",
    ]:
        assert stable_fact(text) is not None, text
    for text in [
        "ho ordinato una lampada, ordine ORD-5521, arriva lunedì",
        "still fighting ticket BKD-4412 at work",
        "I think birthdays after 40 are overrated",
        "Thanks Sarah, my day was fine",
    ]:
        assert stable_fact(text) is None, text


@pytest.mark.django_db
def test_a_question_beside_a_fact_is_answered_as_the_fact_is_kept(alice):
    thread = thread_create(owner=alice)
    run_turn(alice, thread, "remember that my bike lock code is 0419")
    _chat(alice, thread, 3)
    run = run_turn(alice, thread, "the new GP prescribed me amoxicillin. which code did I give you for the bike lock?")
    reply = reply_text(run)
    assert reply.startswith("(offline model) Noted: “") and "0419" in reply
    assert Memory.objects.filter(user=alice, content__icontains="amoxicillin").exists()


@pytest.mark.django_db
def test_a_friends_news_is_not_in_the_persons_memories_their_own_plain_fact_is(alice):
    thread = thread_create(owner=alice)
    for text in [
        "big news from the weekend, my mate Rob is moving to Leeds",
        "zia Carla è allergica alle noci, lo dico al ristorante",
        "There's a collie called Bess at the shelter who keeps looking at me.",
        "I own so many mugs it's embarrassing.",
    ]:
        assert "Noted" not in reply_text(run_turn(alice, thread, text))
    run_turn(alice, thread, "I work at Halden Press as an editor")
    contents = list(Memory.objects.filter(user=alice).values_list("content", flat=True))
    assert contents == ["I work at Halden Press as an editor"]
