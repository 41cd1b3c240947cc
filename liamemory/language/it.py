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

# Stable personal facts said in passing (see ``en.STABLE_FACT``).
_KIN = (
    r"moglie|marito|compagn[oa]|fidanzat[oa]|sorella|fratello|mamma|madre|papà|padre|figli[oa]|capo|nipote"
    r"|cugin[oa]|zi[oa]|nonn[oa]|amic[oa]|coinquilin[oa]|vicin[oa]|medico|dentista|veterinari[oa]|gatt[oa]"
    r"|gattin[oa]|cane|cagnolin[oa]|cucciol[oa]|coniglio|criceto|pappagallo|cavallo|tartaruga"
)
_TITLE = r"(?:dott\.ssa|dottoressa|dottor|dott|ing|geom|avv|prof|prof\.ssa|sig|sig\.ra|signor|signora)\.?"
_NAME = (
    r"(?!(?:la|il|lo|le|gli|i|un|una|uno|e|ma|poi|questo|questa)\b)(?!(?:luned|marted|mercoled|gioved|venerd"
    r"|sabato|domenica|gennaio|febbraio|marzo|aprile|maggio|giugno|luglio|agosto|settembre|ottobre|novembre"
    r"|dicembre))(?-i:[A-Z][a-z]+)"
)
STABLE_FACT = (
    r"\b(?:sono|è|e') (?:\w+ )?allergic[oa]\b|\ballergi(?:a|co|ca) (?:a|al|alla|ai|alle|agli)\b",
    r"\blavoro (?:a|da|per|in|come|presso|al|alla|allo|nel|nella|nello|all')\b",
    r"\bfaccio (?:il|la|l'|l’)\s?[a-z]+",
    r"\bsto facendo (?:il|un|la|una) (?:master|dottorato|specializzazione)\b",
    r"\b(?:abito|vivo|sono cresciut[oa]|abitiamo|viviamo) (?:a|in|da)\b",
    r"\bmi sono trasferit[oa]\b|\bci siamo trasferiti\b",
    r"\b(?:ci|mi) trasferi(?:amo|sco|remo|rò)\b|\bqui a (?-i:[A-Z][a-z]+)",
    r"\bsono in pensione\b|\b(?:ero|sono) (?:un |una )?(?:maestr[oa]|insegnante|infermier[ea]|impiegat[oa]"
    r"|ingegnere|avvocat[oa]|architett[oa]|commess[oa]|cuoc[oa]|programmat(?:ore|rice)|sviluppat(?:ore|rice))\b",
    r"\b(?:il mio|la mia|i miei|le mie) (?:\w+ ){0,2}preferit[oaie]\b",
    r"\b(?:il mio|il nostro) (?:compleanno|anniversario|matrimonio)\b",
    r"\bsono (?:vegetarian[oa]|vegan[oa]|celiac[oa]|diabetic[oa]|intollerante)\b",
    r"\bnon (?:posso )?mangi(?:o|a|are)\b",
)
NAMING = (
    rf"\bsi chiama(?:va|no)?\s+{_NAME}",
    r"\b(?:l'abbiamo|l’abbiamo|abbiamo) (?:rinominat[oa]|ribattezzat[oa]|chiamat[oa])\b",
    rf"\b(?:mio|mia|nostro|nostra|mie|miei) (?:{_KIN}),? (?:è |si chiama )?(?:il |la |l')?(?:{_TITLE} )?{_NAME}",
    rf"\b(?:mio|mia|nostro|nostra) (?-i:[a-z]+),? (?:è )?(?:il |la |l')?(?:{_TITLE} )?{_NAME}",
    rf"{_NAME},? \(?(?:il |la )?(?:mio|mia|nostro|nostra) (?:{_KIN}|(?-i:[a-z]+))\b",
)
APPOINTMENT = (
    r"\b(?:appuntamento|dentista|medico|visita|controllo|colloquio|volo|esame|intervento|veterinario"
    r"|parrucchiere|fisioterapista|udienza)\b"
)
IDENTIFIER = (
    r"\b(?:numero|codice|fattura|ordine|prenotazione|riferimento|biglietto|conto|polizza|targa|pin|passaporto"
    r"|patente|tessera|pratica|matricola|iban|cap|targat[oa]|macchina|auto)\b"
)
COPULAS = (r"\b(?:è|e'|era|sono)(?=\s)",)
OTHERS_POSSESSIVES = ("suo", "sua", "suoi", "sue", "loro", "tuo", "tua")
TASK_REQUESTS = (
    r"scrivi|scrivimi|scrivile|scrivigli|riscrivi|fammi|fai|prepara|preparami|riassumi|traduci|rifai|metti|aggiungi"
    r"|dammi|suggerisci|correggi|controlla|organizza|mail (?:a|al|alla|all')|messaggio (?:a|al|alla)|programma"
)
CLOCK = r"\balle\s\d{1,2}(?:[:.]\d{2})?\b|\b\d{1,2}:\d{2}\b"
NOT_A_FACT = (
    r"\b(?:penso|credo|secondo me|mi piace|mi piacciono|odio|adoro|preferisco|sopravvalutat\w*|sottovalutat\w*"
    r"|se io|dovrei|vorrei|chissà)\b"
)
WEEKDAYS_MONTHS = r"\b(?:" + "|".join((*WEEKDAYS, *WEEKDAY_SPELLINGS, *MONTHS, "domani", "settimana prossima")) + r")\b"
# Titles and abbreviations that end with a full stop inside a sentence ("Prof. Okafor", "n. A3217").
TITLES = r"prof|dott|dott\.ssa|ing|geom|avv|sig|sig\.ra|n"
ASKS_FOR_A_NAME = r"\b(?:nome|chiama|chiamava|chi|dove|città|citta|paese|quale \w+ (?:ho|sono))\b"
ASKS_FOR_A_TIME = r"\b(?:quando|che ora|a che ora|che giorno|quale giorno|che data)\b"
ASKS_FOR_A_NUMBER = r"\b(?:numero|codice|targa|pin|quant[io]|quante|riferimento)\b"
ASKING_WORDS = frozenset(
    """
    nome chiama chiamava chiamato ricordi ricordami ricorda ricordare dimmi detto dire sai sapere già di nuovo
    ancora esattamente scusa veloce prima dimenticato
    """.split()  # noqa: SIM905 (a word list reads better as text)
)

