"""A new statement on the same subject replaces the old one; compatible ones stay side by side."""

from __future__ import annotations

import numpy as np
import pytest

from memories.matching import compare
from memories.matching.change import choose, judge
from memories.matching.change_score import FEATURES, ScoreModel
from memories.models import Memory, MemoryStatus
from memories.recall import search_memories
from memories.services import memory_remember
from memories.text import memory_text
from tests.fake_anthropic import error_reply, text_reply

pytestmark = pytest.mark.django_db


def remember(user, content):
    return memory_remember(user=user, content=content, writer_name="assistant")


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("my order number is A-7781", "my order number is actually B-1200"),
        ("I live in Rome", "I moved to Milan"),
        ("I am vegetarian", "I am no longer vegetarian"),
        ("my manager is Luca Bianchi", "my new manager is Paolo Rossi"),
        ("abito a Roma", "mi sono trasferito a Milano"),
        ("My favourite colour is blue", "My favourite colour is green now"),
        ("mi piace il caffè", "non mi piace più il caffè"),
        ("lavoro per Fiat", "invece lavoro per Ferrari"),
    ],
)
def test_a_changed_statement_supersedes_the_old_one_which_is_kept_and_linked(alice, old, new):
    first = remember(alice, old).memory
    out = remember(alice, new)
    assert out.action == "superseded" and out.memory.pk != first.pk
    first.refresh_from_db()
    # Never overwritten in place: the old text is still there, linked to its successor.
    assert (first.content, first.status, first.superseded_by_id) == (old, MemoryStatus.SUPERSEDED, out.memory.pk)
    # Stored as a fact: "actually", "now" were the talk of the moment.
    stored = memory_text(new)
    assert list(Memory.objects.filter(user=alice, status="active").values_list("content", flat=True)) == [stored]
    assert first.pk not in [h.memory.pk for h in search_memories(user=alice, query=old)]
    result = out.as_tool_result()
    assert result["superseded"] == [{"memory_id": first.pk, "content": old, "why": result["superseded"][0]["why"]}]
    assert old in result["note"] and "no longer be recalled" in result["note"]


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("my sister is Anna", "my brother is Marco"),
        ("I live in Rome", "I work in Milan"),
        ("I like coffee", "I like tea too"),
        ("mia sorella si chiama Anna", "mio fratello si chiama Marco"),
        ("my order number is A-7781", "my phone number is 555-0134"),
    ],
)
def test_compatible_statements_stay_side_by_side(alice, old, new):
    remember(alice, old)
    assert remember(alice, new).action == "created"
    assert Memory.objects.filter(user=alice, status="active").count() == 2


def test_a_restatement_updates_in_place(alice):
    first = remember(alice, "I live in Rome").memory
    out = remember(alice, "I live in Rome, near the Colosseum")
    assert (out.action, out.memory.pk) == ("updated", first.pk)
    assert Memory.objects.filter(user=alice).count() == 1


def test_forgetting_after_a_correction_forgets_the_new_value_and_its_history(alice):
    remember(alice, "my order number is A-7781")
    newest = remember(alice, "my order number is actually B-1200").memory
    assert [h.memory.pk for h in search_memories(user=alice, query="my order number")] == [newest.pk]


def test_every_verdict_says_why():
    verdict = compare("I live in Rome", "I moved to Milan")
    assert verdict.relation == "supersedes" and "residence" in verdict.reason
    assert compare("I live in Rome", "I work in Milan").reason.startswith("different subjects")


def test_the_fast_model_is_asked_about_what_the_grammar_leaves_side_by_side(alice, fake_anthropic, settings):

    settings.MEMORY_CONTRADICTION_MODEL = True
    remember(alice, "I live in Rome")
    # The grammar decides: nothing is left to ask, no call.
    assert remember(alice, "I moved to Milan").action == "superseded"
    assert fake_anthropic.message_requests() == []

    old = remember(alice, "I have no children").memory
    fake_anthropic.script(text_reply("[1]"))
    out = remember(alice, "we just had a baby")
    assert out.action == "superseded" and [pk for pk, _, _ in out.superseded] == [old.pk]
    request = fake_anthropic.message_requests()[-1]
    assert request["model"] == settings.FAST_MODEL
    assert "NEW: we just had a baby" in str(request["messages"]) and "1. I have no children" in str(request["messages"])
    # A failing or unreadable model changes nothing: the grammar's verdict stands.
    fake_anthropic.script(*[error_reply(529, "overloaded_error")] * 3)
    assert remember(alice, "my sister is Anna").action == "created"
    fake_anthropic.script(text_reply("I think none of them."))
    assert remember(alice, "my brother is Marco").action == "created"
    assert Memory.objects.filter(user=alice, status="active").count() == 4  # Milan, the baby, Anna, Marco


