"""Italian words and patterns used by the heuristics (see the package docstring)."""

# Calendar words (see ``en``): names in order, then other spellings.
MONTHS = (
    "gennaio", "febbraio", "marzo", "aprile", "maggio", "giugno", "luglio", "agosto", "settembre", "ottobre",
    "novembre", "dicembre",
)  # fmt: skip
MONTH_ABBREVIATIONS: dict[str, int] = {}
WEEKDAYS = ("lunedì", "martedì", "mercoledì", "giovedì", "venerdì", "sabato", "domenica")
WEEKDAY_SPELLINGS = {"lunedi": 1, "martedi": 2, "mercoledi": 3, "giovedi": 4, "venerdi": 5}
WEEKDAY_ABBREVIATIONS: dict[str, int] = {}
NUMBER_WORDS = {
    "un": 1, "uno": 1, "una": 1, "due": 2, "tre": 3, "quattro": 4, "cinque": 5, "sei": 6, "sette": 7, "otto": 8,
    "nove": 9, "dieci": 10,
}  # fmt: skip

# The speaker in a sentence: pronouns, possessives, and the first-person verbs that
# stand without a pronoun ("ho", "sono").
FIRST_PERSON = (
    "io", "mi", "mio", "mia", "miei", "mie", "noi", "ci", "nostro", "nostra", "nostri", "nostre", "ho", "avevo",
    "sono", "abbiamo", "siamo",
)  # fmt: skip
THE_USER = ("l'utente", "utente")
POSSESSIVES = ("mio", "mia", "miei", "mie", "nostro", "nostra", "nostri", "nostre")
REFERRING_PRONOUNS = ("lo", "la", "li", "quello", "quella", "quelli", "quelle", "questo", "questa")

QUESTION_WORDS = (
    "chi", "cosa", "che cosa", "quando", "dove", "quale", "quali", "qual", "perché", "perche", "come", "quanto",
    "quanti", "quante", "quanta",
)  # fmt: skip
# Italian asks yes/no with the statement's own word order: no opening verb.
QUESTION_VERBS: tuple[str, ...] = ()
CONTRAST_WORDS = ("ma", "però", "pero", "tuttavia")
YES_NO = ("sì", "si", "no")

INTERJECTIONS = (
    r"sì|si|no|beh|boh|allora|comunque|ecco|guarda|dai|senti|ciao|grazie|perfetto|ok|va bene|infatti|insomma"
)
INTENSIFIERS = r"davvero|molto|proprio|tanto|veramente"
ACTION_WORDS = (
    r"\w+(?:ato|uto|ito|ata|uta|ita|ati|iti|ate)|fatto|preso|visto|scelto|messo|scritto|detto|vinto|perso|speso|"
    r"comprato|deciso|aperto|chiuso"
)
PLAN_WORDS = r"\w+(?:erò|irò|arò|eremo|iremo|aremo)|voglio|devo|dobbiamo|pensavo|intendo|prossim\w+|sempre|mai|entro"
REMEMBER_REQUEST = (
    r"^(?:[^?]{0,40}?[,.!]\s+)?(?:per favore\s+)?(?:ricorda(?:ti)?|si ricordi|memorizza|tieni a mente|segnati)\b"
    r"(?!\s+(?:quando|cosa|come|dove|chi|se|perché|perche)\b)[\s:,-]*(?:che\s+)?(?:una cosa per me[\s:,-]*)?"
    r"(?:anche\s+)?(?P<x>\w.+)$",
    r"^(?:[^?]{0,40}?[,.!]\s+)?(?:puoi|potresti) (?:ricordare|ricordarti|segnarti)\b(?=.*\d)\s*(?:che\s+)?(?P<x>\w.+)$",
)
FORGET_REQUEST = r"^(?:per favore\s+)?(?:dimentica(?:ti)?|scordati)\s+(?:di\s+|che\s+)?(?P<x>.+)$"
KNOW_ME_QUESTION = r"\bcosa\s+(?:sai|ricordi)\s+(?:di|su)\s+me\b"
SAID_ABOUT_QUESTION = (
    r"\bcosa\s+(?:ti\s+)?(?:ho|avevo)\s+(?:detto|scritto)\s+"
    r"(?:su|sul|sulla|sui|sulle|di|del|della|a proposito di)\s+(?P<x>.+)$"
)
RECALL_REQUEST = r"ricord\w*|detto|dett[aie]|scritto|menzionat\w*|l'altra volta"
USE_A_VALUE = (
    r"(?:usa|usando|metti|mettici|includi|cita|con|col) (?:il |la |l'|l’)?"
    r"(?:suo |sua |loro |mio |mia |nostro |nostra )?"
    r"(?:nome|cognome|azienda|ditta|scuola)|per nome"
    # ... or one as it stands now ("la riga del lavoro attuale", "chiede l'età attuale").
    r"|\w+ attual[ei]"
)
OPENERS = r"comunque|allora|tra l'altro|ah|e|poi|ok|beh|senti"

# Words dropped from a search query (see ``en``), elided forms included ("dell'" → "dell").
STOP_WORDS = frozenset(
    """
    a ad al allo ai agli all agl alla alle con col coi da dal dallo dai dagli dall dagl dalla dalle di del dello
    dei degli dell degl della delle in nel nello nei negli nell negl nella nelle su sul sullo sui sugli sull
    sugl sulla sulle per tra fra contro io tu lui lei noi voi loro mio mia miei mie tuo tua tuoi tue suo sua
    suoi sue nostro nostra nostri nostre vostro vostra vostri vostre mi ti ci vi lo la li le gli ne il un uno
    una ma ed se perché perche anche come dov dove che chi cui non più piu quale quanto quanti quanta quante
    quello quelli quella quelle questo questi questa queste si tutto tutti tutte tutta o e è ho hai ha abbiamo
    avete hanno abbia ero eri era eravamo erano sono sei siamo siete sia stato stata stati state essere avere
    fare fatto cosa cos qual quando allora poi già gia ancora molto poco ciao grazie sì no ok beh
    """.split()  # noqa: SIM905 (a word list reads better as text)
)
RECALL_WORDS = frozenset(
    """
    detto dire dici dicevo parlato parlare parlavo ricordi ricordare ricordo ricorda menzionato chiesto
    chiedere sai sapere
    """.split()  # noqa: SIM905 (a word list reads better as text)
)
SHORT_STOP_WORDS = frozenset(
    """
    il lo la i gli le un una uno di da in con su per tra fra e o che chi cosa come dove quando perché mi ti si
    ci vi mio mia miei mie tuo tua è sono era ho hai ha abbiamo avete hanno sai del della dei delle al alla ai
    alle nel nella sul sulla qual quale quali
    """.split()  # noqa: SIM905 (a word list reads better as text)
)
COMMON_WORDS = frozenset(
    """
    il lo la i gli le un una uno di da in con su per tra fra e o ma che non è sono ho hai ha abbiamo anche come
    più molto tutto tutti questo questa quello quella mi ti si ci vi poi già ancora sempre mai bene grazie
    """.split()  # noqa: SIM905 (a word list reads better as text)
)

