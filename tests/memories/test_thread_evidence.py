"""A correction said in the conversation a memory came from replaces it (``memories.thread_evidence``)."""

from __future__ import annotations

import pytest

from memories.models import MemoryStatus
from memories.services import MemoryWriteRefused, memory_remember
from memories.thread_evidence import SAID_HERE, corrected_text, corrects
from tests.factories import ThreadFactory

CORRECTIONS = [
    ("My bib number came through, 41772.", "wait no, misread the email. it's 41782"),
    ("My current marathon PB is 3:22:47 from Manchester", "wait no, just checked strava, it was 3:22:41 not 47"),
    ("Plate FG 482 KL, the Audi A4.", "small thing, I gave you the wrong plate before. it's FG 483 KL, not 482"),
    ("Guest list is at 110 and Luca's mum keeps adding cousins", "update: guests are now at 118. Patrizia again"),
    ("my locker code at work is 2271", "lol they reset all the lockers, mines 2217 now. same numbers just shuffled"),
    (
        "La mia coinquilina si chiama Marta, fa medicina",
        "cambio coinquilina: Marta si è trasferita a Padova, da settembre con me c'è Sara",
    ),
    (  # the name said with its possessive, the value a sentence later
        "Our granddaughter Chloe is turning eight on the 4th of June and she is mad about horses",
        "Dear, I told you wrong about Chloe's birthday. It's the 14th of June, not the 4th.",
    ),
    (  # a thing moved to its new value
        "the fire inspection is April 3 at 2pm, I have to clear out the back corridor",
        "Fire marshal's office called, they're moving my inspection to April 10 at 2pm.",
    ),
    # "another" after the new value is about something else
    (
        "Econometrics exam is on 12 May, and I'm already panicking",
        "Exam got moved to 15 May, clash with another course",
    ),
]

NOT_CORRECTIONS = [
    ("my locker code at work is 2718", "my sister's locker code is 5521 now"),  # someone else's
    ("I have the dentist Thursday 14 November at 8:30am", "should I move the dentist to Friday?"),  # asked
    ("My gym is PureGym on Hill Street", "I also joined a new gym, Anytime Fitness"),  # one more
    ("lockbox code for the builders is 2719", "building update, brightline actually turned up at 8"),  # a time
    (  # another one's day: "Matilde" is not "Andrea"
        "Mio figlio Andrea sta a Torino e mi telefona sempre la domenica dopo cena",
        "Matilde compie gli anni il 3 maggio, la telefonata l'ho fatta il giorno dopo",
    ),
    ("My bib number came through, 41772.", "the race starts at 9, bib pickup is on Friday"),  # no correction said
    (  # how things were
        "il sabato mi hanno messo fisso 14-22 in negozio",
        "meglio cmq xké il martedì sera ero sempre morto dal negozio",
    ),
    ("Econometrics exam is on 12 May", "I moved my other exam to 15 May"),
    (
        "the fire inspection is April 3 at 2pm",
        "should I ask them about moving the inspection to April 10?",
    ),  # asked  # one more: "other" before the value
    (  # a count in words is no thing both are about
        "mia moglie Bonaria dice che parlo troppo col telefono e sono tipo cinque minuti",
        "e poi il piccolo Matteo che ha cinque anni ed è un terremoto cioè non sta fermo un secondo",
    ),
]


@pytest.mark.parametrize(("old", "new"), CORRECTIONS)
def test_a_correction_with_a_value_of_the_kind_the_memory_holds_replaces_it(old, new):
    assert (corrects(old, new) or "").startswith(SAID_HERE)


@pytest.mark.parametrize(("old", "new"), NOT_CORRECTIONS)
def test_what_is_asked_another_ones_or_no_correction_replaces_nothing(old, new):
    assert corrects(old, new) is None


def test_the_memory_is_put_right_in_its_own_words():
    assert corrected_text("My bib number came through, 41772.", "wait no, misread the email. it's 41782") == (
        "My bib number came through, 41782."
    )
    assert corrected_text("Plate FG 482 KL, the Audi A4.", "it's FG 483 KL, not 482") == "Plate FG 483 KL, the Audi A4."
    # Two values changed: which goes where is not said, so the correction is kept as said.
    assert corrected_text("Dentist at 9:15 on 3 May", "moved: 10:30 on 5 May") is None
    # A change is news, kept as the person said it; only a mistake is put right in the memory's words.
    assert corrected_text("Econometrics exam is on 12 May", "Exam got moved to 15 May") is None


@pytest.mark.django_db
def test_a_correction_in_the_same_conversation_supersedes_and_says_why(alice):
    thread = ThreadFactory(owner=alice)
    old = memory_remember(user=alice, content="My bib number came through, 41772.", source_thread=thread).memory
    outcome = memory_remember(
        user=alice, content="wait no, misread the email. it's 41782", source_thread=thread, only_if_it_corrects=True
    )
    old.refresh_from_db()
    assert outcome.action == "superseded" and old.status == MemoryStatus.SUPERSEDED
    assert old.superseded_by == outcome.memory and outcome.memory.content == "My bib number came through, 41782."
    assert SAID_HERE in old.history.first().history_change_reason


@pytest.mark.django_db
def test_the_same_words_in_another_conversation_replace_nothing(alice):
    memory_remember(user=alice, content="My bib number came through, 41772.", source_thread=ThreadFactory(owner=alice))
    with pytest.raises(MemoryWriteRefused):
        memory_remember(
            user=alice,
            content="wait no, misread the email. it's 41782",
            source_thread=ThreadFactory(owner=alice),
            only_if_it_corrects=True,
        )
    assert alice.memories.get().status == MemoryStatus.ACTIVE