def test_the_model_is_not_asked_unless_switched_on(alice, fake_anthropic):
    remember(alice, "I have no children")
    assert remember(alice, "we just had a baby").action == "created"
    assert fake_anthropic.message_requests() == []


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("I work at Deloitte as an analyst", "I got a new job at KPMG"),
        ("my girlfriend is Sarah", "Sarah and I broke up last month"),
        ("I drive a 2015 Honda Civic", "I sold my Civic, I take the bus now"),
        ("my son Luca is 7", "Luca turned 8 last week"),
        ("my shoe size is 42", "my shoe size is 43, not 42"),
        ("il mio numero è 333 1234567", "ho cambiato numero: ora è 347 7654321"),
        ("ho una Panda del 2012", "ho venduto la Panda"),
    ],
)
def test_a_change_is_recognised_by_meaning_and_what_happened(alice, old, new):
    first = remember(alice, old).memory
    out = remember(alice, new)
    assert out.action == "superseded", out
    first.refresh_from_db()
    assert (first.content, first.status, first.superseded_by_id) == (old, MemoryStatus.SUPERSEDED, out.memory.pk)
    # Why, in the memory's history: the audit row of the supersession.
    latest = first.history.order_by("-history_id").first()
    assert f"superseded by #{out.memory.pk}" in latest.history_change_reason


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("I work at Deloitte as an analyst", "my wife got a new job at KPMG"),
        ("my girlfriend is Sarah", "Sarah just started a new job"),
        ("I drive a 2015 Honda Civic", "I also have a motorbike"),
        ("my son Luca is 7", "my daughter Anna is 10"),
        ("I live in Rome", "I'm going to Turin for a conference next week"),
        ("lavoro in Fiat come ingegnere", "mio fratello ha trovato lavoro in Ferrari"),
        # Another record, not another value: every identifier differs.
        ("order A-1234 costs €120.50 and arrives by 2026-05-12", "order B-5678 costs €90.00 and arrives by 2026-06-03"),
    ],
)
def test_look_alikes_of_a_change_leave_the_older_memory_alone(alice, old, new):
    remember(alice, old)
    assert remember(alice, new).action == "created"
    assert Memory.objects.filter(user=alice, status="active").count() == 2


def test_a_licence_of_another_class_leaves_the_memory_active_and_its_history_without_a_supersession(alice, bob):
    first = remember(alice, "Ho la patente B").memory
    out = remember(alice, "ho iniziato le guide per la patente A per la moto, l'esame è a novembre")
    assert out.action == "created" and out.memory.pk != first.pk
    first.refresh_from_db()
    assert (first.status, first.superseded_by_id) == (MemoryStatus.ACTIVE, None)
    assert not any("superseded by" in (h.history_change_reason or "") for h in first.history.all())
    # The same licence taken away is a change of it, and its history says by which memory and why.
    licence = remember(bob, "Ho la patente B").memory
    gone = remember(bob, "mi hanno ritirato la patente B per sei mesi, l'avevo presa a 18 anni")
    licence.refresh_from_db()
    assert (gone.action, licence.status, licence.superseded_by_id) == ("superseded", "superseded", gone.memory.pk)
    assert f"superseded by #{gone.memory.pk}" in licence.history.order_by("-history_id").first().history_change_reason


def test_a_friends_own_news_leaves_the_memory_of_the_friend_active(alice):
    friend = remember(alice, "My best friend is Rachel.").memory
    out = remember(alice, "Rachel's just got engaged to her girlfriend! I'm maid of honour")
    friend.refresh_from_db()
    assert (out.action, friend.status, friend.superseded_by_id) == ("created", MemoryStatus.ACTIVE, None)
    assert out.as_tool_result().get("superseded", []) == []