# Replies that carry no information (``conversations.informative``; see ``en``).
MESSAGE_WORDS = r"messaggi?o?"
MESSAGE_ABBREVIATIONS = ""
ORDINAL_SUFFIXES = ""
SENTENCE_ABBREVIATIONS = r"Sig|Sig\.ra|Dott|Ing|Avv"
NO_INFORMATION = (
    r"non (?:ho|ne ho|abbiamo) (?:informazioni|idea|dati|notizie)\b",
    r"non (?:lo )?(?:so|sappiamo|ricordo|trovo|saprei)\b",
    r"non (?:posso|riesco a) (?:trovare|vedere|ricordare|aiutar\w*|dir\w*|rispondere)\b",
    r"(?:mi dispiace|purtroppo),? (?:ma )?non\b",
    r"non (?:c'è|c'e|risulta) nulla\b|nessun(?:a)? (?:informazione|risultato)\b",
    r"posso ricordare qualcosa per te\b",
)
FUNCTION_WORDS = frozenset(
    """
    a ad al allo ai agli all alla alle con col coi da dal dallo dai dagli dalla dalle di del dello dei degli
    della delle in nel nello nei negli nella nelle su sul sullo sui sugli sulla sulle per tra fra io tu lui
    lei noi voi loro mio mia miei mie tuo tua tuoi tue suo sua suoi sue nostro nostra nostri nostre mi ti ci
    vi lo la li le gli ne il un uno una ma ed se perché perche anche come dove che chi cui non più piu quale
    quanto quanti quanta quante quello quella questo questa si o e è ho hai ha abbiamo avete hanno ero era
    sono sei siamo siete sia stato stata essere avere fare cosa qual quando allora poi già ancora molto ciao
    grazie sì si no ok beh certo bene va chiesto chiedi domanda detto dire
    """.split()  # noqa: SIM905 (a word list reads better as text)
)
INDEFINITE_PRONOUNS = frozenset(
    """
    tutto tutti tutte qualcosa qualcuno qualcuna niente nulla nessuno nessuna ognuno ognuna ovunque chiunque
    """.split()  # noqa: SIM905 (a word list reads better as text)
)

