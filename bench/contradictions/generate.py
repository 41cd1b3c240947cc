"""Pairs generated from templates with varied slots (English and Italian), seeded.

Each family is one kind of fact (where one lives, employer, manager, diet, a favourite,
an identifier, likes, relatives, counts). An *old* template states it; *new* templates
replace it (another value, a negation, a correction word), sit beside it (another
subject, a relative's fact, a second value of a slot that holds several) or restate it.
Wording varies: first or third person, fillers, correction words in several places.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

S, C, SAME = "supersedes", "compatible", "same"


@dataclass(frozen=True)
class Family:
    name: str
    lang: str
    old: tuple[str, ...]
    supersedes: tuple[str, ...]
    compatible: tuple[str, ...]
    same: tuple[str, ...]
    values: tuple[str, ...]


CITIES = ("Rome", "Milan", "Turin", "Naples", "Bologna", "Florence", "Berlin", "Paris", "Lisbon", "Vienna", "Genoa")
CITTA = ("Roma", "Milano", "Torino", "Napoli", "Bologna", "Firenze", "Berlino", "Parigi", "Lisbona", "Genova", "Bari")
ORGS = ("Acme", "Globex", "Initech", "Fiat", "Enel", "Luxottica", "Barilla", "Pirelli", "Umbrella Ltd", "Vodafone")
PEOPLE = ("Paolo Rossi", "Giulia Neri", "Marco Bianchi", "Sara Conti", "Luca Ferri", "Anna Greco", "Tom Baker")
NAMES = ("Anna", "Marco", "Chiara", "Luca", "Sofia", "Matteo", "Elena", "Davide", "Giorgia", "Pietro")
IDS = ("A-7781", "B-1200", "C-5521", "ZX-9034", "Q-3310", "INV-2207", "K-4410", "P-0815")
FOODS = ("coffee", "tea", "sushi", "pizza", "jazz", "hiking", "chess", "red wine", "dark chocolate", "cycling")
CIBI = ("il caffè", "il tè", "il sushi", "la pizza", "il jazz", "il trekking", "gli scacchi", "il vino rosso")
FAV_EN = (
    ("colour", ("blue", "green", "red", "yellow")),
    ("film", ("Alien", "Amarcord", "Heat", "Up")),
    ("food", ("pizza", "ramen", "lasagne", "tacos")),
    ("book", ("Dune", "Emma", "Ulysses", "Persuasion")),
)
FAV_IT = (
    ("colore", ("il blu", "il verde", "il rosso", "il giallo")),
    ("film", ("Amarcord", "Il Postino", "Nuovo Cinema Paradiso")),
    ("piatto", ("la carbonara", "la lasagna", "il risotto", "la pizza")),
    ("libro", ("Il Gattopardo", "Se questo è un uomo", "Le città invisibili")),
)
DIETS_EN = ("vegetarian", "vegan", "pescatarian")
DIETS_IT = ("vegetariano", "vegano", "pescetariano", "onnivoro")
JOBS_EN = ("teacher", "nurse", "software engineer", "lawyer", "student", "chef")
JOBS_IT = ("insegnante", "infermiera", "ingegnere", "avvocato", "studente", "cuoco")
ID_KINDS_EN = ("order number", "booking reference", "ticket number", "customer ID", "tracking number")
ID_KINDS_IT = ("numero d'ordine", "codice cliente", "numero di pratica", "codice di prenotazione")

FAMILIES = [
    Family(
        "residence",
        "en",
        old=("I live in {a}", "I'm based in {a}", "The user lives in {a}", "btw I live in {a}"),
        supersedes=(
            "I moved to {b}",
            "I've moved to {b}",
            "I live in {b} now",
            "Actually I live in {b}",
            "I don't live in {a} any more",
            "I relocated to {b} last month",
            "The user moved to {b}",
            "I no longer live in {a}",
            "I now live in {b}",
        ),
        compatible=(
            "I work in {b}",
            "my sister lives in {b}",
            "I was born in {b}",
            "I'm from {b}",
            "my office is in {b}",
            "I'd like to visit {b}",
        ),
        same=("I live in {a}", "I still live in {a}", "The user lives in {a}"),
        values=CITIES,
    ),
    Family(
        "employer",
        "en",
        old=("I work at {a}", "I work for {a}", "The user works at {a}"),
        supersedes=(
            "I now work at {b}",
            "I joined {b}",
            "I work for {b} now",
            "I don't work at {a} any more",
            "actually I work for {b}",
            "I got a job at {b}",
            "The user now works for {b}",
        ),
        compatible=("my sister works at {b}", "I work as a {job}", "I live in {city}", "I bank with {b}"),
        same=("I work at {a}", "I still work for {a}"),
        values=ORGS,
    ),
    Family(
        "manager",
        "en",
        old=("my manager is {a}", "my boss is {a}", "The user's manager is {a}"),
        supersedes=(
            "my new manager is {b}",
            "my manager is now {b}",
            "{b} is my manager now",
            "actually my boss is {b}",
            "my boss is {b}",
            "The user's new manager is {b}",
        ),
        compatible=("my brother is {b}", "my dentist is {b}", "my best friend is {b}", "my neighbour is {b}"),
        same=("my manager is {a}", "my boss is still {a}"),
        values=PEOPLE,
    ),
    Family(
        "diet",
        "en",
        old=("I am {a}", "I'm {a}", "The user is {a}"),
        supersedes=(
            "I am no longer {a}",
            "I'm not {a} any more",
            "I'm {b} now",
            "The user is no longer {a}",
            "actually I'm {b}",
        ),
        compatible=("I like {food}", "I'm allergic to peanuts", "I'm a {job}", "I live in {city}"),
        same=("I am {a}", "I'm still {a}"),
        values=DIETS_EN,
    ),
    Family(
        "identifier",
        "en",
        old=("my {k} is {a}", "The user's {k} is {a}"),
        supersedes=(
            "my {k} is actually {b}",
            "my {k} is {b}",
            "my {k} changed to {b}",
            "my new {k} is {b}",
            "sorry, my {k} is {b}",
            "correction: my {k} is {b}",
        ),
        compatible=("my {k2} is {b}", "my phone number is 555-01{n}", "I live in {city}"),
        same=("my {k} is {a}", "my {k} is still {a}"),
        values=IDS,
    ),
    Family(
        "likes",
        "en",
        old=("I like {a}", "I love {a}", "The user likes {a}"),
        supersedes=("I don't like {a} any more", "I no longer like {a}", "I hate {a} now", "I stopped liking {a}"),
        compatible=("I like {b} too", "I also like {b}", "I love {b}", "I don't like {b}", "my sister likes {a}"),
        same=("I like {a}", "I really like {a}"),
        values=FOODS,
    ),
    Family(
        "relatives",
        "en",
        old=("my sister is {a}", "my brother is {a}", "my daughter is {a}"),
        supersedes=("actually my {rel} is called {b}", "sorry, my {rel}'s name is {b}"),
        compatible=("my {other} is {b}", "my {rel} lives in {city}", "my {rel} works at {org}", "my friend is {b}"),
        same=("my {rel} is {a}", "my {rel}'s name is {a}"),
        values=NAMES,
    ),
    Family(
        "residence",
        "it",
        old=("abito a {a}", "vivo a {a}", "l'utente vive a {a}", "sto a {a}"),
        supersedes=(
            "mi sono trasferito a {b}",
            "mi sono trasferita a {b}",
            "ora vivo a {b}",
            "non abito più a {a}",
            "adesso abito a {b}",
            "in realtà vivo a {b}",
            "invece abito a {b}",
            "l'utente si è trasferito a {b}",
        ),
        compatible=("lavoro a {b}", "mia sorella vive a {b}", "sono nato a {b}", "sono di {b}", "vorrei visitare {b}"),
        same=("abito a {a}", "vivo a {a}", "vivo sempre a {a}"),
        values=CITTA,
    ),
    Family(
        "employer",
        "it",
        old=("lavoro per {a}", "lavoro presso {a}", "l'utente lavora per {a}"),
        supersedes=(
            "ora lavoro per {b}",
            "sono stato assunto da {b}",
            "non lavoro più per {a}",
            "adesso lavoro presso {b}",
            "lavoro invece per {b}",
        ),
        compatible=("lavoro come {job}", "mio fratello lavora per {b}", "abito a {city}", "ho un conto con {b}"),
        same=("lavoro per {a}", "lavoro sempre per {a}"),
        values=ORGS,
    ),
    Family(
        "manager",
        "it",
        old=("il mio capo è {a}", "il mio responsabile è {a}"),
        supersedes=(
            "il mio nuovo capo è {b}",
            "il mio capo ora è {b}",
            "{b} è il mio nuovo capo",
            "il mio capo è {b}",
            "in realtà il mio responsabile è {b}",
        ),
        compatible=("mio fratello è {b}", "il mio dentista è {b}", "il mio migliore amico è {b}", "mia cugina è {b}"),
        same=("il mio capo è {a}", "il mio capo è sempre {a}"),
        values=PEOPLE,
    ),
    Family(
        "diet",
        "it",
        old=("sono {a}", "l'utente è {a}"),
        supersedes=("non sono più {a}", "ora sono {b}", "in realtà sono {b}", "non sono {a}"),
        compatible=("mi piace {cibo}", "sono allergico alle noci", "abito a {citta}", "faccio l'{jobit}"),
        same=("sono {a}", "sono ancora {a}"),
        values=DIETS_IT,
    ),
    Family(
        "identifier",
        "it",
        old=("il mio {k} è {a}", "il {k} dell'utente è {a}"),
        supersedes=(
            "il mio {k} è invece {b}",
            "il mio {k} è {b}",
            "il mio nuovo {k} è {b}",
            "scusa, il mio {k} è {b}",
            "in realtà il mio {k} è {b}",
        ),
        compatible=("il mio {k2} è {b}", "il mio numero di telefono è 333 12{n}", "abito a {citta}"),
        same=("il mio {k} è {a}", "il mio {k} è sempre {a}"),
        values=IDS,
    ),
    Family(
        "likes",
        "it",
        old=("mi piace {a}", "adoro {a}"),
        supersedes=("non mi piace più {a}", "ora odio {a}", "in realtà non mi piace {a}"),
        compatible=("mi piace anche {b}", "adoro {b}", "non mi piace {b}", "a mia sorella piace {a}"),
        same=("mi piace {a}", "mi piace molto {a}"),
        values=CIBI,
    ),
    Family(
        "relatives",
        "it",
        old=("mia sorella si chiama {a}", "mio fratello si chiama {a}", "mia figlia è {a}"),
        supersedes=("in realtà {relit} si chiama {b}", "scusa, {relit} si chiama {b}"),
        compatible=(
            "{otherit} si chiama {b}",
            "{relit} vive a {citta}",
            "{relit} lavora per {org}",
            "il mio amico è {b}",
        ),
        same=("{relit} si chiama {a}",),
        values=NAMES,
    ),
]

RELATIVES_EN = {
    "my sister is {a}": ("sister", "brother"),
    "my brother is {a}": ("brother", "sister"),
    "my daughter is {a}": ("daughter", "son"),
}
RELATIVES_IT = {
    "mia sorella si chiama {a}": ("mia sorella", "mio fratello"),
    "mio fratello si chiama {a}": ("mio fratello", "mia sorella"),
    "mia figlia è {a}": ("mia figlia", "mio figlio"),
}


def _fill(template: str, old_template: str, a: str, b: str, k: str, k2: str, rng: random.Random) -> str:
    rel, other = RELATIVES_EN.get(old_template, ("sister", "brother"))
    relit, otherit = RELATIVES_IT.get(old_template, ("mia sorella", "mio fratello"))
    return template.format(
        a=a,
        b=b,
        k=k,
        k2=k2,
        job=rng.choice(JOBS_EN),
        jobit=rng.choice(["insegnante", "avvocato", "infermiere"]),
        city=rng.choice(CITIES),
        citta=rng.choice(CITTA),
        food=rng.choice(FOODS),
        cibo=rng.choice(CIBI),
        org=rng.choice(ORGS),
        n=f"{rng.randrange(10, 99)}",
        rel=rel,
        other=other,
        relit=relit,
        otherit=otherit,
    )


def generate(*, seed: int = 14, per_class: int = 6) -> list[dict]:
    """``per_class`` pairs of each class per family (a third as many restatements), without repeats."""
    rng = random.Random(seed)
    pairs: list[dict] = []
    seen: set[tuple[str, str]] = set()
    for family in FAMILIES:
        kinds = ID_KINDS_EN if family.lang == "en" else ID_KINDS_IT
        for label, templates in ((S, family.supersedes), (C, family.compatible), (SAME, family.same)):
            count = per_class if label != SAME else max(1, per_class // 3)
            for _ in range(count):
                a, b = rng.sample(family.values, 2)
                # One identifier kind per pair; a compatible pair may name another one (k2).
                k, k2 = rng.sample(kinds, 2)
                old_template = rng.choice(family.old)
                old = _fill(old_template, old_template, a, b, k, k2, rng)
                new = _fill(rng.choice(templates), old_template, a, b, k, k2, rng)
                if (old, new) in seen:
                    continue
                seen.add((old, new))
                pairs.append({"old": old, "new": new, "label": label, "lang": family.lang, "family": family.name})
    return pairs