def test_among_many_memories_only_the_changed_one_goes(alice):
    facts = [
        "I live in Leeds",
        "I drive a 2015 Honda Civic",
        "I work at Deloitte as an analyst",
        "my son Luca is 7",
        "I like jazz",
        "my rent is 1200 a month",
    ]
    for fact in facts:
        remember(alice, fact)
    out = remember(alice, "I sold my Civic last week")
    assert [pk for pk, _, _ in out.superseded] == [Memory.objects.get(user=alice, content=facts[1]).pk]
    active = set(Memory.objects.filter(user=alice, status="active").values_list("content", flat=True))
    assert active == {*facts[:1], *facts[2:], "I sold my Civic last week"}


def test_a_change_replaces_a_memory_of_another_kind(alice):
    old = memory_remember(user=alice, content="I drive a 2015 Honda Civic", kind="platform").memory
    out = remember(alice, "I sold my Civic, I take the bus now")
    old.refresh_from_db()
    assert out.action == "superseded" and old.status == MemoryStatus.SUPERSEDED


def test_the_fast_models_verdict_and_reason_go_into_the_history(alice, fake_anthropic, settings):

    settings.MEMORY_CONTRADICTION_MODEL = True
    old = remember(alice, "I have no children").memory
    fake_anthropic.script(text_reply('{"replaced": [1], "reason": "they have a child now"}'))
    out = remember(alice, "we just had a baby")
    assert [(pk, why) for pk, _, why in out.superseded] == [(old.pk, "the fast model: they have a child now")]
    old.refresh_from_db()
    reason = old.history.order_by("-history_id").first().history_change_reason
    assert reason.endswith("the fast model: they have a child now")
    # Its "none" keeps both; a number out of range or not a number is ignored.
    fake_anthropic.script(text_reply('{"replaced": [7, "1", true], "reason": "?"}'))
    assert remember(alice, "our baby is called Mia").action == "created"


def test_the_fast_model_is_not_called_when_no_memory_is_close(alice, fake_anthropic, settings):
    settings.MEMORY_CONTRADICTION_MODEL = True
    assert remember(alice, "I have no children").action == "created"  # nothing to compare with
    assert fake_anthropic.message_requests() == []


def test_a_question_about_what_a_superseded_memory_said_finds_the_one_that_replaced_it(alice, bob):
    remember(alice, "I live in Rome")
    newest = remember(alice, "Remember that I moved from Rome to Turin").memory
    assert [h.memory.pk for h in search_memories(user=alice, query="Where do I live?")] == [newest.pk]
    # Never another person's: bob's question finds nothing of alice's.
    remember(bob, "I like jazz")
    assert all(h.memory.user_id == bob.pk for h in search_memories(user=bob, query="Where do I live?"))


def test_a_fact_restated_many_times_is_recalled_at_its_newest_in_a_few_reads(alice, django_assert_max_num_queries):
    # Every restatement supersedes the one before: a chain of twelve versions, all of
    # which match the question's words. Following it cost a read per version per match.
    versions = [remember(alice, f"my order number is A-{7700 + k}").memory for k in range(12)]
    assert Memory.objects.filter(user=alice, status=MemoryStatus.SUPERSEDED).count() == 11
    with django_assert_max_num_queries(3):
        hits = search_memories(user=alice, query="What was the order number A-7700?")
    assert [h.memory.pk for h in hits] == [versions[-1].pk]


def test_a_fitted_change_score_adds_changes_the_rules_leave_and_says_why():
    """``bench.contradictions.train`` writes such a model (none is shipped); without one the rules decide alone."""
    size = len(FEATURES) + 8  # the features, then the new vector (4) and its difference from the old one (4)
    weights = np.zeros(size)
    weights[len(FEATURES)] = 1.0  # the new vector's first dimension: "reads as a change"
    model = ScoreModel(mean=np.zeros(size), scale=np.ones(size), weights=weights, bias=0.0, threshold=0.5)
    old, new = "I rent an apartment downtown", "We signed the mortgage papers for the house today"
    change, no_change, before = np.array([1.0, 0, 0, 0]), np.zeros(4), np.zeros(4)
    verdict = judge(old, new, closeness=0.85, vector=change, old_vector=before, model=model)
    assert verdict.relation == "supersedes"
    assert "reads as a change" in verdict.reason
    assert judge(old, new, closeness=0.85, vector=no_change, old_vector=before, model=model).relation == "compatible"
    # Far in meaning, or without the old memory's vector: never, whatever the score.
    assert judge(old, new, closeness=0.5, vector=change, old_vector=before, model=model).relation == "compatible"
    assert judge(old, new, closeness=0.85, vector=change, model=model).relation == "compatible"
    # Nor about someone else, nor one more item.
    for other in ("My wife signed the mortgage papers for her office", "We also rent a garage downtown"):
        assert judge(old, other, closeness=0.9, vector=change, old_vector=before, model=model).relation == "compatible"
    # A supersession the rules found stands, whatever the score.
    ruled = ("I drive a 2015 Honda Civic", "I sold my Civic, I take the bus now")
    assert judge(*ruled, closeness=0.9, vector=no_change, old_vector=before, model=model).relation == "supersedes"
    assert judge(*ruled, closeness=0.9).relation == "supersedes"


