"""The vocabulary of the statement grammar (English and Italian), kept apart from the rules.

Adding a word here is the usual way to teach the rule a new attribute, diet, job or
synonym; ``python -m bench.contradictions`` says whether it helped.
"""

from __future__ import annotations

import re

from liamemory import language


def _pairs(text: str) -> dict[str, str]:
    """ "a=b; c=d" → {"a": "b", "c": "d"} (compact tables that stay readable)."""
    return dict(item.split("=", 1) for item in (p.strip() for p in text.split(";")) if item)


def _words(text: str) -> frozenset[str]:
    return frozenset(w.strip() for w in text.split(",") if w.strip())


EDGE_PUNCTUATION = ".,;:!?()[]{}\"'«»“”‘’"


# Words that negate a statement on their own.
NEGATIONS = _words("cannot, mai, neanche, nemmeno, nessuna, nessuno, never, niente, no, non, none, not, nothing, nulla")


# Change or correction cues; removed before parsing, remembered in ``Claim.correction``.
CUES = [
    r"actually",
    r"after all",
    r"again",
    r"di nuovo",
    r"dopotutto",
    r"alla fine",
    r"in fact",
    r"as of (?:now|today)",
    r"from now on",
    r"right now",
    r"these days",
    r"nowadays",
    r"currently",
    r"recently",
    r"now",
    r"instead",
    r"anymore",
    r"any more",
    r"any longer",
    r"i mean",
    r"to be precise",
    r"rather",
    r"in realtà",
    r"in realta",
    r"invece",
    r"adesso",
    r"ora",
    r"ormai",
    r"da ora in poi",
    r"da oggi",
    r"attualmente",
    r"ultimamente",
    r"di recente",
    r"recentemente",
    r"anzi",
    r"veramente",
    r"per la precisione",
]


# Canonical attribute names for "my X is …" (English and Italian spellings, synonyms).
ATTRIBUTE_ALIASES = _pairs(
    "favorite=favourite; fav=favourite; color=colour; colore=colour; colore preferito=favourite colour; "
    "numero d'ordine=order number; numero dell'ordine=order number; numero di ordine=order number; "
    "order no=order number; order id=order number; order=order number; ordine=order number; "
    "numero di telefono=phone number; telefono=phone number; numero di cellulare=phone number; "
    "cellulare=phone number; phone=phone number; mobile=phone number; mobile number=phone number; "
    "cell number=phone number; telephone number=phone number; email=email address; e-mail=email address; "
    "email address=email address; indirizzo email=email address; indirizzo e-mail=email address; "
    "mail=email address; indirizzo=address; home address=address; address=address; boss=manager; "
    "supervisor=manager; line manager=manager; team lead=manager; team leader=manager; capo=manager; "
    "responsabile=manager; manager=manager; sorella=sister; fratello=brother; moglie=wife; "
    "marito=husband; figlio=son; figlia=daughter; figli=children; kids=children; children=children; "
    "cane=dog; gatto=cat; compleanno=birthday; data di nascita=birthday; date of birth=birthday; "
    "nome=name; first name=name; cognome=surname; last name=surname; family name=surname; squadra=team; "
    "squadra del cuore=team; city=residence; città=residence; hometown=origin; home town=origin; "
    "città natale=origin; company=employer; employer=employer; azienda=employer; ditta=employer; "
    "job=occupation; profession=occupation; occupation=occupation; lavoro=occupation; "
    "professione=occupation; mestiere=occupation; diet=diet; dieta=diet; age=age; età=age; "
    "partner=partner; girlfriend=partner; boyfriend=partner; fidanzata=partner; fidanzato=partner; "
    "ragazza=partner; ragazzo=partner; dentista=dentist; medico=doctor; dottore=doctor; banca=bank; "
    "macchina=car; auto=car; automobile=car; lingua madre=native language; "
    "mother tongue=native language; first language=native language; password=password; "
    "account number=account number; numero di conto=account number; iban=iban; targa=license plate; "
    "number plate=license plate; licence plate=license plate; budget=budget; deadline=deadline; "
    "scadenza=deadline; timezone=time zone; fuso orario=time zone; hobby=hobby; hobbies=hobby; pet=pet; "
    "animale=pet; animale domestico=pet; amico=friend; amica=friend; migliore amico=best friend; "
    "migliore amica=best friend; collega=colleague; cugino=cousin; cugina=cousin; nipote=nephew; "
    "zio=uncle; zia=aunt; lingua=language; languages=language; allergy=allergy; allergies=allergy; "
    "allergia=allergy"
)


# Italian "X preferito" is English "favourite X".
ITALIAN_FAVOURITE = re.compile(r"^(.+?) (?:preferit[oaie]|del cuore)$")


# Italian nouns of favourites, in English.
ITALIAN_NOUNS = _pairs(
    "film=film; libro=book; cibo=food; piatto=dish; sport=sport; squadra=team; bevanda=drink; "
    "canzone=song; gruppo=band; cantante=singer; città=city; stagione=season; animale=animal; "
    "fiore=flower; frutto=fruit; colore=colour; numero=number; gelato=ice cream; ristorante=restaurant; "
    "serie=series; scrittore=writer; autore=author; attore=actor; vino=wine; birra=beer; pizza=pizza"
)