MONEY = r"(?:[€$£]\s?\d|\d[\d.,]*\s?(?:€|euro|eur)\b)"
_PETS = r"cane|gatt[oa]|cagnolin[oa]|segugio|bastardin[oa]|labrador|bassott[oa]|meticci[oa]|certosino|criceto|coniglio"
_COUNTS = r"due|tre|quattro|cinque|sei|sette|otto|nove|dieci"
# Stable personal facts said in passing (see ``en.STABLE_FACT``).
_KIN = (
    r"moglie|marito|compagn[oa]|fidanzat[oa]|sorella|fratello|mamma|madre|papà|padre|figli[oa]|capo|nipote"
    r"|cugin[oa]|zi[oa]|nonn[oa]|amic[oa]|coinquilin[oa]|vicin[oa]|medico|dentista|veterinari[oa]|gatt[oa]"
    r"|gattin[oa]|cane|cagnolin[oa]|cucciol[oa]|coniglio|criceto|pappagallo|cavallo|tartaruga"
)
_TITLE = r"(?:dott\.ssa|dottoressa|dottor|dott|ing|geom|avv|prof|prof\.ssa|sig|sig\.ra|signor|signora)\.?"
_TITLE_MORE = r"(?:ragionier|rag\.|professor|professoressa|notaio|avvocato|avvocata|geometra|maestra|maestro)"
_NAME = (
    r"(?!(?:la|il|lo|le|gli|i|un|una|uno|e|ma|poi|questo|questa)\b)(?!(?:luned|marted|mercoled|gioved|venerd"
    r"|sabato|domenica|gennaio|febbraio|marzo|aprile|maggio|giugno|luglio|agosto|settembre|ottobre|novembre"
    r"|dicembre))(?-i:[A-Z][a-z]+)"
)
# La dose di un farmaco ("5 mg", "88 microgrammi") e quando si prende (see ``en.STABLE_FACT``).
_DOSE = r"\d+(?:[.,]\d+)?\s?(?:mg|mcg|microgrammi)\b"
_DOSE_TIMES = r"(?:una|due|tre|quattro) volt[ae] al giorno|al giorno|la mattina|la sera|ogni (?:giorno|mattina|sera)"
# Mestieri detti con "sono" ("sono fisioterapista", "sono un'infermiera").
_JOBS = (
    r"fisioterapista|ricercat(?:ore|rice)|farmacista|commercialista|tradutt(?:ore|rice)|psicolog[oa]|logopedista"
    r"|educat(?:ore|rice)|ostetrica|giornalista|geometra|notaio|dentista|veterinari[oa]|infermier[ea]|maestr[oa]"
    r"|insegnante|impiegat[oa]|ingegnere|avvocat[oa]|architett[oa]|programmat(?:ore|rice)|sviluppat(?:ore|rice)"
)
STABLE_FACT = (
    r"\b(?:sono|è|e') (?:\w+ )?allergic[oa]\b|\ballergi(?:a|co|ca) (?:a|al|alla|ai|alle|agli)\b",
    # "lavoro" the verb, not the noun ("del lavoro da casa", "ha trovato lavoro a Genova").
    r"(?:^\W*|\b(?:io|ora|adesso|non|ancora|anche|sempre|e|ma|però|quindi|perché|poi|che|dove|ci|qui|già)\s)lavoro"
    r"(?: part[- ]time| full[- ]time| di notte| a tempo pieno)?"
    r" (?:a|da|per|in|come|presso|al|alla|allo|nel|nella|nello|all')\b",
    r"\bfaccio (?:il|la|l'|l’)\s?[a-z]+",
    r"\bsto facendo (?:il|un|la|una) (?:master|dottorato|specializzazione)\b",
    r"\b(?:abito|vivo|sono cresciut[oa]|abitiamo|viviamo) (?:a|in|da)\b",
    r"\b(?:abito|vivo|abitiamo|viviamo|sto|stiamo) (?:al|nel|nella|sul|in via|a) (?-i:[A-Z])",
    r"\bmi sono trasferit[oa]\b|\bci siamo trasferiti\b",
    r"\b(?:ci|mi) trasferi(?:amo|sco|remo|rò)\b|\bqui a (?-i:[A-Z][a-z]+)",
    r"\bsono in pensione\b|\b(?:ero|sono) (?:un |una )?(?:maestr[oa]|insegnante|infermier[ea]|impiegat[oa]"
    r"|ingegnere|avvocat[oa]|architett[oa]|commess[oa]|cuoc[oa]|programmat(?:ore|rice)|sviluppat(?:ore|rice))\b",
    r"(?<!\buno dei )(?<!\buna delle )\b(?:il mio|la mia|i miei|le mie) (?:\w+ ){0,2}preferit[oaie]\b",
    r"\b(?:il mio|il nostro) (?:compleanno|anniversario|matrimonio)\b",
    r"\bsono (?:vegetarian[oa]|vegan[oa]|celiac[oa]|diabetic[oa]|intollerante)\b",
    r"\bnon (?:posso )?mangi(?:o|a|are)\b",
    # Il compleanno di qualcuno, un farmaco preso ogni giorno, la scuola di un figlio, un nuovo lavoro.
    r"\b(?:il )?compleanno (?:di|del|della|dello|di mi[oa]|di su[oa]) ",
    r"\bprendo (?:il |la |lo |l'|l’)?\S+ (?:tutt[ie] |ogni |la mattina|la sera|per la|per il)",
    r"\b(?:medico|dottore|dottoressa|cardiologo)\b.* mi ha (?:messo|prescritto|dato)\b",
    r"\b(?:va|vanno|andrà|è iscritt[oa]) (?:alla|al|all'|all’|all) (?:scuola|nido|asilo|liceo|istituto|università)\b",
    r"\bho accettato (?:un'|un’|l'|l’|il |la )?(?:offerta|posto|lavoro|proposta)"
    r" (?:da|dalla|dal|dallo|dall'|di|con|alla|al|presso)\b",
    # La città d'origine, una tariffa, quanti ne ha la famiglia ("abbiamo 12 ettari"), una cosa per marca.
    r"\bsono (?:originari[oa] )?di (?-i:[A-Z])",
    rf"\b(?:pago|guadagno|applico|chiedo|vendo)\b[^.?!]*?{MONEY}",
    rf"\b(?:abbiamo|teniamo|tengo) (?:\d+|{_COUNTS}) [a-z]+",
    r"\b(?:la mia|il mio|la nostra|il nostro) (?:vecchi[oa] |nuov[oa] )?(?-i:[A-Z][a-z]+) (?-i:[A-Z0-9][\w-]*)",
    # Un farmaco per la sua dose ("prendo il Ramipril da 5", "prendo 75 microgrammi"), un indirizzo.
    r"\bprendo (?:il |la |l'|l’)?\S+ da \d+|\bprendo \d+ (?:mg|microgrammi|mcg)\b",
    r"\b(?:via|viale|corso|piazza) (?-i:[A-Z])\w+(?: (?-i:[A-Z])\w+)? \d+\b",
    # "c'è un gatto" is a cat there is, not what someone is.
    rf"(?<![cC]['’])\b(?:è|e') (?:un|una) (?:[a-z]+ )?(?:{_PETS})\b",
    r"\b(?:ho|abbiamo) (?:anche |ancora )?(?:un|una|un') ?(?:\w+ )?(?:casa|appartament\w*|bilocale|monolocale|villetta"
    r"|terreno|orto|garage|box|casetta) (?:a|in|al|ad)\b",
    rf"\b{_NAME} ha \d+ anni\b",
    r"\b(?:abbiamo|ho) (?:assunto|scelto)\b|\bsono passat[oa] a\b",
    r"\bho (?:il |l'|l’|la )?(?:diabete|asma|celiachia|ipertensione|pressione alta|colesterolo alto|emicrania)\b",
    # Un farmaco per la sua dose e quando si prende ("prende Eliquis 5 mg due volte al giorno", "prendo il Ramipril 5
    # la mattina", "il Madopar da 250 tre volte al giorno").
    r"\bprend[oe] (?:il |la |lo |l'|l’)?\S+(?: da)? \d+(?:[.,]\d+)?\s?(?:mg|mcg|microgrammi)?"
    rf" (?:{_DOSE_TIMES})\b",
    rf"\b[a-z]+,? {_DOSE},? (?:[a-z]+ ){{0,2}}?(?:{_DOSE_TIMES})\b",
    # L'anno di un corso di studi ("sono al secondo anno di Scienze Politiche").
    r"\bsono (?:al|all['’]) ?(?:primo|secondo|terzo|quarto|quinto|sesto|ultimo) anno\b",
    # Il lavoro detto senza articolo ("sono fisioterapista", "sono ricercatrice RTD-A in ecologia marina").
    rf"\bsono (?:{_JOBS})\b",
)
NAMING = (
    rf"\bsi chiama(?:va|no)?\s+{_NAME}",
    r"\b(?:l'abbiamo|l’abbiamo|abbiamo) (?:rinominat[oa]|ribattezzat[oa]|chiamat[oa])\b",
    rf"\b(?:mio|mia|nostro|nostra|mie|miei) (?:{_KIN}),? (?:è |si chiama )?(?:il |la |l')?(?:{_TITLE} )?{_NAME}",
    rf"\b(?:mio|mia|nostro|nostra) (?-i:[a-z]+),? (?:(?:è|e'|é) )?(?:il |la |l')?(?:{_TITLE} )?{_NAME}",
    rf"\b(?:il|la) (?-i:[a-z]+) (?:mio|mia|nostro|nostra) (?:è|e'|é) (?:il |la |l')?(?:{_TITLE} )?{_NAME}",
    rf"{_NAME},? \(?(?:il |la )?(?:mio|mia|nostro|nostra) (?:{_KIN}|(?-i:[a-z]+))\b",
    # L'articolo per il possessivo: "la pediatra, la dottoressa Lanzoni", "la cagnolina, Birba".
    rf"\b(?:il|la) (?-i:[a-z]+)(?: (?-i:[a-z]+)){{0,2}}, (?:il |la |l')?(?:{_TITLE} )?{_NAME}",
    # Qualcuno o un animale che si ha, poi il nome ("abbiamo un gatto, Pepe", "vivo con una coinquilina, Marta").
    rf"\b(?:ho|abbiamo|vivo con|viviamo con) (?:anche )?(?:un|una|un['’]) ?(?:{_KIN}|{_PETS}),? {_NAME}",
    # Chi è qualcuno per il suo titolo ("la pediatra è la dottoressa Lorusso", "il medico di base è il dottor Galli",
    # "l'amministratore del condominio è il ragionier Bertoldi"): un titolo dice una persona della propria vita.
    # Il ruolo con il suo articolo: "adesso è la dottoressa Bertoni" non dice di chi.
    rf"\b(?:il|la|lo|l'|l’|mio|mia|nostro|nostra) ?(?:(?-i:[a-zàèéìòù'’]+) ){{0,4}}?(?-i:[a-zàèéìòù]+)"
    rf" (?:è|e'|é) (?:il |la |l'|l’)?(?:{_TITLE}|{_TITLE_MORE}) {_NAME}",
)
# See ``en.FAR_RELATIONS``; "nipote" is a niece or a grandchild, named as news either way.
FAR_RELATIONS = r"amic[oaie]|cugin[oaie]|vicin[oaie]|nipot[ei]|zi[oaie]|gener[oi]|nuor[ae]|suocer[oaie]|cognat[oaie]"
# See ``en.WORK_PEOPLE``.
WORK_PEOPLE = r"colleg(?:a|he|hi)|client[ei]|alunn[oaie]|uno dei [a-z]+|una delle [a-z]+"
# See ``en.MEASURES`` and ``en.THERE_IS``.
MEASURES = (
    r"\d+(?:[.,]\d+)?\s?(?:metri|metro|m|cm|mm|km|centimetri|chilometri|mq|metri quadri)\b"
    r"|\d+(?:[.,]\d+)?\s?[a-z]*\s(?:di (?:lunghezza|larghezza|altezza)|lung[oa]|larg[oa]|alt[oa])\b"
)
THERE_IS = r"(?:c['’]è|c['’]era)\s+(?:un|una|uno|un['’])\s?"
# See ``en.ATTRIBUTE_OPENING`` and ``en.RECURRING_DAYS``.
ATTRIBUTE_OPENING = (
    r"^(?:(?:il mio|la mia|il nostro|la nostra|il|la|l')\s?)?(?:[a-z]+\s){0,2}?[a-z]+\sè\s(?:ora\s|adesso\s)?"
)
RECURRING_DAYS = rf"\bogni (?:{'|'.join((*WEEKDAYS, *WEEKDAY_SPELLINGS))})\b"
BOOKED = r"\b(?:ho|abbiamo) prenotato\b"
# See ``en.EXPIRES``.
EXPIRES = r"\bscad(?:e|ono|rà|ranno)\b|\bsi rinnova\b|\bva rinnovat[oa]\b"
# See ``en.WORK_EVENTS``.
WORK_EVENTS = r"riunion[ei]|scadenza|consegna"
# See ``en.SUBJECT_PRONOUNS``.
SUBJECT_PRONOUNS = r"lui|lei|loro"
APPOINTMENT = (
    r"\b(?:appuntamento|dentista|medico|visita|controllo|colloquio|volo|esame|intervento|veterinario"
    r"|parrucchiere|fisioterapista|udienza|dottor|dottoressa|appello|tagliando|revisione)\b"
)
IDENTIFIER = (
    r"\b(?:numero|codice|fattura|ordine|prenotazione|riferimento|biglietto|conto|polizza|targa|pin|passaporto"
    r"|patente|tessera|pratica|matricola|iban|cap|targat[oa]|macchina|auto|fattura)\b"
)
CODE_NAMES = (
    r"\b(?:numero|codice|riferimento|prenotazione|conferma|targa|tessera|polizza|conto|passaporto|patente"
    r"|matricola|pin|iban|volo|fattura|targat[oa])"
)
COPULAS = (r"\b(?:è|e'|era|sono)(?=\s)",)
OTHERS_POSSESSIVES = ("suo", "sua", "suoi", "sue", "loro", "tuo", "tua")
TASK_REQUESTS = (
    r"scrivi|scrivimi|scrivile|scrivigli|riscrivi|fammi|fai|prepara|preparami|riassumi|traduci|rifai|metti|aggiungi"
    r"|dammi|suggerisci|correggi|controlla|organizza|mail (?:a|al|alla|all'|di|per)|messaggio (?:a|al|alla|per)"
    r"|programma"
    r"|prepari|aggiorna|aggiorni|controlli|organizzi|consiglia|consigli|trova|trovi|traduci"
)
POLITE_OPENERS = r"(?:mi )?(?:puoi|potresti|riesci a)|per favore|mi"
CLOCK = r"\balle\s\d{1,2}(?:[:.]\d{2})?\b|\b\d{1,2}:\d{2}\b"
CLOCK_SUFFIXES = ""
CODE_ARTICLES = r"la\s|il\s|l'"
# A comma part that opens on a premise ("se il noleggio costa 160 euro, …"); "se" before a clitic is
# the pronoun ("se lo merita").
PREMISE = r"(?:quindi\s+|e\s+)?se(?!\s+(?:lo|la|le|li|ne|l['’]))"
# The chat itself as what a clause is about ("mio nipote mi ha installato questa app").
ABOUT_THE_ASSISTANT = (
    r"\b(?:installato|messo|scaricato|configurato|impostato)\s+(?:questa|questo|quest['’])",
    r"\b(?:usare|provare|parlare con)\s+(?:questa|questo|quest['’])",
    r"\bquest[ao]\s+(?:app|applicazione|assistente|chatbot|programma)\b",
)
# A plan said first, and a habit of the past: the Italian says them by the verb's ending, not a word.
PLAN = ""
HABITUAL_PAST = ""
# "… mi chiede il numero della tessera. Qual è?"
ASKS_BY_A_PRONOUN = (
    r"(?:qual|quale|quali|quando|dove)(?:\s*['’]?\s*(?:è|e'|era|sono|erano))?(?:\s+(?:già|di nuovo))?\s*\?"
)
NOT_A_FACT = (
    r"\b(?:penso|credo|secondo me|mi piace|mi piacciono|odio|adoro|preferisco|sopravvalutat\w*|sottovalutat\w*"
    r"|se io|dovrei|vorrei|chissà|forse|magari|spero|speriamo|chiunque)\b"
)
WEEKDAYS_MONTHS = r"\b(?:" + "|".join((*WEEKDAYS, *WEEKDAY_SPELLINGS, *MONTHS, "domani", "settimana prossima")) + r")\b"
# Titles and abbreviations that end with a full stop inside a sentence ("Prof. Okafor", "n. A3217").
TITLES = r"prof|dott|dott\.ssa|ing|geom|avv|sig|sig\.ra|n"
# Spans and points of time ("la settimana scorsa", "il mese prossimo"): two lines that both say
# "settimana" are not about one thing for it (``usecases.turn.offline_context``).
TIME_SPAN_WORDS = frozenset(
    """
    settimana settimane weekend mese mesi anno anni mattina mattino pomeriggio sera serata notte stasera
    domani ieri prossimo prossima prossimi scorso scorsa scorsi fa dopo prima presto
    """.split()  # noqa: SIM905 (a word list reads better as text)
)
ASKS_FOR_A_NAME = r"\b(?:nome|chiama|chiamava|chi|dove|città|citta|paese|quale \w+ (?:ho|sono))\b"
ASKS_FOR_A_TIME = r"\b(?:quando|che ora|a che ora|che giorno|quale giorno|che data|data|compleanno)\b"
ASKS_FOR_A_NUMBER = r"\b(?:numero|codice|targa|pin|quant[io]|quante|riferimento|peso|pesa|pesava|altezza)\b"
ASKING_WORDS = frozenset(
    """
    nome chiama chiamava chiamato ricordi ricordami ricorda ricordare dimmi detto dire sai sapere già di nuovo
    ancora esattamente scusa veloce prima dimenticato te avevo avevi dato chiede chiedono
    adesso ora attualmente
    devo deve devi dobbiamo voglio vuole vuoi vogliamo posso puoi può
    """.split()  # noqa: SIM905 (a word list reads better as text)
)