# What a new statement says happened to an older fact (see ``en.CHANGE_CUES``).
CHANGE_CUES = (
    r"non \S+ più|non \S+ \S+ più|più|ormai|d'ora in poi|da ora in poi|da oggi|adesso|ora|invece|in realtà|anzi",
    r"(?:mi sono |si è |ci siamo |ho |ha |abbiamo )?(?:trasferit\w|spostat\w|cambiat\w|sostituit\w|aggiornat\w)",
    r"nuov[oaie]|ho trovato|ho iniziato|ho preso",
    r"vendut\w|ho venduto|abbiamo venduto|disdett\w|ho disdetto|cancellat\w|annullat\w|lasciat\w|licenziat\w",
    r"ci siamo lasciati|separat\w|divorziat\w|sposat\w|fidanzat\w|mort\w|è mancat\w|scompars\w",
    r"aumentat\w|alzat\w|ridott\w|abbassat\w|dimezzat\w|raddoppiat\w|rinviat\w|posticipat\w|anticipat\w",
    r"in questo periodo|da (?:lunedì|la prossima settimana|domani)",
    r"compiuto|compie|diventat\w|laureat\w|in pensione|smesso|chiuso|finit\w|scadut\w|non è più",
)
OTHER_PEOPLE = (
    r"moglie|marito|fratello|sorella|madre|padre|mamma|papà|genitori|figlio|figlia|amico|amica|collega"
    r"|capo|vicin\w|cugin\w|zio|zia|nonn\w|suocer\w"
)
ADDITIVE = r"anche|pure|inoltre|un altro|un'altra|secondo|seconda|oltre a|per una conferenza|in visita"

MEMORY_FILLER_PREFIXES = (
    r"(?:per favore |ti prego di )?(?:ricorda(?:ti)?|tieni a mente|nota|non dimenticare|per la cronaca)"
    r"(?: che)?[:,]?",
    r"(?:a proposito|comunque|allora|ok|beh|ah|in realtà)[,:]?",
)
MEMORY_FILLER_WORDS = r"in realtà|d'ora in poi|da ora in poi|adesso|ora|attualmente|al momento|per ora|comunque"
END_CUES = (
    r"non \S+ più|vendut\w|disdett\w|cancellat\w|annullat\w|mort\w|è mancat\w|ci siamo lasciati|chiuso|finit\w"
    r"|scadut\w|compiuto \d+|rinviat\w|posticipat\w|spostat\w|non è più"
)
