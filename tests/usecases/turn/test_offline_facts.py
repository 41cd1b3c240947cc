"""Which sentences the offline model keeps as a stable personal fact, in any phrasing people type.

Sentences in the shape of the product-chat writers' (lower case, no apostrophes, the subject
dropped, English and Italian); the detector is a plain function, so no database is needed.
"""

import pytest

from conversations.facts import has_date
from usecases.turn.offline_facts import stable_fact, stated_change

KEPT = [
    # A day and a clock time together: on the person's calendar, whatever the thing is called.
    "maisie's parents evening is thursday 14th nov at 4:40, jess is on a late so its me",
    "mi sono iscritta al corso di tedesco del CLA, il martedì alle 18. per l'erasmus magari serve",
    "second dress fitting in Bristol on 14 June at 10am",
    # A day that comes back every week, in the person's own week.
    "and i drive for the hospital transport charity on wednesdays, taking people to appointments",
    "were closed mondays, its my only proper day off",
    # A thing's value said plainly.
    "rent is 4900 nok a month for a tiny room, thats like a whole salary back home lol",
    "my rota is 3 on 4 off which sounds great till u actually do it",
    "guest list is at 110 right now and Luca's mum keeps adding cousins",
    # A job, a home town, a rate, the household's count, a thing named by its make, a home without its "I".
    "work is mad as well, im a quantity surveyor and weve got 3 jobs finishing at once",
    "I'm a freelance translator, mostly Portuguese and Spanish into English",
    "im from cebu originally so the cold here is actually killing me",
    "sì perché sono di Lecce e a natale torno giù",
    "new client asked for my rate, I charge 280 euro/hour for corporate work",
    "dividiamo l'appartamento, io pago 430 euro al mese spese escluse",
    "we have three chooks, named after spice girls because isla got to pick",
    "Noi abbiamo 12 ettari in tutto, la maggior parte a ulivi, il resto è vigna.",
    "In montagna poi ci vado con la mia Subaru Forester, che ha quindici anni",
    "live in sheffield so its always grey anyway",
    # Where the person works, with a word between; a job taken; a medicine by its dose; an address.
    "I work nights on the cardiac step-down unit at St. Brendan's, been there about six years now",
    "lavoro part time al Bar Otello vicino a piazza Maggiore, da un anno ormai",
    "quit the cafe lol. got a job as a lab assistant at the institute instead, same hours better pay",
    "per la pressione prendo il Ramipril da 5, una pastiglia la mattina",
    "been on amlodipine 5mg for blood pressure since christmas",
    "sto in via Belzoni 60, vicinissimo a ingegneria",
    "found a place at 27 Cardigan Road, like 10 mins away, no damp",
    "We're out in Little Hadham, so it's a good bit colder than town in the mornings.",
    "abitiamo al Vomero, vicino piazza Vanvitelli, casa piccola per cinque persone",
    # An invoice, a callsign, a code said with "its" as people type it.
    "and I STILL haven't been paid for phase one. invoice INV-2291, sent 40 days ago",
    "northpoint hasn't paid invoice np-2291 and its been 40 days",
    "i do ham radio as well, callsign G4XKM, licensed since 1981",
    "changed the bike lock code cause jonas knows it lol, its 7730 now",
    # Italian names the person's own with an article ("la pediatra, la dottoressa Lanzoni"); a title's
    # full stop after an apostrophe ("l'ing.") does not end the sentence.
    "La pediatra, la dottoressa Lanzoni, dice che forse migliora col tempo",
    "il padrone di casa, il sig. Benassi, ancora nn ci ha sistemato la caldaia",
    "la mia responsabile è l'ing. Ilaria Conti, scrivile due righe",
    "Il mio cardiologo e' il dottor Santoro, all'ospedale di Imola",
    "la pediatra nostra è la dottoressa Esposito, bravissima ma sempre pienissima",
    # A name in lower case after "called", who someone is after the name, a condition, something booked
    # with its date, a plate in groups.
    "the cat is sat on my chest, pickle shes called, shes a menace",
    "Francesca is my secretary btw, she runs my diary.",
    "also health thing, im hypothyroid and take levothyroxine every morning",
    "Mi devo regolare anche col mangiare, che ho il diabete di tipo 2.",
    "Ho prenotato al frantoio per la molitura l'8 novembre, la mattina presto.",
    "got an Area C fine?? plate FG 482 KL, the Audi A4.",
    "il Fiat Fullback targato EX 219 RT, scade a fine mese",
    # Italian appointments by their name: a doctor named with a day, a car's service, an exam session.
    "tra l'altro martedì lo porto dal dottor Bellini per il vaccino",
    "la Panda ha il tagliando il 22 maggio, l'anno scorso me lo sono scordato",
    # A pet's kind after its name, a place the person has, a named child's age.
    "Devo uscire con Briciola tra poco, e' una bastardina di 9 anni",
    "I have an allotment down the lane, plot 14, and the slugs are already out in force.",
    "Abbiamo un monolocale a Rimini, a Marina Centro, che affittiamo a settimane d'estate",
    "Antonio ha 8 anni, fa la terza elementare e non sta fermo un secondo",
    # Whom or what the person chose for a job.
    "we hired reyes & sons, the quote was mid but they had the best reviews",
    "roof update, got 2 more quotes. went with ridgeline roofing, $12,800",
    "Alla fine ho mollato Trados e sono passata a memoQ: la licenza costa meno",
    # "lavoro" the verb, after the words that open a clause.
    "oggi a Bologna ci sono 34 gradi e l'aria condizionata in ufficio è rotta, quindi lavoro da casa",
]