@pytest.mark.parametrize(
    ("old", "new", "relation"),
    [
        # Someone else: a niece's age is not one's child's.
        ("My daughter is 7", "My niece just turned 9.", "compatible"),
        # One more item: a separate budget sits beside the first.
        ("My travel budget is 300 euros", "there's a separate 200 euro budget for conferences", "compatible"),
        # A year and an age are different kinds of number, not one value replacing the other.
        ("My father retired in 2019", "My father retired at 62.", "compatible"),
        # A wedding to come restates its date; "got married" says it happened.
        ("Our wedding is on 12 September", "We're getting married on the 12th of September.", "compatible"),
        ("Marco and I are engaged", "Marco and I got married in June.", "supersedes"),
        # "too pricey" is not "me too": the membership ended.
        ("I'm a member of the city gym", "Cancelled my city gym membership, way too pricey.", "supersedes"),
        # What happened, in words beyond "changed" and "moved", in either language and register.
        ("I work at Acme as a dispatcher", "handed in my notice at Acme, I start at Globex on Monday", "supersedes"),
        ("ho una Punto grigia", "la punto l'ho rottamata, mo vado in bici", "supersedes"),
        ("The car insurance renews on 14 March", "typo earlier, the insurance renews on the 4th", "supersedes"),
        # No subject before what happened is the speaker's own news, even about a named thing.
        ("My gym is Virgin Active", "switched Virgin Active for PureGym last week", "supersedes"),
        # Someone named after what happened is not who it happened to.
        ("I own a red Vespa", "Sold the Vespa to my cousin last week", "supersedes"),
        # A change denied, a fact said to still hold, a fact set beside another: nothing changed.
        ("I'm vegetarian", "had a bite of turkey at the wedding but I haven't started eating meat", "compatible"),
        ("Yoga is on Wednesday evenings", "they moved pilates to Monday, yoga is still on Wednesday", "compatible"),
        ("La luce è con Enel", "il telefono invece l'abbiamo cambiato, ora siamo con Iliad", "compatible"),
        # A question asks, it says nothing happened; a change said beside a question still counts.
        (
            "My electricity supplier is Octopus",
            "what's actually the difference between octopus agile and mine?",
            "compatible",
        ),
        (
            "My NI number is QQ 12 34 56 C",
            "what is my NI number actually used for? the onboarding form wants it",
            "compatible",
        ),
        ("Il mio operatore è TIM", "sono passato a Iliad, costa meno. come si cambia il nome sulla sim?", "supersedes"),
        # Another number for one occasion is an exception, not a new value.
        ("The café below my office opens at 7", "this week only the café below the office opens at 9", "compatible"),
        # A past habit recalled ("when I used to …", "quando facevo …") is history, not news.
        ("Il mio turno è dalle 14 alle 22", "quando facevo il turno di mattina mi svegliavo alle 4:30", "compatible"),
        (
            "L'utente è cattolico praticante",
            "da ragazzo mi ero avvicinato al buddhismo, poi sono tornato alla fede",
            "compatible",
        ),
        # The same end, or the same number, said again.
        ("Io e Luca ci siamo lasciati", "confermo, con Luca è finita", "compatible"),
        ("Flight BA2490 leaves at 7:15", "yes BA2490 actually leaves at 7:15, I checked the app", "compatible"),
        ("My daughter Mia is 9", "Mia, my nine-year-old, just started piano lessons", "compatible"),
        # "più di" compares ("two years older"), it negates nothing.
        ("Il fratello di Anna, Piero, ha due anni più di lei", "Piero è il fratello maggiore di Anna", "compatible"),
        # One occasion of a routine is an exception; the same words said from when on are a change.
        ("My pottery class is on Mondays", "pottery is cancelled this week, the kiln broke", "compatible"),
        ("My pottery class is on Mondays", "from next week pottery is cancelled, the studio is closing", "supersedes"),
        ("Vado in piscina il venerdì", "la piscina ha chiuso per due settimane, uffa", "compatible"),
        ("Vado in piscina il venerdì", "da gennaio la piscina ha chiuso, vado in palestra", "supersedes"),
        ("I take my pill every morning", "forgot my pill this morning, took it at lunch instead", "compatible"),
        ("I take my pill every morning", "my doctor switched my pill to the evening from today", "supersedes"),
        ("Nuoto in piscina il giovedì", "giovedì prossimo la piscina è chiusa, ci vado venerdì invece", "compatible"),
        ("I take the 8:15 ferry on weekdays", "tmrw im taking the 7am ferry instead, early meeting", "compatible"),
        ("I take the 8:15 ferry on weekdays", "from next week im taking the 7am ferry instead", "supersedes"),
        # Something acquired is one more thing, unless the older statement names it or loses a value to it.
        ("Il mio vicino è il signor Bruni", "il signor Bruni ha preso un cane nuovo, abbaia di notte", "compatible"),
        ("I don't eat gluten", "found a new bakery that does gluten-free bread", "compatible"),
        ("Lavoro in Fiat come ingegnere", "ho trovato un nuovo lavoro in Ferrari", "supersedes"),
        ("I drive a Golf", "got a new car, a Tesla", "supersedes"),
        # A change that nearly happened, a state long past: nothing changed now.
        ("I work at Globex", "I almost quit Globex in the spring, glad I stayed", "compatible"),
        ("My rent is 900 a month", "back in 2018 my rent was 650 a month, those were the days", "compatible"),
        ("My rent is 900 a month", "the landlord raised my rent to 950 from March", "supersedes"),
        # Another of the same kind: "my other brother".
        ("My brother Tom lives in Leeds", "My other brother Sam moved to Bristol", "compatible"),
        # The older fact kept ("still", "sempre") with nothing new of its own: the change is beside it.
        ("Abito a Lecce", "ho cambiato casa, sempre a lecce ma vicino al mare", "compatible"),
        ("Lavoro in Fiat a Torino", "mi hanno trasferito a Modena, sempre in Fiat", "supersedes"),
        # Another of its kind: the thing both name, with another word before it.
        ("I'm a member of the local cycling club", "I left the running club, too many early starts", "compatible"),
        ("I'm a member of the local cycling club", "I left the cycling club, too many early starts", "supersedes"),
        # Said to still hold, with nothing new: a restatement, even where the grammar reads "there" as a value.
        ("I work as a nurse at St Mary's", "yes, still at St Mary's, working as a nurse there", "same"),
        ("Lavoro come cuoco al ristorante Gambero", "sì, sono sempre al Gambero, faccio il cuoco lì", "same"),
        # An offer turned down, a fact kept "for now": nothing changed.
        ("I earn 48,000 euros a year", "a recruiter offered me 60k but I turned it down, I like my team", "compatible"),
        (
            "Lavoro come ingegnere in Leonardo",
            "si parla di un mio trasferimento a Torino, ma per ora resto nella sede di Roma di Leonardo",
            "compatible",
        ),
        ("Vado in ufficio in bici", "mi hanno rubato la bici, per ora vado a piedi", "supersedes"),
        ("My son Luca is 7", "Luca turned 8 last week", "supersedes"),
        # The older statement's own number denied and another given: a correction, with no word in common too.
        ("User's shoe size is 42 EU", "scratch that, it's 43 not 42", "supersedes"),
        ("My follow-up scan is on 12 November", "I read it wrong, the scan is on the 21st, not the 12th", "supersedes"),
        ("I'm 42", "my wife is 43, not 42, she keeps reminding me", "compatible"),
        # "di nuovo" is "again", not "new".
        ("Il mio gatto si chiama Pepe", "il mio gatto Pepe ha di nuovo rovesciato il vaso", "compatible"),
        # The older state said to come back after a detour: an exception, not a change.
        ("I drink my coffee black", "had a latte today as a treat, back to my usual tomorrow", "compatible"),
        (
            "I work at the Leeds office",
            "they're sending me to the Madrid office for a month, then I come back to Leeds",
            "compatible",
        ),
        (
            "Lavoro dalle 9 alle 17",
            "stasera resto fino alle 20 per la chiusura, da domani torno al solito orario",
            "compatible",
        ),
        ("I work at Acme", "I went back to my old job at Globex", "supersedes"),
        ("Our opening hours are 7 till 3", "we are cutting back to 7 till 2, nobody comes in after 2", "supersedes"),
        # A change supposed ("if"), or denied without its apostrophe, did not happen.
        ("Il corso di yoga è il lunedì alle 18", "se spostano yoga al martedì devo rinunciare", "compatible"),
        (
            "Il corso di yoga è il lunedì alle 18",
            "la palestra ha chiamato, lo yoga lo spostano al martedì",
            "supersedes",
        ),
        (
            "I take ibuprofen when I have a migraine",
            "the doctor wants me on topiramate for the migraines, havent started it yet",
            "compatible",
        ),
        # "not X but" corrects only what the older statement said.
        ("I quit smoking last year", "craving a cigarette so bad, not gonna, but ugh", "compatible"),
        # A dose upped; the differing digits of a number denied; the extra days a change brings are no extra item.
        ("My daily calorie target is 1,800 kcal", "my dietitian upped me to 2,000 kcal a day", "supersedes"),
        ("The pharmacy number is 555-0142", "sorry, I read it wrong, it's 555-0143. Not 42.", "supersedes"),
        ("My exam is on October 3", "they moved the exam to October 6, so 3 extra days to study", "supersedes"),
        # A present cue after a span of time says how long the fact has held; without one it is news.
        ("The user lives in Leeds.", "yeah im based in leeds, been here a while now", "compatible"),
        ("Lavoro in Ducati in verniciatura.", "sono in ducati alla verniciatura da anni ormai", "compatible"),
        ("I lift weights four times a week.", "lifting 5x a week now, been consistent for months", "supersedes"),
        # "Dad" is "my father", "mamma" one of "i genitori": their news is the older fact's, not someone else's.
        ("My father lives alone in Rovigo.", "Dad moved in with us in January", "supersedes"),
        ("I genitori dell'utente vivono a Napoli.", "mamma e papà si sono trasferiti a Salerno", "supersedes"),
        ("My father lives alone in Rovigo.", "my brother moved in with us in January", "compatible"),
        # Another class letter after the thing both name is another of its kind; a letter that is a
        # preposition before a number ("la patente a 18 anni") or none at all leaves the change.
        ("Ho la patente B", "ho iniziato le guide per la patente a per la moto l'esame è a novembre", "compatible"),
        ("Ho la patente B", "mi hanno ritirato la patente B, l'avevo presa a 18 anni", "supersedes"),
        ("Ho l'assemblea dei genitori a scuola il 3 febbraio.", "l'assemblea dei genitori è annullata", "supersedes"),
        # "oltre alle lezioni" is "oltre a" with its article: one more thing beside the older one.
        ("La tutor di spagnolo è Lucía.", "Oltre alle lezioni con Lucía ho iniziato il tandem", "compatible"),
        ("La tutor di spagnolo è Lucía.", "Ho cambiato tutor di spagnolo, ora è Marta", "supersedes"),
        # A friend's, an ex's own news leaves the relation; the relation ended, or a role's holder gone, do not.
        ("My best friend is Rachel.", "Rachel just got engaged! I'm maid of honour", "compatible"),
        ("La mia migliore amica è Giulia.", "giulia si è trasferita a milano, ci sentiamo ogni giorno", "compatible"),
        ("My best friend is Tom.", "Tom and I fell out for good, we're not friends any more", "supersedes"),
        ("My manager is Greg.", "Greg left in the reorg and my new boss is Ana", "supersedes"),
        ("Mia sorella Marta vive a Torino.", "ho aiutato marta a traslocare, torino ormai è un ricordo", "supersedes"),
        # A place closed for a time, a person who comes back: a while away, not an end; an end said as one is.
        ("My GP is Dr Ward.", "Dr Ward was closed on Friday so I saw the locum at the walk-in", "compatible"),
        ("My GP is Dr Ward.", "Dr Ward closed his practice for good, my new GP is Dr Hale", "supersedes"),
        ("My hairdresser is Mia at Studio 5.", "for now Jo does my hair, but Mia comes back in May", "compatible"),
        (
            "La palestra dell'utente è il Palazzetto.",
            "il Palazzetto è chiuso per lavori, vado alla Cozzi",
            "compatible",
        ),
        # A word of the older statement denied right after the value that replaces it.
        ("La visita dell'utente è a marzo.", "scusa, la visita è ad aprile, non marzo", "supersedes"),
        ("I take two sugars in my tea.", "sorry, it's one sugar, not two", "supersedes"),
        ("I take my tea black.", "black tea, no sugar, no milk, same as ever", "compatible"),
        # Proposed, wished, not signed: nothing happened yet.
        (
            "Il negozio è in via Roma 3.",
            "mi hanno proposto un locale nuovo in via Po, ne stiamo parlando",
            "compatible",
        ),
        (
            "Our office is at 12 Mill Lane.",
            "the landlord suggested that we move to Dock Street now",
            "compatible",
        ),
        ("Our office is at 12 Mill Lane.", "we moved the office to the new block on Dock Street", "supersedes"),
    ],
)
def test_the_change_test_reads_what_happened_and_to_whom(old, new, relation):
    assert judge(old, new, closeness=0.9).relation == relation


