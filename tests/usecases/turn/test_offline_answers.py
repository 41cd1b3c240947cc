"""How the offline model picks the line it answers with, from everything its context holds."""

import pytest

from conversations.services import thread_create
from memories.models import Memory
from tests.usecases.turn.helpers import reply_text, run_turn
from usecases.turn.offline import OfflineModel
from usecases.turn.offline_context import Line, answer_lines, context_lines


def _line(text: str, seq: int, source: str = "excerpt") -> Line:
    return Line(text, source, "2026-01-01", seq, order=(0 if source == "memory" else 1, "2026-01-01", seq))


def test_a_reply_the_summary_kept_is_read_for_the_words_it_quotes():
    summary = (
        "Summary of the conversation so far:\n2026-01-01:\n- User: slow tuesday at the shop\n"
        "- Assistant: (offline model) Noted: “I own a little plant shop called Fern & Fig, open four years”.\n"
        "- Assistant: (offline model) Got it."
    )
    lines = context_lines([{"type": "text", "text": summary}], [], 0)
    assert [line.text for line in lines] == [
        "slow tuesday at the shop",
        "I own a little plant shop called Fern & Fig, open four years",
    ]
    assert "Fern & Fig" in answer_lines("what's my shop called?", lines)[0].text


def test_a_newer_line_about_the_same_thing_stands_first_only_when_it_holds_the_value_asked():
    named = _line("I'll ask the accountant, Dr Ferrante, he only speaks in tax codes", 10)
    remark = _line("a good accountant is worth more than a good cook", 20)
    assert answer_lines("What's my accountant called?", [named, remark])[0] == named
    moved = _line("the dentist pushed me to 9:15 same morning", 30)
    first = _line("I have the dentist Thursday 14 November at 8:30am", 5)
    assert answer_lines("what time is the dentist on Thursday?", [first, moved])[0] == moved


def test_pronouns_and_function_words_of_a_question_match_nothing():
    train = _line("Remember that her train gets in at 11:40 on saturday", 30, "summary")
    cat = _line("also the cat is lying on my chest. Pickle has zero respect for night workers", 11)
    question = "the cat just knocked my phone off the bed lol. quick test, do you remember her name?"
    assert answer_lines(question, [train, cat])[0] == cat


@pytest.mark.django_db
def test_a_request_said_without_a_question_is_answered_and_small_talk_is_not(alice):
    thread = thread_create(owner=alice)
    run_turn(alice, thread, "remember that my bike lock combination is 0419")
    assert Memory.objects.filter(user=alice).exists()
    reply = reply_text(run_turn(alice, thread_create(owner=alice), "bike lock code please, I'm in the rain"))
    assert "0419" in reply and "“" in reply  # the line it used, quoted
    for text in ["hiii ok I need a procrastination buddy and you're it", "morning. short answers today pls"]:
        assert reply_text(run_turn(alice, thread, text)) == "(offline model) Got it."


def test_a_remark_about_the_same_thing_is_no_newer_value_and_text_quoted_for_a_task_is_not_the_persons():
    named = _line("I'll ask the accountant, Dr Ferrante, he only speaks in tax codes", 10)
    remark = _line("a good accountant is worth more than a good cook, I've always said it changes everything", 20)
    assert answer_lines("What's my accountant called?", [named, remark])[0] == named
    task = _line("tidy this: 'my dog ate the homework, said every kid in 1998'", 30)
    dog = _line("lives with a whippet called Pesto, our dog since 2019", 5)
    assert answer_lines("what's my dog called?", [dog, task])[0] == dog


def test_a_value_the_question_names_is_what_the_lines_are_about_not_the_value_asked():
    moved = _line("The meeting on Thursday with Conti is now at 16, no longer at 15", 4, "summary")
    other = _line("my manager is Ilaria Conti, write her that I'm home sick from Monday", 17)
    assert "16" in answer_lines("what time is Thursday's meeting with Conti?", [moved, other])[0].text
    seat = _line("Picked our seats last night, I've got 32A next to Eileen", 47)
    aisle = _line("the seats got shuffled with the new flight, I'm in 41C now, an aisle", 60)
    assert answer_lines("Which seat did I end up with?", [seat, aisle])[0] == aisle