# What a new statement says happened to an older fact (see ``en.CHANGE_CUES``).
CHANGE_CUES = (
    # "in più" is one more, never "no longer"
    r"(?:non|nn) \S+ pi[uù]|(?:non|nn) \S+ \S+ pi[uù]|(?<!in )pi[uù]|ormai|d'ora in poi|da ora in poi|da oggi"
    r"|adesso|ora|mo|invece|in realtà|anzi|basta|addio",
    r"(?:mi sono |si è |ci siamo |ho |ha |abbiamo )?(?:trasferit\w|spostat\w|cambiat\w|sostituit\w|aggiornat\w)",
    r"spostano|spostiamo",
    r"(?<!di )nuov[oaie]|ho trovato|ho iniziato|ho preso",
    r"vendut\w|ho venduto|abbiamo venduto|disdett\w|ho disdetto|cancellat\w|annullat\w|lasciat\w|licenziat\w",
    r"ci siamo lasciati|separat\w|divorziat\w|sposat\w|fidanzat\w|mort\w|è mancat\w|scompars\w",
    r"aumentat\w|alzat\w|ridott\w|abbassat\w|dimezzat\w|raddoppiat\w|rinviat\w|posticipat\w|anticipat\w",
    r"in questo periodo|da (?:lunedì|la prossima settimana|domani)",
    r"compiuto|compie|diventat\w|laureat\w|in pensione|smesso|chiuso|finit\w|scadut\w|non è più",
    r"(?:sono|siamo|è|ho|abbiamo) passat\w a|mollat\w|rinegoziat\w|scesa|sceso|salit\w|sospes\w|sospendere|saltat\w",
    r"tornat\w|ricominciat\w|ripres\w|stabilizzat\w|promoss\w|dimess\w|dimissioni|partorit\w|ritirat\w",
    r"iniziat\w|cominciat\w|tolt[oa]|dat[oa] via|rottamat\w|staccat\w|stufat\w|convertit\w|divorzi\w|è nat[oa]",
    r"ho sbagliato|sbagliat\w|mi sono confus\w|correzione|errore|da (?:quest'anno|questo mese|gennaio|febbraio|marzo"
    r"|aprile|maggio|giugno|luglio|agosto|settembre|ottobre|novembre|dicembre)",
)
OTHER_PEOPLE = (
    r"moglie|marito|fratello|sorella|madre|padre|mamma|papà|genitori|figlio|figlia|amico|amica|collega"
    r"|capo|vicin\w|cugin\w|zio|zia|nonn\w|suocer\w|nipot\w|cognat\w|ex"
)
LASTING_RELATIONS = r"amic[oa]|ex|divorziat\w|sorella|fratello|cugin[oa]"
KIN_SENSES = {
    "madre": ("mother", "parents"),
    "mamma": ("mother", "parents"),
    "padre": ("father", "parents"),
    "papà": ("father", "parents"),
    "genitori": ("parents", "mother", "father"),
    "figlio": ("son",),
    "figlia": ("daughter",),
}
STILL_HOLDS = (
    r"(?:è|sono) ancora|ancora (?:lì|li|uguale)|resta uguale|restano uguali|rimane|rimangono|come prima|come sempre"
    r"|non è toccat\w|non cambia|come previsto|come da programma|(?:è|sono) confermat[oaie]"
    r"|per (?:ora|adesso|il momento) (?:resto|rimango|restiamo|rimaniamo)",
    r"sto valutando|valutando|sto pensando|pensando di|forse|magari|non ho ancora deciso|non so se",
)
NOT_DECIDED = (
    r"propost\w|piacerebbe|stiamo parlando|solo un'idea|non ho firmato|non abbiamo firmato"
    r"|se (?:lo |la |li )?accettano|non so ancora"
)
# A routine and one occasion of it (see ``en``); "il giovedì" recurs, "giovedì" is one day.
_DAYS = "|".join((*WEEKDAYS, *WEEKDAY_SPELLINGS))
ROUTINE = (
    r"ogni|tutti i giorni|tutte le (?:sere|mattine|settimane)|al giorno|alla settimana|al mese",
    r"(?:il|i|la) (?:" + _DAYS + r")",
)
ONE_OCCASION = (
    r"la prossima settimana|la settimana prossima|questa settimana|questo mese|quel mese|quella settimana|domani",
    r"oggi|stamattina|stasera|per cambiare|quest[oa] (?:" + _DAYS + r")|(?:" + _DAYS + r") prossim[oa]",
    # a span of days, not a frequency ("5 giorni su 5", "tre giorni a settimana")
    r"(?:per )?(?:un|due|tre|qualche|\d+) (?:giorni|giorno|settimane|settimana)(?! (?:su|a|al|alla|ogni|la|per)\b)",
)
FROM_WHEN = r"da|dal|dalla|dallo|a partire da"
FAR_PAST = r"l'anno scorso|anni fa|nel (?:19|20)\d\d|da piccol\w|da ragazz\w|quando (?:ero|\w+(?:avo|evo)|\w{4,}ivo)"
PAST_STATE = r"ero|era|eravamo|erano|avevo|aveva|avevamo|\w+(?:avo|evo|ivo)"
NEAR_MISS = r"quasi|a un passo da\w*|per poco"
KEPT = r"sempre"
RESUMES = r"torno al|torno a|torna al|torna a|tornare al|tornare a|poi torn\w+|riprende il suo|riprendo il mio"
USUAL = r"solito|solita|normale|come prima|posto"
AS_USUAL = r"come (?:al solito|sempre|prima|d'abitudine)"
COMES_BACK = r"torna|ritorna|tornerà|rientra|rientrerà|riapre|riaprirà"
CLOSED_STATE = r"(?:è|era|sono|erano) chius[oaie](?! definitivamente| per sempre)"
CUE_DENIALS = r"non|nn|mai|se(?! n'| ne\b)"
# "mio marito invece la carne la mangia", "il gas invece l'abbiamo lasciato con Eni": a fact set
# beside another (a clause's subject, then "invece"), not a change of it.
CONTRASTED = r"(?:^|[,;:.!?]\s*)(?:[^\s,;:.!?]+\s+){2,4}invece\b"
DENIED_CHANGE_CUES = r"pi[uù]"
# "da anni ormai", "da un po' adesso": how long the fact has held (see ``en.SPAN_SO_FAR``).
PRESENT_CUES = r"ora|adesso|ormai|oramai"
SPAN_SO_FAR = r"da (?:(?:tanti |molti |diversi |\d+ )?(?:anni|mesi|settimane)|tempo|un po'|una vita|parecchio)"
ACQUIRING = r"(?<!di )nuov[oaie]|ho trovato|ho preso|ho comprato"
ADDITIVE = (
    # "anche se" concedes ("even though"); "due settimane in più" are what a change brings (``en``'s "extra days")
    r"anche(?! se\b)|pure|inoltre|un altro|un'altra|l'altr[oa] mi[oa]|altr[oa] mi[oa]|a parte"
    # "secondo anno", "la seconda metà": a place in a sequence of time (see ``en``)
    r"|secondo(?! (?:anno|semestre|quadrimestre|trimestre|tempo|mese|giorno)\b)"
    r"|seconda(?! (?:metà|parte|settimana)\b)"
    r"|(?<!giorni )(?<!giorno )(?<!settimane )(?<!settimana )(?<!mesi )(?<!ore )(?<!minuti )in più"
    r"|oltre (?:a|al|allo|alla|ai|agli|alle)|per una conferenza|in visita"
)
DENIALS = r"non|mai"
DENIED_ARTICLES = r"il|la"
CORRECTING_DENIALS = r"non"
ORDINAL_DAYS = r"primo|prima|secondo|seconda|terzo|terza|quarto|quarta|quinto|quinta|ultimo|ultima"