def test_a_change_is_applied_only_to_the_memory_the_statement_is_most_about():
    """ "I moved to Lecce" restates the nearest memory; a farther one, with nothing in common, stays."""
    candidates = [(1, "I live in Lecce", 0.95), (2, "I work at Acme", 0.85)]
    assert [(pk, v.relation) for pk, v in choose("I moved to Lecce", candidates)] == [(1, "same")]
    # A word only one of the person's memories names ("Bari") outweighs a little more closeness.
    candidates = [
        (1, "I go to the gym on Mondays", 0.90),
        (2, "I live in Bari", 0.88),
        (3, "My sister is a nurse", 0.82),
        (4, "I drive a Fiat Panda", 0.83),
        (5, "I work at Acme as an engineer", 0.84),
        (6, "I'm allergic to cats", 0.81),
    ]
    picked = choose("moved to Lecce in September, couldn't stand Bari any longer", candidates)
    assert [(pk, v.relation) for pk, v in picked] == [(2, "supersedes")]


def test_a_change_word_about_something_else_leaves_the_nearest_memory_alone():
    """ "my gran started him" is about the sourdough starter, which it restates; the bakery,
    nearest in meaning, passes the change test on "started" alone and must stay (a replayed
    chat superseded it)."""
    candidates = [
        (1, "I run a little bakery called Crumb & Co.", 0.87),
        (2, "My sourdough starter is twelve years old", 0.86),
        (3, "I live in Leeds", 0.80),
    ]
    new = "my sourdough starter is twelve years old, my gran started him"
    assert judge(candidates[0][1], new, closeness=0.87).relation == "supersedes"
    assert [(pk, v.relation) for pk, v in choose(new, candidates)] == [(2, "same")]


