"""Words dropped from a search query before matching: English and Italian stop words,
and the words people use to ask about the past ("what did I say about…", "ti ho detto…")
which name the act of asking, not what is asked about.
"""

from __future__ import annotations

_ENGLISH = """
a about above after again against all am an and any are aren arent as at be because been before being
below between both but by can cannot could couldn did didn didnt do does doesn doesnt doing don dont down
during each few for from further had hadn has hasn have haven having he her here hers herself him himself
his how i if in into is isn isnt it its itself just let me more most mustn my myself no nor not now of off
on once only or other ought our ours ourselves out over own same shan she should shouldn so some such than
that thats the their theirs them themselves then there these they this those through to too under until up
very was wasn we were weren what whats when where which while who whom whose why will with won would wouldn
you your yours yourself yourselves yes yeah ok okay oh hi hello hey please thanks thank also really
ll re ve s t d m
"""

_ITALIAN = """
a ad al allo ai agli all agl alla alle con col coi da dal dallo dai dagli dall dagl dalla dalle di del dello
dei degli dell degl della delle in nel nello nei negli nell negl nella nelle su sul sullo sui sugli sull
sugl sulla sulle per tra fra contro io tu lui lei noi voi loro mio mia miei mie tuo tua tuoi tue suo sua
suoi sue nostro nostra nostri nostre vostro vostra vostri vostre mi ti ci vi lo la li le gli ne il un uno
una ma ed se perché perche anche come dov dove che chi cui non più piu quale quanto quanti quanta quante
quello quelli quella quelle questo questi questa queste si tutto tutti tutte tutta o e è ho hai ha abbiamo
avete hanno abbia ero eri era eravamo erano sono sei siamo siete sia stato stata stati state essere avere
fare fatto cosa cos qual quando allora poi già gia ancora molto poco ciao grazie sì no ok beh
"""

# Asking about the past, in both languages: common to questions, rare as the answer.
_ASKING = """
say said saying tell told telling mention mentioned mentioning talk talked talking discuss discussed
remember remind recall ask asked earlier previously conversation chat know
detto dire dici dicevo parlato parlare parlavo ricordi ricordare ricordo ricorda menzionato chiesto
chiedere sai sapere
"""

STOP_WORDS: frozenset[str] = frozenset((_ENGLISH + _ITALIAN + _ASKING).split())