MEMORY_FILLER_PREFIXES = (
    r"(?:per favore |ti prego di )?(?:ricorda(?:ti)?|tieni a mente|nota|non dimenticare|per la cronaca)"
    r"(?: che)?[:,]?",
    r"(?:a proposito|comunque|allora|ok|beh|ah|in realtà)[,:]?",
)
MEMORY_FILLER_WORDS = r"in realtà|d'ora in poi|da ora in poi|adesso|ora|attualmente|al momento|per ora|comunque"
END_CUES = (
    r"(?:non|nn) \S+ pi[uù]|vendut\w|disdett\w|cancellat\w|annullat\w|mort\w|è mancat\w|ci siamo lasciati"
    r"|chiuso|finit\w|scadut\w|rubat\w|compiuto \d+|rinviat\w|posticipat\w|spostat\w|non è più"
)

# --- The statement grammar (``memories.matching``; see ``en``) -------------------------
NEGATIONS = frozenset({"mai", "neanche", "nemmeno", "nessuna", "nessuno", "niente", "no", "non", "nulla"})
CORRECTION_CUES = (
    r"di nuovo", r"dopotutto", r"alla fine", r"in realtà", r"in realta", r"invece", r"adesso", r"ora", r"ormai",
    r"da ora in poi", r"da oggi", r"attualmente", r"ultimamente", r"di recente", r"recentemente", r"anzi",
    r"veramente", r"per la precisione",
)  # fmt: skip
ATTRIBUTE_ALIASES = {
    "colore": "colour", "colore preferito": "favourite colour", "numero d'ordine": "order number",
    "numero dell'ordine": "order number", "numero di ordine": "order number", "ordine": "order number",
    "numero di telefono": "phone number", "telefono": "phone number", "numero di cellulare": "phone number",
    "cellulare": "phone number", "indirizzo email": "email address", "indirizzo e-mail": "email address",
    "indirizzo": "address", "capo": "manager", "responsabile": "manager", "sorella": "sister",
    "fratello": "brother", "moglie": "wife", "marito": "husband", "figlio": "son", "figlia": "daughter",
    "figli": "children", "cane": "dog", "gatto": "cat", "compleanno": "birthday", "data di nascita": "birthday",
    "nome": "name", "cognome": "surname", "squadra": "team", "squadra del cuore": "team", "città": "residence",
    "città natale": "origin", "azienda": "employer", "ditta": "employer", "lavoro": "occupation",
    "professione": "occupation", "mestiere": "occupation", "dieta": "diet", "età": "age", "fidanzata": "partner",
    "fidanzato": "partner", "ragazza": "partner", "ragazzo": "partner", "dentista": "dentist", "medico": "doctor",
    "dottore": "doctor", "banca": "bank", "macchina": "car", "auto": "car", "automobile": "car",
    "lingua madre": "native language", "numero di conto": "account number", "targa": "license plate",
    "scadenza": "deadline", "fuso orario": "time zone", "animale": "pet", "animale domestico": "pet",
    "amico": "friend", "amica": "friend", "migliore amico": "best friend", "migliore amica": "best friend",
    "collega": "colleague", "cugino": "cousin", "cugina": "cousin", "nipote": "nephew", "zio": "uncle",
    "zia": "aunt", "lingua": "language", "allergia": "allergy",
}  # fmt: skip
FAVOURITE_AFTER = r"preferit[oaie]|del cuore"
FAVOURITE_NOUNS = {
    "film": "film", "libro": "book", "cibo": "food", "piatto": "dish", "sport": "sport", "squadra": "team",
    "bevanda": "drink", "canzone": "song", "gruppo": "band", "cantante": "singer", "città": "city",
    "stagione": "season", "animale": "animal", "fiore": "flower", "frutto": "fruit", "colore": "colour",
    "numero": "number", "gelato": "ice cream", "ristorante": "restaurant", "serie": "series",
    "scrittore": "writer", "autore": "author", "attore": "actor", "vino": "wine", "birra": "beer", "pizza": "pizza",
}  # fmt: skip
SPELLINGS: dict[str, str] = {}
ATTRIBUTE_QUALIFIERS = r"nuov[oaie]|attual[ei]|ver[oaie]|vecchi[oa]?|corrett[oaie]|giust[oaie]|precedente|unic[oa]"
CHANGE_WORDS = r"nuov[oaie]|trasferit[oaie]|cambiat[oaie]|spostat[oaie]"
DIETS = {
    "vegetariano": "vegetarian", "vegetariana": "vegetarian", "vegano": "vegan", "vegana": "vegan",
    "pescetariano": "pescatarian", "pescetariana": "pescatarian", "onnivoro": "omnivore", "onnivora": "omnivore",
    "a dieta": "on a diet", "crudista": "raw",
}  # fmt: skip
MARITAL_STATUSES = {
    "sposato": "married", "sposata": "married", "divorziato": "divorced", "divorziata": "divorced",
    "fidanzato": "engaged", "fidanzata": "engaged", "vedovo": "widowed", "vedova": "widowed",
    "separato": "separated", "separata": "separated", "celibe": "single", "nubile": "single",
}  # fmt: skip
OCCUPATIONS = frozenset(
    w.strip()
    for w in """
    agricoltore, architetto, avvocata, avvocato, cameriera, cameriere, chef, commercialista, consulente, cuoca,
    cuoco, dentista, designer, disoccupata, disoccupato, farmacista, fotografa, fotografo, freelancer,
    giornalista, grafica, grafico, in pensione, infermiera, infermiere, ingegnere, insegnante,
    libero professionista, medico, musicista, panettiere, pensionata, pensionato, pilota, professore,
    professoressa, programmatore, programmatrice, ricercatore, ricercatrice, scrittore, scrittrice, studente,
    studentessa, sviluppatore, sviluppatrice, traduttore, traduttrice, veterinaria, veterinario
    """.split(",")  # noqa: SIM905 (a word list reads better as text)
)
FAITHS = {
    "cattolico": "catholic", "cattolica": "catholic", "cristiano": "christian", "cristiana": "christian",
    "protestante": "protestant", "ortodosso": "orthodox", "ortodossa": "orthodox", "musulmano": "muslim",
    "musulmana": "muslim", "ebreo": "jewish", "ebrea": "jewish", "induista": "hindu", "buddista": "buddhist",
    "ateo": "atheist", "atea": "atheist", "agnostico": "agnostic", "agnostica": "agnostic", "credente": "",
    "religioso": "", "religiosa": "", "praticante": "",
}  # fmt: skip
CHRONOTYPES = {
    "mattiniero": "morning", "mattiniera": "morning", "nottambulo": "night", "nottambula": "night",
    "un nottambulo": "night", "una nottambula": "night",
}  # fmt: skip
PLURALS = {
    "figli": "child", "figlio": "child", "figlie": "child", "figlia": "child", "bambini": "child", "cani": "dog",
    "cane": "dog", "gatti": "cat", "gatto": "cat", "fratelli": "brother", "fratello": "brother",
    "sorelle": "sister", "sorella": "sister", "macchine": "car", "macchina": "car", "auto": "car",
    "nipoti": "grandchild",
}  # fmt: skip
PLURAL_S = ""
PLURAL_ENDINGS: dict[str, str] = {}
CONTRACTIONS: dict[str, str] = {}
THIRD_PERSON = {
    r"^(il|la|lo|l'|i|gli|le) ?(.+?) (?:dell'utente|del cliente|della cliente) ": r"\1 mio \2 ",
    r"^l'utente\s+": "",
    r"^(?:il|la) cliente\s+": "",
}
NEGATION_PHRASES = {
    r"^non\s+": "", r"(?<=\s)non\s+": "", r"\bpiù\b(?!\s+(?:di|del|della|dei|degli|delle|che)\b)": "", r"\bmai\b": "",
}  # fmt: skip
WORK_PLACE_PREPOSITIONS = frozenset({"a", "ad"})
NOT_VERBS: frozenset[str] = frozenset()
NAME_ATTRIBUTES: tuple[str, ...] = ()
BORN_ON_PREPOSITIONS = frozenset({"il"})
WORK_AS_PREPOSITIONS = frozenset({"come"})
WORK_FIELD_PREPOSITIONS = frozenset({"nel", "nella"})
COMMUTE_MEANS: dict[str, str] = {}
COMMUTE_DROPPED: tuple[str, ...] = ()
PESCATARIAN_FOODS = frozenset({"pesce"})
VERB_SUFFIXES = ("are", "ere", "ire", "o")
LIKE_STEMS: frozenset[str] = frozenset()
AUXILIARY_DROPS: dict[str, str] = {}
CLAIM_GRAMMAR = {
    "subject": r"io",
    "have": r"ho",
    "filler": r"(?:per favore\s+)?(?:ricorda(?:ti)?|memorizza|tieni a mente)(?:\s+che)?|allora|comunque|ah|ehi"
    r"|aggiornamento",
    "correcting_opener": r"scusa|scusami|correzione|aspetta|errata corrige|mi sono sbagliat[oa]",
    "steady_adverb": r"sempre|anche|ancora|appena|finalmente|già|davvero|proprio",
    "softener": r"anche|molto|tanto|davvero|proprio|sempre|completamente|del tutto",
    "article": r"il|lo|la|l'|i|gli|le|un|uno|una|un'|del|della|dei|degli|delle",
    "conjunction": r"ma|quindi",
    "marital_verb": r"mi sono|si è",
    "marital_value": r"sposat[oa]|fidanzat[oa]|separat[oa]",
    "household_verb": r"vivo|vive|abito|abita",
    "household_value": r"con .+|da sol[oa]",
    "name_intro": r"mi chiamo|chiamami|il mio nome è",
    "residence_verb": r"abito|abita|vivo|vive|risiedo|risiede|sto|mi sono trasferit[oa]|si è trasferit[oa]"
    r"|mi trasferisco|mi sono spostat[oa]|si è spostat[oa]|sono andat[oa] a vivere|ho traslocato"
    r"|ci siamo trasferit[ie]|ci siamo spostat[ie]|abitiamo|viviamo",
    "residence_preposition": r"a|ad|nel|nella|nello|presso",
    "born_verb": r"sono nat[oa]|è nat[oa]",
    "born_preposition": r"a|ad|il|nel",
    "work_verb": r"lavoro|lavora|sto lavorando",
    "work_preposition": r"a|ad|per|da|presso|con|come|nel|nella",
    "employer_verb": r"sono stat[oa] assunt[oa] (?:da|in|presso)|sono entrat[oa] in"
    r"|ho iniziato a lavorare (?:da|per|presso|in)",
    "occupation_intro": r"faccio il|faccio la|faccio l'",
    "age_unit": r"anni",
    "count_verb": r"ho|possiedo",
    "count_word": r"una|uno|un'|un|due|tre|quattro|cinque|sei",
    "eat_verb": r"mangio|mangia",
    "eaten_food": r"carne|pesce|pollo|manzo|maiale",
    "own_verb": r"ho",
    "own_determiner": r"la|il|lo|l'|mia|mio",
    "commute": r"vado al lavoro (?:in|a|con|col|con la|con il) (?P<y>.+)|vado al lavoro (?P<z>a piedi)",
    "drive_verb": r"guido|guida",
    "turned_verb": r"ho compiuto|compio|ha compiuto",
    "retire": r"sono andat[oa] in pensione|vado in pensione",
    "like_verb": r"sopporto|mi piace|mi piacciono|gli piace|le piace|adoro|amo|odio|detesto",
    "hate_verb": r"odio|detesto",
    "prefer_verb": r"preferisco|preferisce",
    "speak_verb": r"parlo|parla",
    "support_verb": r"tifo per|tifo|tifa per",
    "be_verb": r"sono|è|e'",
    "my": r"mio|mia|miei|mie",
    "my_or_our": r"mio|mia|miei|mie|nostro|nostra",
    "possessive_article": r"il|la|lo|l'|i|gli|le",
    "possessive_copula": r"è|e'|sono|si chiama|si chiamano|è diventat[oa]|è cambiat[oa] in|ora è",
    "definite_article": r"il|la|lo|l'",
    "identifier_noun": r"numero|codice|indirizzo|targa",
    "definite_copula": r"è|e'",
    "inverted_copula": r"è|sono",
    "entity_verb": r"vive|abita|lavora|si è trasferit[oa]|ha|guida|parla",
    "stop_verb": r"smesso di|smesso",
    "leave_verb": r"lasciato",
    "left_job": r"il (?:mio )?lavoro (?:da|presso|a|in|per) ",
    "left_tail": r"nel|a|il",
    "sell_verb": r"venduto|regalato",
    "sold_determiner": r"la |il |lo |l'|mia |mio ",
    "value_intro": r"chiamat[oaie]|di nome",
    "attribute_article": r"il|lo|la|l'|i|gli|le",
    "name_suffix": "",
    "name_of": r"nome (?:di|del|della|dello) (?:mio |mia )?",
    "age_word": r"anni",
    "age_after": "",
    "married_to": r"sposat[oa]|fidanzat[oa]",
    "married_preposition": r"con|a",
    "origin_intro": r"di|originari[oa] di",
    "allergy_word": r"allergic[oa]|intollerante",
    "allergy_preposition": r"a|al|alla|ai|alle|agli",
    "based_in": "",
    "born_word": r"nat[oa]",
    "born_place_preposition": r"a|ad",
    "gerund": "",
    "alone": r"da sol[oa]",
    "no_determiner": r"nessun[oa]?",
    "subjectless_verb": "",
    "still": r"sempre|ancora|tuttora",
    # "bevo", "fumo", "gioco a": the pronoun optional, the verb's own ending says the person.
    "first_person_verb": r"^(?:io )?(?P<verb>[a-zà-ù]{3,}o) ?(?P<v>.*)$",
    "third_person_ending": "",
}