@pytest.mark.django_db
def test_a_task_that_needs_a_name_the_person_gave_is_answered_with_it(alice):
    thread = thread_create(owner=alice, incognito=True)  # no memory: the window and excerpts hold it
    run_turn(alice, thread, "Jasper, our old tabby cat, has taken over the armchair again")
    run_turn(alice, thread, "ugh it's raining again")
    reply = reply_text(run_turn(alice, thread, "write a short poem about my cat sulking in the rain, use his name"))
    assert "Jasper" in reply and "“Jasper, our old tabby" in reply
    run_turn(alice, thread, "Tigre, la nostra gatta, dorme sul divano da stamattina")
    reply = reply_text(run_turn(alice, thread, "scrivimi una filastrocca sulla mia gatta, usa il suo nome"))
    assert "Tigre" in reply and reply.startswith("(offline model) Da quanto")


def test_opinions_and_requests_to_the_assistant_answer_nothing():
    opinion = _line("I think gym lockers are the most overrated part of any gym", 40)
    request = _line("write me a motivational note for the gym, mention my locker", 50)
    locker = _line("my locker at the gym is 114, combination 3-19-27", 7)
    assert answer_lines("at the gym, blanking, what's my locker combination?", [locker, opinion, request]) == [locker]
    # News headed by a word that also asks ("update: …") still states something.
    gate = _line("check-in email says gate B17", 10)
    moved = _line("update: they moved us to gate C4", 20)
    assert answer_lines("remind me which gate I'm leaving from?", [gate, moved])[0] == moved


def test_a_change_the_summary_marks_replaces_an_excerpt_it_cannot_be_ordered_with():
    system = (
        "Summary of the conversation so far:\n2026-01-01:\n"
        "- User: we've decided Biscotto doesn't suit her, we're calling her Nala now"
        " (changed: this replaces what was said before)\n\n"
        "Earlier in this conversation (verbatim excerpts older than the recent messages):\n"
        "- [#23, 2026-01-01, user] “Biscotto, our rescue greyhound, has found the sofa”"
    )
    lines = context_lines([{"type": "text", "text": system}], [], 0)
    reply = answer_lines("write a caption for a photo of our greyhound on the sofa, use her name", lines)
    assert "Nala" in reply[0].text


def test_a_name_that_opens_a_sentence_answers_a_task_that_needs_it():
    pet = _line("Biscuit just stole a sock off the drying rack again. beagles are relentless", 11)
    chat = _line("just stole ten minutes for a walk, the rack of lamb was great", 40)
    found = answer_lines(
        "write a WANTED poster for my beagle, he stole a sock, use his name", [pet, chat], value_only=True
    )
    assert found and found[0] == pet
    # A word the person also writes in lower case opens sentences, it names no one.
    assert not answer_lines("write a poem about the rack, use its name", [chat], value_only=True)


def test_a_request_to_recall_said_without_a_question_is_answered():
    lines = [_line("Già prendo il Ramipril per la pressione tutte le mattine, 5 mg, da tre anni", 16)]
    request = "Sono in farmacia e non mi ricordo il nome della pastiglia della pressione..."
    reply = OfflineModel()._decide(request, [], {"remember_fact"}, lines, "it")
    assert "Ramipril" in reply[0]["text"]


def test_a_code_of_another_thing_is_no_newer_value_of_the_one_asked():
    booking = _line("Intanto ho prenotato il B&B in Puglia per agosto, codice di conferma BK-5531902", 26, "summary")
    gate = _line("ricordati che il codice del cancello del condominio nuovo è 2719, lo sbaglio sempre", 91)
    found = answer_lines(
        "il B&B mi chiede il codice della prenotazione per il check-in online, qual era?", [booking, gate]
    )
    assert found[0] == booking


@pytest.mark.django_db
def test_a_question_typed_without_its_question_mark_is_answered(alice):
    thread = thread_create(owner=alice)
    run_turn(alice, thread, "remember this for me pls: lockbox code for the builders is 2719")
    run_turn(alice, thread, "ugh the dust is everywhere")
    for question in [
        "im at the house and the plumber's outside, whats the lockbox code",
        "lockbox code, what was it",
        "ok so whats the lockbox code again",
    ]:
        assert "2719" in reply_text(run_turn(alice, thread, question))
    # A statement that opens a clause with a question word still states: acknowledged.
    for text in ["we got the builders in, which is great", "my brother tom, who is a plumber, popped round"]:
        assert reply_text(run_turn(alice, thread, text)) == "(offline model) Got it."