NOT_KEPT = [
    # A work meeting or a deadline is the job's calendar, not the person's.
    "la Galli ha spostato la riunione: ora è giovedì alle 11",
    "the budget deadline is 14 March, no extensions",
    # "lavoro" the noun: the work of someone else, or work in general.
    "Samuele si è laureato! Ha trovato lavoro a Genova in un cantiere navale",
    "Il coworking mi salva dalla solitudine del lavoro da casa, anche se il caffè è imbevibile.",
    # "moved in" names no place; a bare number is no date; a place in a queue is no identifier.
    "I can't bring myself to cut back that apple tree though, it was there when we moved in.",
    "ESAME PASSATOOOO 28!! 🎉🎉",
    "sitting at the dmv renewing my license, number 62 and theyre on 41",
    # A hope, a generalisation, a percentage: opinions.
    "Speriamo che venga anche Walter, il nostro presidente, che a gennaio ha messo il pacemaker",
    "anyone who schedules 8am anything on a saturday is a villain",
    "LinkedIn is 90% noise and 10% people announcing they're humbled",
    "the library at 11pm is the most chaotic place on earth during exam season",
    # A change in someone else's life; "now" alone says when, not that a value changed.
    "My friend June from the book club is having her knee replaced on 3 November in Perugia",
    "Just off a 12 hour night shift and of course now I cant sleep",
    "my colleague jess got engaged last night on shift, her fella turned up with flowers at 3am",
    # Someone beyond the household named just before the naming.
    "I nomi di adesso sono strani, uno dei nipoti si chiama Kevin",
    # A title with no role before it says nobody's own; a friend's doctor is the friend's; a dose in a
    # conversion has no time of day; a task's expiry date is the task's.
    "adesso è la dottoressa Marchi, vediamo",
    "la mia amica Carla dice che il suo medico è il dottor Ruggeri",
    "converti 0,25 mg in microgrammi per favore",
    "write a reminder that the voucher expires on 14 June",
    "the second year module is the worst one",
    "im doing nothing at the moment honestly",
    # A weekday in an opinion about others, counts of time, a task named by its noun.
    "she cooks paella on sundays, jackpot",
    "we have two days left before the move",
    "It's my turn to cook tonight",
    "she called me back this morning",
    "she loved it, asleep in 5 min. youre hired",
    "I went with my mum to the market",
    "mail di benvenuto per due neoassunti, lunedì primo giorno, ritrovo alle 7:30 in guardiola",
]


