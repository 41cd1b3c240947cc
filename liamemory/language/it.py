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