def test_a_value_stated_before_a_question_about_it_is_an_answer():
    rate = _line("i charge £380 a day for most clients, is that low for leeds? its been the same for 3 yrs", 4)
    asked = _line("ok memory test, whats my day rate again", 9)
    assert answer_lines("whats my day rate at the moment? trying to quote a big job", [rate, asked]) == [rate]
    # Before a question that only asks, nothing is stated.
    assert not answer_lines("what's my day rate?", [_line("ok so, what do you think my rate should be?", 3)])


def test_a_request_that_points_back_at_something_said_is_answered_with_it():
    health = _line("also health thing, im coeliac so if you ever suggest recipes pls no gluten", 23)
    chat = _line("long day, the kids were feral at dinner", 40)
    request = "can you suggest a quick dinner for tonight, keep in mind my health thing i told you about"
    reply = OfflineModel()._decide(request, [], {"remember_fact"}, [health, chat], "en")
    assert "coeliac" in reply[0]["text"]
    # The same request with nothing pointing back is no question: acknowledged.
    reply = OfflineModel()._decide("can you suggest a quick dinner for tonight pls", [], set(), [health, chat], "en")
    assert reply[0]["text"] == "(offline model) Got it."


def test_a_word_said_all_over_the_context_does_not_make_a_newer_line_the_same_thing():
    cottage = _line("We've still got a little place back in Cornwall. Gull's Rest, it's called, an old cottage", 43)
    club = _line("Book club drama. The café in Perugia wants the back room for Thursday evenings", 117)
    elsewhere = [_line("my back is killing me after the garden", 60), _line("back home by six, Tom cooked", 70)]
    question = "The cleaners in Cornwall want the name of the cottage for their booking. What's our place called?"
    assert answer_lines(question, [cottage, club, *elsewhere])[0] == cottage


def test_a_correction_that_brings_a_new_day_is_no_new_name():
    minder = _line(
        "Remember the childminder is Joanne, she picks the kids up on Tuesdays, I might ask you to draft texts", 71
    )
    shifts = _line(
        "Rob's shifts changed so we've swapped: kids are with me Wednesday to Friday now, still every other weekend",
        129,
    )
    trip = _line("Maya's allergic to peanuts, need a letter for her school trip form explaining the epipen", 37)
    costs = _line("childcare costs are insane", 105)
    answer = answer_lines(
        "what's the childminder's name, I need to add her to the school pickup list", [minder, trip, costs, shifts]
    )
    assert answer[0] == minder


def test_a_task_said_after_the_question_only_says_what_the_answer_is_for():
    stall = _line("I do a stall at the Tobacco Factory market on Sundays. write a little sign for it", 69)
    remark = _line("markets are exhausting but people love sniffing everything", 73)
    price = _line("putting the 200g jars up to £19.50, wax has gone up. update the description", 97)
    moved = _line("Left the Sunday market, got a Saturday pitch at St Nicholas Market instead. new sign pls", 163)
    answer = answer_lines("which market do I do now, putting it in the insta bio", [stall, remark, price, moved])
    assert answer[0] == moved


def test_a_line_that_shows_the_kind_asked_about_answers_it():
    diet = _line("I am vegetarian, when I ask recipes no meat", 20, "memory")
    conference = _line("Conference changed! EuroMOF moved to Porto this year, same dates. need new travel plan", 40)
    supervisor = _line("My supervisor is Dr Helen Marsh. I need write email to her, ask meeting about chapter 3", 5)
    answer = answer_lines(
        "You remember what is my diet? I need tell the conference dinner organisers", [conference, diet, supervisor]
    )
    assert answer[0] == diet
    parents = _line("Vivono a Cremona, in via Mazzini 8, io invece sto a Milano", 12, "summary")
    meeting = _line("meglio, il 20 avevo una riunione che non potevo saltare", 91)
    notary = _line("mia sorella ha chiamato il notaio, che pizza", 30)
    answer = answer_lines(
        "l'indirizzo dei miei te l'avevo dato? serve per la consegna della spesa", [parents, meeting, notary]
    )
    assert answer[0] == parents


