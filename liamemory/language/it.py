"""Italian words and patterns used by the heuristics (see the package docstring)."""

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
SELF = r"io|mi|mio|mia|miei|mie|noi|ci|nostro|nostra|l'utente|utente|ho|sono|abbiamo|siamo"
END_CUES = (
    r"non \S+ più|vendut\w|disdett\w|cancellat\w|annullat\w|mort\w|è mancat\w|ci siamo lasciati|chiuso|finit\w"
    r"|scadut\w|compiuto \d+|rinviat\w|posticipat\w|spostat\w|non è più"
)