# --- Relative dates (``conversations.relative_dates``; see ``en``) ---------------------
RELATIVE_DATES = {
    "day_before_yesterday": r"l'altro ?ieri|altroieri",
    "day_after_tomorrow": r"dopodomani",
    "yesterday": r"ieri(?: sera| mattina| pomeriggio)?",
    "today": r"oggi|stasera|stamattina|stamani|stanotte",
    "tomorrow": r"domani",
    "last_weekday": r"{weekday} scors[oa]",
    "next_weekday": r"{weekday} prossim[oa]",
    "last_weekend": r"il (?:fine settimana|weekend) scorso",
    "this_weekend": r"questo (?:fine settimana|weekend)",
    "next_weekend": r"il (?:fine settimana|weekend) prossimo",
    "last_week": r"(?:la )?settimana scorsa",
    "next_week": r"(?:la )?settimana prossima|la prossima settimana",
    "this_week": r"questa settimana",
    "last_month": r"(?:il )?mese scorso",
    "next_month": r"il (?:mese prossimo|prossimo mese)",
    "this_month": r"questo mese",
    "last_year": r"(?:l')?anno scorso",
    "next_year": r"l'anno prossimo|il prossimo anno",
    "this_year": r"quest'anno",
    "ago": r"{n} {unit} fa",
    "from_now": r"(?:in|tra|fra) {n} {unit}",
}
DATE_UNITS = {
    "giorni": "day", "giorno": "day", "settimane": "week", "settimana": "week", "mesi": "month", "mese": "month",
    "anni": "year", "anno": "year",
}  # fmt: skip
DATE_LABELS = {"week": "settimana del", "weekend": "weekend del"}
DATE_HINTS = frozenset(
    "il lo la gli che non sono ho abbiamo per una della del ieri oggi domani settimana scorsa scorso".split()  # noqa: SIM905
)