def test_a_memory_sharing_no_word_is_changed_only_when_clearly_the_nearest():
    """ "sold the car" names no word of "I drive a Honda Civic": it may change it when that memory is
    clearly the nearest in meaning, not when another is about as near (the change may be about
    something the person never said)."""
    new = "sold the car last week, finally"
    clearly = [(1, "I drive a 2015 Honda Civic", 0.89), (2, "I live in Leeds", 0.83), (3, "I like jazz", 0.80)]
    assert [(pk, v.relation) for pk, v in choose(new, clearly)] == [(1, "supersedes")]
    unclear = [(1, "I drive a 2015 Honda Civic", 0.835), (2, "I live in Leeds", 0.83), (3, "I like jazz", 0.80)]
    assert choose(new, unclear) == []


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("The user's vet is Dr. Conti.", "Dr Conti was closed on Sunday night so we went to the emergency vet"),
        (
            "The shop closes at 5:30 on Saturdays.",
            "the board says saturday closing is half five as usual, someone thought we'd changed it",
        ),
        ("La bottega è in via Garibaldi 12.", "mi hanno proposto un locale nuovo in via Po, ne stiamo parlando"),
    ],
)
def test_a_while_away_as_usual_or_only_proposed_leaves_the_memory_active(alice, old, new):
    first = remember(alice, old).memory
    assert remember(alice, new).action != "superseded"
    first.refresh_from_db()
    assert first.status == MemoryStatus.ACTIVE


def test_a_value_corrected_with_not_retires_the_older_memory(alice):
    first = remember(alice, "L'assicurazione della mia macchina scade a febbraio.").memory
    out = remember(alice, "scusa, l'assicurazione della macchina scade ad aprile, non febbraio")
    assert out.action == "superseded"
    first.refresh_from_db()
    assert (first.status, first.superseded_by_id) == (MemoryStatus.SUPERSEDED, out.memory.pk)