# Who someone is by their title, a medicine by its dose and time, a document that expires or renews on a
# date, an allergy by the name of whom it is, a job without its article, a home town after a name: said
# in passing, inside a request or beside a question too.
KEPT_TOO = [
    "il dentista dei bambini è la dottoressa Ferlito, quella in piazza",
    "l'amministratore del palazzo è il ragionier Crisafulli, mai una risposta",
    "our vet here is Dottoressa Bassi, she's lovely with the cat",
    "my thesis supervisor is Prof Adeyemi, he wants chapter two by friday",
    "sometimes late for the 8am, I take lisinopril 10mg in the morning",
    "mia madre prende il Coumadin da 5 due volte al giorno",
    "la carta d'identità mi scade il 3 ottobre, devo rifarla",
    "the car insurance renews on 9 March and they've put it up again",
    "Ollie is allergic to sesame, write a note for the party host",
    "I'm office manager at a dental practice, so admin is my life",
    "sono logopedista, lavoro con i bambini piccoli",
    "I'm Dana, originally from Cork, been here ten years",
    "my physio for the knee thing is Gavin, he's brutal",
    "final year law, so the library is basically my flat",
    "im Priya, 3rd year medicine at bristol",
    "I'm a history major and minoring in french",
    "sono al terzo anno di Lettere a Pavia",
    "we've got a rabbit, Clover, who hates the hoover",
    "abbiamo anche una cagnolina, Nuvola, che abbaia a tutti",
]


# A thing's new value said as a change, whoever made it: no fact on its own, kept only when it
# retires an older value (``memories.services.memory_remember``).
CHANGES = [
    "padel moved to Wednesday, same time, one of the guys has kids stuff on Thursdays now",
    "ODDIO hanno spostato statistica. non è più il 14, ora è il 17 giugno, stessa aula e stesso orario",
    "changing things up, from next week were shut tuesdays instead. mondays are actually busy",
    "dinner plan changed btw, they couldn't fit 8 of us on saturday so it's now Sunday at 6",
]


@pytest.mark.parametrize("text", KEPT)
def test_a_stable_fact_said_plainly_is_kept(text):
    assert stable_fact(text) is not None and stated_change(text) is None


@pytest.mark.parametrize("text", KEPT_TOO)
def test_a_role_by_title_a_dose_an_expiry_an_allergy_a_bare_job_are_kept(text):
    assert stable_fact(text) is not None


def test_the_memory_keeps_the_name_and_the_value_said():
    assert stable_fact("la pediatra è la dottoressa Lo Presti, riceve solo il martedì") == (
        "La pediatra è la dottoressa Lo Presti, riceve solo il martedì"
    )
    assert "10mg in the morning" in (stable_fact("the new one is ramipril 10mg in the morning") or "")


@pytest.mark.parametrize("text", CHANGES)
def test_a_change_is_no_fact_on_its_own_but_is_offered_as_a_change(text):
    assert stable_fact(text) is None and stated_change(text) is not None


@pytest.mark.parametrize("text", NOT_KEPT)
def test_what_is_not_the_persons_lasting_fact_is_not_kept(text):
    assert stable_fact(text) is None and stated_change(text) is None


def test_a_date_is_a_calendar_date_not_any_number():
    assert has_date("dec 12 at 7pm") and has_date("il 14 giugno") and has_date("14/03/2026")
    assert not has_date("ESAME 28") and not has_date("invoice 2291")


def test_who_someone_is_said_after_their_name_keeps_the_name():
    stored = stable_fact("Tomás just got home with takeaway, I'm done for the day. he's my partner, he's from Porto")
    assert stored is not None and "Tomás" in stored and "my partner" in stored
    assert stable_fact("Ray's my husband, we've been married 41 years this June.") is not None


def test_a_pets_kind_said_after_its_name_keeps_the_name():
    assert stable_fact("brb Biscuit needs a wee. he's a beagle and he has opinions") == (
        "Brb Biscuit needs a wee. he's a beagle and he has opinions"
    )