# One spelling per English word.
EN_SPELLINGS = _pairs("movie=film; color=colour; favorite=favourite; tv show=series; show=series")


# Adjectives that say "which version", not "which attribute".
ATTRIBUTE_QUALIFIERS = re.compile(
    r"\b(?:new|current|present|old|former|previous|actual|real|correct|right|latest|updated|only|"
    r"nuov[oaie]|attual[ei]|ver[oaie]|vecchi[oa]?|corrett[oaie]|giust[oaie]|precedente|unic[oa])\b"
)


# Slots that hold several values at once: a second value is news, not a correction.
MULTI_VALUED = _words(
    "allergy, aunt, brother, cat, child, colleague, cousin, daughter, dog, friend, grandchild, "
    "granddaughter, grandson, hobby, language, nephew, niece, pet, prefer, sister, son, uncle"
)


# Change verbs and adjectives in the statement itself are cues too ("my new manager").
CHANGE_WORDS = re.compile(
    r"\b(?:new|moved|relocated|switched|changed|became|nuov[oaie]|trasferit[oaie]|cambiat[oaie]|spostat[oaie])\b"
)


# "I am X" where X is a diet.
DIET = _pairs(
    "vegetarian=vegetarian; vegan=vegan; pescatarian=pescatarian; pescetarian=pescatarian; "
    "omnivore=omnivore; carnivore=omnivore; flexitarian=flexitarian; keto=keto; on a diet=on a diet; "
    "vegetariano=vegetarian; vegetariana=vegetarian; vegano=vegan; vegana=vegan; "
    "pescetariano=pescatarian; pescetariana=pescatarian; onnivoro=omnivore; onnivora=omnivore; "
    "a dieta=on a diet; crudista=raw"
)


# "I am X" where X is a marital status.
MARITAL = _pairs(
    "single=single; married=married; divorced=divorced; engaged=engaged; widowed=widowed; "
    "separated=separated; in a relationship=in a relationship; sposato=married; sposata=married; "
    "divorziato=divorced; divorziata=divorced; fidanzato=engaged; fidanzata=engaged; vedovo=widowed; "
    "vedova=widowed; separato=separated; separata=separated; celibe=single; nubile=single"
)


# "I am a X" where X is a job.
OCCUPATIONS = _words(
    "accountant, agricoltore, architect, architetto, avvocata, avvocato, baker, cameriera, cameriere, "
    "chef, commercialista, consulente, consultant, cook, cuoca, cuoco, data scientist, dentist, "
    "dentista, designer, developer, disoccupata, disoccupato, doctor, electrician, engineer, farmacista, "
    "farmer, firefighter, fotografa, fotografo, freelancer, giornalista, grafica, grafico, in pensione, "
    "infermiera, infermiere, ingegnere, insegnante, journalist, lawyer, libero professionista, medico, "
    "musician, musicista, nurse, panettiere, pensionata, pensionato, pharmacist, photographer, pilot, "
    "pilota, plumber, police officer, product manager, professore, professoressa, programmatore, "
    "programmatrice, programmer, project manager, researcher, retired, ricercatore, ricercatrice, "
    "scientist, scrittore, scrittrice, software developer, software engineer, student, studente, "
    "studentessa, sviluppatore, sviluppatrice, teacher, traduttore, traduttrice, translator, unemployed, "
    "vet, veterinaria, veterinarian, veterinario, waiter, waitress, writer"
)


# "I am X" where X is a faith; "religious" stands for any ("" matches every value).
RELIGION = _pairs(
    "catholic=catholic; christian=christian; protestant=protestant; orthodox=orthodox; muslim=muslim; "
    "jewish=jewish; hindu=hindu; buddhist=buddhist; atheist=atheist; an atheist=atheist; agnostic=agnostic; "
    "religious=; a believer=; cattolico=catholic; cattolica=catholic; cristiano=christian; cristiana=christian; "
    "protestante=protestant; ortodosso=orthodox; ortodossa=orthodox; musulmano=muslim; musulmana=muslim; "
    "ebreo=jewish; ebrea=jewish; induista=hindu; buddista=buddhist; ateo=atheist; atea=atheist; "
    "agnostico=agnostic; agnostica=agnostic; credente=; religioso=; religiosa=; praticante="
)

# "I am a morning person": when one is at one's best.
CHRONOTYPE = _pairs(
    "morning person=morning; a morning person=morning; early bird=morning; an early bird=morning; "
    "night owl=night; a night owl=night; night person=night; a night person=night; mattiniero=morning; "
    "mattiniera=morning; nottambulo=night; nottambula=night; un nottambulo=night; una nottambula=night"
)

# "I have two kids": counts in words.
NUMBER_WORDS = {word: str(number) for word, number in language.table("NUMBER_WORDS").items()}


# Irregular plurals and Italian nouns of counted things, in English singular.
PLURALS = _pairs(
    "children=child; kids=child; kid=child; figli=child; figlio=child; figlie=child; figlia=child; "
    "bambini=child; cani=dog; cane=dog; gatti=cat; gatto=cat; fratelli=brother; fratello=brother; "
    "sorelle=sister; sorella=sister; "
    "macchine=car; macchina=car; auto=car; nipoti=grandchild"
)