# --- The offline model (``usecases.turn.offline``; see ``en``) -------------------------
LETTERS = "àèéìòù"
ASKING_OPENERS = r"ricordami|ti ricordi"
DEFINITE_ARTICLES = (
    "il", "lo", "la", "l'", "i", "gli", "le", "del", "dello", "della", "dell'", "dei", "degli", "delle", "al", "allo",
    "alla", "ai", "agli", "alle", "nel", "nello", "nella", "nei", "negli", "nelle", "sul", "sulla",
)  # fmt: skip
ASKED_AGAIN = ("ancora", "adesso", "ora", "attualmente")
# ... and a question passed on from someone else ("il patronato mi chiede il numero della pratica").
ASKING_FOR = (
    r"per favore|mi serve|mi servono|mi servirebbe|dammi|ridammi|dimmi|ridimmi|ricordami|me lo ridici|mi ridici"
    r"|ce l'hai|mi chiede|chiede quant\w*|chiede (?:che|quando|dove|qual\w*)|vuole sapere|vogliono sapere"
    r"|intendo(?=\W*$)"
)
ASKING_CLAUSE = (
    r"qual(?:e|i|\s+è|\s+e'|'è|è)|come\s+si\s+chiam\w*|che\s+(?:ora|giorno|numero|codice)"
    r"|quant[oaie]\s+(?:è|e'|costa|costano|era|devo|fa)|ti\s+ricordi"
    r"|(?:ricordami|dimmi)\s+(?:(?:a|di|da|in|con|per)\s+)?(?:qual\w*|come|quando|dove|chi|che|cosa|quant\w*)"
)
ASKING_SENTENCE = r"(?:quando|dove)\s+(?:è|e'|sono|era|ho|abbiamo|devo)|chi\s+(?:è|e'|era)"
ASKING_LEADS = r"aspetta|domanda(?: veloce)?"
QUESTION_CONTRACTIONS: tuple[str, ...] = ()
# "come" asks ("come si chiama?") but also opens statements ("come sai, …").
STATEMENT_OPENERS = ("come",)
QUESTION_SUBJECTS: tuple[str, ...] = ()
SPELLING_VARIANTS: dict[str, str] = {}
CAPITALISED_WORDS: tuple[str, ...] = ()
PAST_AUXILIARIES: tuple[str, ...] = ()
REPLIES = {
    "told_you": "Da quanto mi hai detto",
    "i_remember": "Da quanto ricordo",
    "earlier": "prima",
    "could_not_store": "Non ho potuto salvarlo: {error}",
    "pending": "L'ho annotato; lo userò dopo la revisione dello staff.",
    "will_remember": "Ricorderò: {content}.",
    "nothing_about": "Non ho nulla su “{x}”.",
    "forgotten": "Fatto, ho dimenticato: “{content}”.",
    "know_nothing": "Non so ancora nulla di te.",
    "what_i_know": "Ecco cosa so di te:\n",
    "nothing_found": "Non trovo nulla su “{x}” nei messaggi precedenti.",
    "you_said": "Avevi scritto:\n",
    "got_it": "Capito.",
    "no_information": "Non ho informazioni su questo. Posso ricordare qualcosa per te: scrivi «ricorda che …».",
    "noted": "Me lo segno: “{content}”.",
    "from_memory": "da quello che ricordo di te",
    "summary": "riassunto della conversazione",
    "conversation": "conversazione",
    "message": "messaggio",
    "this_conversation": "poco fa in questa conversazione",
}