# Said beside a fact but no fact of the person's own: a number a question works with, a question's
# detail, how the person came to the chat, a plan said first, a memory of a habit long past.
NOT_STORED_ALONGSIDE = [
    "the essay is 3,200 words, how long will it take to proofread?",
    "if the hire is £90, what does that leave each of us for petrol",
    "se il noleggio costa 160 euro, quanto resta a testa?",
    "How do I get Milo to stop barking at the post? He's six, so maybe he's set in his ways.",
    "Good morning. My nephew's wife set this up for me on the tablet.",
    "Hello. My daughter Anne has put this on my phone and says I can ask it anything.",
    "My son Peter suggested I try one of these AI assistants. I'm not much of a typist.",
    "mio nipote Luca mi ha installato questa app sul telefono",
    "will call the garage tomorrow",
    "I'll ask him if he can swap to Fridays.",
    "Our son Mark would only eat toast when he was small.",
    "The pharmacy wants my NHS number again and I've left the letter at home. What is it?",
    "In farmacia mi chiedono il numero della mia tessera sanitaria. Qual è?",
    "When the kids were young we went to Whitby every August and Jim would build sandcastles.",
]
# The same shapes holding the person's fact stay stored.
STILL_STORED = [
    "My daughter Karen helps me with most things but she works full time so I thought I would try this",
    "my partner Dev does most of the cooking, so meal ideas need to be stuff he'd actually make",
    "I'll drive to the airport, the parking site wants the car reg: LK19 XFD",
    "I can't eat eggs, what cake can I bake for Sunday?",
    "Mio fratello Davide ha 17 anni e mi ha scritto per chiedermi se ingegneria è difficile",
]


@pytest.mark.parametrize("text", NOT_STORED_ALONGSIDE)
def test_a_premise_a_detail_the_chat_itself_a_plan_or_a_memory_is_not_stored(text):
    assert stable_fact(text) is None and stated_change(text) is None


@pytest.mark.parametrize("text", STILL_STORED)
def test_a_fact_beside_them_is_still_stored(text):
    assert stable_fact(text) is not None


def test_a_premise_is_left_out_of_the_memory():
    assert stable_fact("il mio numero cliente è PF-3308, se te lo chiedo") == "Il mio numero cliente è PF-3308"


# Whose fact it is: someone beyond the household (an aunt, a mate, a colleague), something seen, not had;
# a count of belongings for a laugh; a size given to work something out with.
NOT_THE_PERSONS = [
    "zio Franco è allergico ai crostacei, lo dico al catering",
    "Aunt Maggie is allergic to shellfish, worth telling the caterer",
    "one of the nurses is allergic to latex so we switched gloves",
    "a colleague's birthday is on 3 May, we're doing a card",
    "big news, my mate Rob is moving to Leeds",
    "There's a spaniel called Toby at the shelter who keeps looking at me.",
    "c'è un gatto che si chiama Fuffi nel cortile, tutti gli danno da mangiare",
    "I own so many mugs it's embarrassing.",
    "Washed every towel I own.",
    "The wall is 4 metres long and I need tiles for it.",
    "the shelf is 90 cm wide, how many boxes fit?",
    "my terrible French got me through the market",
]
# The person's own fact in the same shapes.
THE_PERSONS = [
    "sono allergica ai crostacei, quindi niente gamberi",
    "my sister Anna is allergic to shellfish",
    "Also there's Toby, our rescue dog from the shelter, absolutely daft",
    "I own a small bakery on the high street",
    "the rent is 950 a month",
    "a customer asked if we do gluten free and I realised I'm coeliac myself and never said",
]


@pytest.mark.parametrize("text", NOT_THE_PERSONS)
def test_someone_elses_fact_a_thing_seen_a_joke_count_or_a_size_is_not_stored(text):
    assert stable_fact(text) is None


@pytest.mark.parametrize("text", THE_PERSONS)
def test_the_persons_own_fact_in_those_shapes_is_stored(text):
    assert stable_fact(text) is not None