def test_a_time_both_lines_mention_does_not_make_one_a_change_of_the_other():
    supervisor = _line(
        "My supervisor is Dr Helen Marsh. I need write email to her, ask meeting next week about chapter 3", 5
    )
    lab = _line("We moved lab last week is room 3.24, the same floor.", 23, "memory")
    thesis = _line("I have 5 chapters, 2 are finished.", 18, "memory")
    answer = answer_lines("What is the name of my main supervisor? I need put in the form", [lab, thesis, supervisor])
    assert answer[0] == supervisor


@pytest.mark.django_db
def test_a_question_someone_passed_on_is_answered(alice):
    thread = thread_create(owner=alice)
    run_turn(alice, thread, "remember that the bank account number on my invoices is 61558829")
    reply = reply_text(
        run_turn(alice, thread_create(owner=alice), "Karen's asking what bank account number is on the invoices now")
    )
    assert "61558829" in reply


def test_a_word_of_four_letters_matches_its_own_forms_not_longer_words_and_a_weight_is_a_number():
    formula = _line("remember we use Kendamil formula for top ups, the first infant one", 35)
    birth = _line("he was 3.4 kg at birth", 29)
    nurse = _line("nurse visit today, he's back above his birth weight, she was happy with him", 121)
    question = "the pediatrician form asks for birth weight, remind me what it was?"
    answer = answer_lines(question, [birth, formula, nurse])
    assert "3.4 kg" in " ".join(line.text for line in answer)
    shoes = _line("I run in Brooks Ghost 15s btw, about 300 miles on the current pair", 15)
    race = _line("race day is October 12", 3)
    assert answer_lines("which model am I running in again?", [race, shoes])[0] == shoes


def test_a_newer_line_that_names_the_same_office_is_no_new_amount():
    memory = [
        "Il CAF ha chiamato che la signora si è ammalata e mi hanno spostata al 27 maggio",
        "La maestra mi ha scritto che il colloquio lo facciamo il 19 aprile",
        "la mensa si paga entro il 5 di ogni mese sul portale del Comune",
    ]
    lines = [Line(text, "memory", order=(0, "", i)) for i, text in enumerate(memory)] + [
        _line("ho fatto l'ISEE al CAF ed è uscito 18.400 euro, mi serve per la mensa e il bonus", 24, "other"),
        _line("ué ti ho detto una cavolata prima, l'ISEE non è 18.400 è 18.490", 43, "other"),
        _line("per l'estate abbiamo messo da parte 600 euro per il centro estivo di tutti e due", 50, "other"),
    ]
    answer = answer_lines("quanto era il nostro ISEE? mi serve per la domanda del centro estivo", lines)
    assert "ISEE" in answer[0].text  # not the CAF's call about an appointment


def test_a_value_a_task_introduces_after_its_colon_is_read_and_the_newer_value_stands_alone():
    first = _line(
        "Devo comunicare ai dipendenti il piano welfare 2025: 600 euro a testa sulla piattaforma. "
        "Mi scrivi una comunicazione chiara?",
        10,
    )
    raised = _line(
        "Rifai la comunicazione sul welfare: il CdA ha approvato l'aumento, saranno 750 euro a testa invece di 600. "
        "Evidenzia la novità",
        40,
    )
    assert answer_lines("quanto è il welfare per dipendente, alla fine?", [first, raised]) == [raised]


def test_a_name_said_before_a_question_about_something_else_answers():
    said = _line("nel nostro gestionale HR, Zucchetti, c'è un modo per esportare le ferie residue per reparto?", 12)
    other = _line("le cene aziendali sono il momento più bello e più temuto dell'anno per chi fa HR", 30)
    found = answer_lines("come si chiama il gestionale HR che usiamo?", [said, other])
    assert found[0] == said


def test_of_two_values_of_one_thing_the_reply_quotes_the_newer_alone():
    old = _line("The landlord's a Sr. Duarte, seems nice, writes very formal English emails", 10)
    new = _line("the new landlady is Dona Fátima, she only speaks Portuguese so you'll be translating for me", 20)
    assert answer_lines("what's the landlady's name again, I want to write her a card", [old, new]) == [new]