# Kinds of things, by kind: their names, the words that show one, a pattern (see ``en``).
KINDS = {
    "dog": (
        ("cane", "cani", "cagnolino", "cagnolina", "cagnetto", "cagnetta", "cucciolo", "cucciola"),
        ("bassotto", "bassotta", "bassottino", "bassottina", "barboncino", "meticcio", "meticcia", "volpino",
         "segugio", "guinzaglio", "abbaia", "cuccia"),
        "",
    ),
    "cat": (
        ("gatto", "gatta", "gatti", "gattino", "gattina", "micio", "micia"),
        ("tigrato", "tigrata", "soriano", "soriana", "persiano", "lettiera", "miagola", "fusa"),
        "",
    ),
    "medication": (
        ("pillola", "pillole", "pastiglia", "pastiglie", "compressa", "compresse", "farmaco", "farmaci",
         "medicina", "medicinale", "medicinali"),
        ("tachipirina", "cardioaspirina", "eutirox", "pantoprazolo", "insulina", "antistaminico"),
        "",
    ),
    "car": (
        ("macchina", "auto", "automobile", "vettura"),
        ("panda", "ypsilon", "lancia", "alfa", "opel", "utilitaria", "targa", "bollo", "tagliando"),
        "",
    ),
    "landlord": (
        ("proprietario", "proprietaria", "padrone", "padrona"),
        ("affitto", "inquilino", "inquilina", "canone", "caparra"),
        "",
    ),
    "school": (
        ("scuola", "scuole"),
        ("elementare", "elementari", "liceo", "istituto", "asilo", "maestra", "maestro"),
        "",
    ),
    "dentist": (
        ("dentista", "dentisti"),
        ("otturazione", "igienista", "ortodontista", "apparecchio", "dente", "denti", "molare", "carie"),
        "",
    ),
    "doctor": (("medico", "dottore", "dottoressa"), ("dott", "ambulatorio"), ""),
    "pharmacy": (("farmacia", "farmacista"), (), ""),
    "allergy": (
        ("allergia", "allergie", "allergico", "allergica"),
        ("penicillina", "arachidi", "noci", "lattice", "polline", "glutine", "lattosio", "crostacei"),
        "",
    ),
    "diet": (
        ("dieta", "diete", "alimentazione"),
        ("vegetariano", "vegetariana", "vegetariani", "vegano", "vegana", "vegani", "celiaco", "celiaca",
         "intollerante", "intolleranza", "lattosio"),
        "",
    ),
    # A street address: "via San Nazaro 41", "piazza Duomo", "corso Porta Nuova"; case-sensitive after
    # the street word, so "via email" or "un corso di inglese" shows none.
    "address": (
        ("indirizzo", "indirizzi", "civico"),
        ("viale", "piazzale", "vicolo"),
        r"(?-i:\b(?:[Vv]ia|[Vv]iale|[Cc]orso|[Pp]iazza|[Pp]iazzale|[Vv]icolo|[Ll]argo|[Ss]trada)\s+(?:[A-Z]|\d))",
    ),
    "occupation": (
        ("lavoro", "mestiere", "professione", "impiego"),
        ("infermiere", "infermiera", "insegnante", "ingegnere", "cuoco", "cuoca", "sviluppatore",
         "sviluppatrice", "programmatore", "programmatrice", "traduttore", "traduttrice", "fisioterapista",
         "ricercatore", "ricercatrice", "giornalista", "consulente", "impiegato", "impiegata", "bibliotecario",
         "bibliotecaria"),
        r"\bfaccio (?:il|la|l') ?\w+(?:ista|iere|iera|tore|trice|ente|ante)\b",
    ),
    "courier": (("corriere", "corrieri", "spedizioni", "spedizione"), ("bartolini", "brt", "sda"), ""),
    "mother": (("mamma", "madre"), (), ""),
    "father": (("papà", "papa", "babbo", "padre"), (), ""),
    "rent": (("affitto", "affitti"), (), ""),
    "alarm": (("allarme", "antifurto"), (), ""),
    "birthday": (("compleanno", "compleanni"), (), ""),
}  # fmt: skip

# --- Corrections in the conversation a memory came from (``memories.thread_evidence``) ---
SELF_CORRECTION = r"sbagliat\w|aspetta|scusa|scusi|errore|cioè|ho invertito|invertit\w|ricontrollato|aggiornamento"
MOVED_TO = (
    r"(?:spostat\w|spost(?:are|ano|a)|cambiat\w|rimandat\w|anticipat\w)(?: [\w'’]+){0,3} (?:a|al|alla|alle|allo|ad)"
)
TENTATIVE = (
    r"se(?! (?:ne|lo|la|li|le)\b)|forse|magari|penso di|pensavo di|vorrei|dovrei|potrei|sto pensando|sto valutando"
)
MARKERS = r"ora|adesso|mo|invece|in realtà|anzi|ormai|pi[uù]|attualmente|al momento"
