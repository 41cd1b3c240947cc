"""English words and patterns used by the heuristics (see the package docstring)."""

# Calendar words: names in order (January is month 1, Monday is ISO weekday 1), then the
# short forms people type. "may" has no short form: as a word it is mostly the verb.
MONTHS = (
    "january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
    "november", "december",
)  # fmt: skip
MONTH_ABBREVIATIONS = {
    "jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9, "oct": 10,
    "nov": 11, "dec": 12,
}  # fmt: skip
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
# Other spellings of a weekday (ISO number), and its abbreviations.
WEEKDAY_SPELLINGS: dict[str, int] = {}
WEEKDAY_ABBREVIATIONS = {
    "mon": 1, "tue": 2, "tues": 2, "wed": 3, "thu": 4, "thur": 4, "thurs": 4, "fri": 5, "sat": 6, "sun": 7,
}  # fmt: skip
# Counts said in words ("two weeks ago", "I have two kids").
NUMBER_WORDS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "couple of": 2,
}  # fmt: skip

# The speaker in a sentence: first-person pronouns, possessives and contractions.
FIRST_PERSON = (
    "i", "i'm", "i’m", "im", "i've", "i’ve", "i'd", "i'll", "me", "my", "mine", "myself", "we", "we're",
    "we’re", "we've", "we'll", "us", "our",
)  # fmt: skip
# The user named in the third person (memories are written both ways).
THE_USER = ("the user", "user's", "the user's")
# Possessives of the speaker ("my dog's name?" asks about the speaker's own things).
POSSESSIVES = ("my", "our")
# What a question names its thing with when the sentence before it said the thing ("The chemist
# wants my Seniors Card number again. What is it?"): ``usecases.turn.context``.
REFERRING_PRONOUNS = ("it", "that", "this", "they", "them", "those", "these")

# Questions: the words that open one, and the verbs that open a yes/no question.
QUESTION_WORDS = ("who", "whom", "whose", "what", "when", "where", "which", "why", "how")
QUESTION_VERBS = (
    "did", "do", "does", "was", "were", "is", "are", "have", "has", "had", "can", "could", "would", "will",
)  # fmt: skip
# A reply's "but" (what follows it carries something) and its bare yes or no.
CONTRAST_WORDS = ("but", "however", "though", "although")
YES_NO = ("yes", "no", "yep", "nope")

# Regex alternatives, matched case-insensitively on whole words. What opens a chat
# sentence and says nothing: a summary line leaves it out (``conversations.extractive``).
INTERJECTIONS = (
    r"oh+|ah+|aw+|wow|whoa|hey|hi|hello|yeah|yep|yes|yup|no|nope|nah|well|so|haha+|hah|lol|omg|ugh|hmm+|"
    r"ok(?:ay)?|sure|right|totally|absolutely|definitely|honestly|seriously|btw|by the way|anyway|also|plus|"
    r"and|but|oh my|gosh|man|dude|thanks|thank you|cool|great|awesome|nice"
)
# Words that only make a statement stronger ("really", "so much"): a summary line drops them.
INTENSIFIERS = (
    r"really|so much|so|very|totally|super|pretty|just|kinda|kind of|sort of|literally|honestly|definitely|"
    r"absolutely|truly|quite|actually|basically"
)
# A sentence that says someone did or decided something: a verb of action (a past
# tense), or a plan ("going to", "next", "must"). A summary keeps such a line.
ACTION_WORDS = (
    r"\w{3,}ed|went|got|bought|made|took|saw|met|ran|won|lost|gave|found|began|begun|did|built|wrote|read|"
    r"sold|paid|left|moved|joined|started|finished|decided|chose|chosen|booked|ordered|signed|adopted|visited"
)
PLAN_WORDS = (
    r"going to|gonna|plan(?:ning|ned)?|will|'ll|next|soon|intend|hope to|want to|decid\w+|agreed?|"
    r"deadline|budget|must|need to|have to|always|never|allergic|prefer\w*"
)
# Asking to recall what was said ("do you remember", "I told you"): the context then
# quotes older messages (``usecases.turn.context``).
RECALL_REQUEST = r"remember|recall|remind|mention(?:ed)?|said|say|told|tell me|wrote|earlier|last time"
# A task that needs one of the person's own values ("write a poem about my cat, use her name",
# "include the company", "a thank-you note to him, by name"): it asks for that value as a
# question would.
USE_A_VALUE = (
    r"(?:use|using|include|including|mention|put|with|sign (?:it|off) with) (?:his|her|their|its|my|our|the)"
    r"(?: \w+(?:'s|’s))?(?: (?:first|full|real|last))? (?:name|surname|company|employer|school)"
    r"|by (?:(?:his|her|their|first|full) )*name"
    # ... or one as it stands now ("a quote at my current hourly rate", "start from my current bench
    # max", "keep the walks at the same length they're at now").
    r"|(?:my|our|his|her|their) current|(?:they're|they are|it's|it is|he's|she's|he is|she is) (?:at|on) now"
)
# The plain requests the offline model answers with a tool (``usecases.turn.offline``):
# remember this, forget that (``x`` is what), what do you know about me, what did I say
# about ``x``. Case-insensitive; a dot matches a line break.
# "remember that …", "oh before I forget, remember my …", "remember: …", and the polite
# question that carries the value ("can you remember PO-88213 for me?"); never "remember when …".
REMEMBER_REQUEST = (
    r"^(?:[^?]{0,40}?[,.!]\s+)?(?:please\s+|pls\s+)?(?:remember|note|keep in mind)\b"
    r"(?!\s+(?:when|what|how|where|who|if|why|which|whether)\b)[\s:,-]*(?:that\s+)?(?P<x>\w.+)$",
    r"^(?:[^?]{0,40}?[,.!]\s+)?(?:can|could|would|will) you (?:please\s+)?(?:remember|note|keep in mind)\b"
    r"(?=.*\d)\s*(?:that\s+)?(?P<x>\w.+)$",
)
FORGET_REQUEST = r"^(?:please\s+)?forget\s+(?:about\s+|that\s+)?(?P<x>.+)$"
KNOW_ME_QUESTION = r"\bwhat\s+do\s+you\s+(?:know|remember)\s+about\s+me\b"
SAID_ABOUT_QUESTION = r"\bwhat\s+did\s+i\s+(?:say|tell\s+you|write|mention)\s+(?:about|regarding|on)\s+(?P<x>.+)$"
# Openers of a fact said in passing ("oh, also, btw"): a stored memory starts after them
# (``usecases.turn.offline_facts``).
OPENERS = r"oh|ah|also|and|so|btw|by the way|anyway|ok|okay|well|random one|fun fact|fyi|actually|ps|oh and"

# Words dropped from a search query (``liamemory.search_terms``): function words, and
# the fragments contractions leave ("don't" → "don", "t").
STOP_WORDS = frozenset(
    """
    a about above after again against all am an and any are aren arent as at be because been before being
    below between both but by can cannot could couldn did didn didnt do does doesn doesnt doing don dont down
    during each few for from further had hadn has hasn have haven having he her here hers herself him himself
    his how i if in into is isn isnt it its itself just let me more most mustn my myself no nor not now of off
    on once only or other ought our ours ourselves out over own same shan she should shouldn so some such than
    that thats the their theirs them themselves then there these they this those through to too under until up
    very was wasn we were weren what whats when where which while who whom whose why will with won would wouldn
    you your yours yourself yourselves yes yeah ok okay oh hi hello hey please thanks thank also really
    ll re ve s t d m
    """.split()  # noqa: SIM905 (a word list reads better as text)
)
# Asking about the past: common in questions ("what did I say about…"), rare in the
# answer; a search query drops them too.
RECALL_WORDS = frozenset(
    """
    say said saying tell told telling mention mentioned mentioning talk talked talking discuss discussed
    remember remind recall ask asked earlier previously conversation chat know
    """.split()  # noqa: SIM905 (a word list reads better as text)
)
# A shorter stop list, the words of a question that name nothing (articles, pronouns,
# auxiliaries, question words): the offline model matches what is left
# (``usecases.turn.offline_words``).
SHORT_STOP_WORDS = frozenset(
    """
    a an the is are was were be been am i me my mine you your we our it its of to in on at for with and or
    what which who whom when where how why do does did can could would should will shall tell know about
    please that this these those there here have has had any some from by as so if not no yes
    """.split()  # noqa: SIM905 (a word list reads better as text)
)
# Too common to count as new information in a summary line (``conversations.extractive``):
# function words and the commonplaces of chat ("love", "awesome", "sounds").
COMMON_WORDS = frozenset(
    """
    a an the and or but of to in on at for with from by as is are was were be been being it its it's this that
    these those there here i you he she we they me him her us them my your his our their do does did done have
    has had not no yes so if then than too very can could would should will just about what when where who how
    why all any some more most much many one get got make made go going went come take thing things time really
    like love lot lots feel felt think know good great nice glad happy fun awesome amazing cool sounds sound way
    also always never totally agree thanks thank hope see wait can't don't i'm it's that's you're i've i'll
    we're let's people life day today yeah oh wow hey
    """.split()  # noqa: SIM905 (a word list reads better as text)
)

# A message cited by number ("message #31", "msg #31"): the word, and its short form.
MESSAGE_WORDS = r"messages?"
MESSAGE_ABBREVIATIONS = r"msg"
# What follows a day's number in a date ("May 3rd").
ORDINAL_SUFFIXES = r"st|nd|rd|th"
# Abbreviations that end with a full stop inside a sentence (a summary keeps "Dr. Rossi" whole).
SENTENCE_ABBREVIATIONS = r"Dr|Mr|Mrs|Ms|Prof|St|Sr|Jr|vs|etc|e\.g|i\.e"

# Replies that carry no information (a refusal, "I don't know", nothing found): an
# excerpt of one is filler (``conversations.informative``). Regex alternatives, matched
# at the start of a reply's sentences, case-insensitive.
NO_INFORMATION = (
    r"i (?:do not|don't|dont) (?:have|know|recall|remember)\b",
    r"i (?:have|had) no (?:information|idea|record)\b",
    r"i (?:could not|couldn't|cannot|can't|am unable to|'m unable to|am not able to)"
    r" (?:find|see|recall|remember|help|tell|say|answer|access)\b",
    r"i(?:'m| am) (?:not sure|afraid i|sorry,? (?:but )?i)\b",
    r"(?:sorry|unfortunately),? (?:but )?i\b",
    r"there is nothing\b|nothing (?:was )?found\b|no (?:information|results?|record)\b",
    r"i can keep notes for you\b",
)
# Words that only carry the grammar of a sentence: what is left of a reply once they go
# is what it says. Also the words of acknowledging and asking ("noted", "asked").
FUNCTION_WORDS = frozenset(
    """
    a about above after again all am an and any are as at be because been before being both but by can could
    did do does doing done don't dont for from had has have having he her here hers him his how i i'm i've
    i'll i'd if in into is isn't it it's its just let me more most my myself no not now of off on once only or
    other our ours out over own same she should so some such than that that's the their them then there these
    they this those through to too under until up very was we were what what's when where which while who whom
    whose why will with would you your yours yourself you're you've yes yeah ok okay oh hi hello hey please
    thanks thank also really sure right well got noted note asked ask asking question said say tell told
    """.split()  # noqa: SIM905 (a word list reads better as text)
)
# Words that stand for no one in particular: a capitalised one opening a sentence ("Everything takes a
# year") names nothing (``usecases.turn.offline_context``).
INDEFINITE_PRONOUNS = frozenset(
    """
    everything everyone everybody everywhere something someone somebody somewhere anything anyone anybody
    anywhere nothing nobody nowhere none each either neither whatever whoever
    """.split()  # noqa: SIM905 (a word list reads better as text)
)

# A stable personal fact said in passing: the offline model stores the sentence with
# its remember tool, as the real model is instructed to (``usecases.turn.offline_facts``).
# Each is a regex, case-insensitive except where a name must be capitalised ((?-i:...)).
_KIN = (
    r"wife|husband|partner|girlfriend|boyfriend|fianc[eé]e?|sister|brother|mum|mom|mother|dad|father|son|daughter"
    r"|kid|baby|boss|manager|niece|nephew|cousin|aunt|uncle|grandma|grandmother|grandpa|grandfather|best friend"
    r"|flatmate|roommate|landlord|landlady|neighbour|neighbor|doctor|dentist|gp|vet|cat|dog|puppy|kitten|pet"
    r"|rabbit|hamster|parrot|horse|tortoise|fish"
)
_TITLE = r"(?:prof|professor|dr|doctor|mr|mrs|ms|miss|sir)\.?"
# Titles of people met abroad, said in English ("our notary is Dottoressa Mancini", "a Herr Brandl").
_FOREIGN_TITLE = r"(?:dottoressa|dottor|dott\.ssa|avvocato|avv\.|herr|frau|dr\.|señor|señora|monsieur|madame)"
# A language or a nationality, capitalised in English but no one's name ("my first Danish grade", "my
# terrible Portuguese").
_NATIONALITIES = (
    r"english|british|scottish|irish|welsh|french|german|italian|spanish|portuguese|dutch|danish|swedish"
    r"|norwegian|finnish|polish|greek|turkish|russian|chinese|japanese|korean|indian|american|canadian"
    r"|australian|european|african|arabic|latin"
)
# A name: a capitalised word that is not a day, a month or a language ("my flight Tuesday").
_NAME = (
    r"(?!(?:the|a|an|this|that|and|but|so|then|it|there|here|what|which|who|today|tonight|tomorrow|mine|yours"
    r"|monday|tuesday|wednesday|thursday|friday|saturday|sunday"
    r"|january|february|march|april|june|july|august|september|october|november|december"
    rf"|{_NATIONALITIES})\b)(?-i:[A-Z][a-z]+)"
)
# Jobs said as "I'm a …", and the words that make any noun after them one ("a freelance …").
_JOBS = (
    r"surveyor|engineer|nurse|teacher|designer|developer|accountant|architect|lawyer|solicitor|doctor|pharmacist"
    r"|translator|photographer|illustrator|copywriter|electrician|plumber|chef|baker|midwife|paramedic|carer"
    r"|consultant|manager|student|vet|dentist|journalist|writer|editor|programmer|analyst|researcher|lecturer"
    r"|professor|technician|mechanic|driver"
)
_JOB_WORDS = r"freelance|self-employed|qualified|trained|retired|senior|junior|staff"
# An amount of money ("£380", "280 euro", "11p", "$1,200").
MONEY = r"(?:[€$£]\s?\d|\d[\d.,]*\s?(?:€|euros?|eur|p|quid|pounds?|dollars?|k)\b)"
_COUNTS = r"two|three|four|five|six|seven|eight|nine|ten"
_PETS = (
    r"cat|dog|puppy|kitten|beagle|labrador|lab|terrier|spaniel|collie|greyhound|retriever|tabby|rescue|mutt|poodle"
    r"|dachshund|pug|husky|hamster|rabbit|tortoise|parrot"
)
_AGES = r"one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen"
# Spans of time are no things counted ("we have two days left").
_SPANS = r"days?|weeks?|months?|years?|hours?|minutes?|mins?|times?"
# A dose of a medicine ("5mg", "50 micrograms"), and when a regular one is taken.
_DOSE = r"\d+(?:\.\d+)?\s?(?:mg|mcg|micrograms?)\b"
_DOSE_TIMES = (
    r"in the morning|at night|in the evening|(?:once|twice|three times) a day|a day|daily"
    r"|every (?:morning|night|evening|day)|with (?:breakfast|dinner|food)"
)
# Lasting states said in the first person: work, home, study, health, diet, favourites.
STABLE_FACT = (
    r"\bi(?:'m|’m| am|m) (?:\w+ )?allergic\b|\ballerg(?:y|ies) to\b",
    r"\b(?:she|he)(?:'s|’s| is) (?:severely |very |badly |properly )?allergic\b",
    r"\b(?:i|we) (?:also |still |now |only |mostly )?(?:work|have worked|'ve worked|’ve worked)"
    r" (?:nights |days |weekends |shifts |part[- ]time |full[- ]time )?(?:at|for|in|as|on)\b",
    # What is owned follows with an article ("I own a little plant shop"): "every lens I own", "I own so many
    # scrubs" count belongings for a laugh.
    r"\bi own (?:a|an|the|my|our|two|three|four|\d+)\b(?! (?:lot|bunch|ton|load)s?\b)",
    r"\bi (?:run|rent|manage|teach at|study at|do shifts at|volunteer at)\b",
    r"\bi(?:'m|’m| am|m)? (?:doing|studying for) (?:my |a |an )?(?:phd|doctorate|masters?|master's|degree)\b",
    r"\bi(?:'m|’m| am|m)? (?:leaving|joining|starting at|quitting|retiring from) (?-i:[A-Z])",
    r"\bi (?:left|joined|quit) (?-i:[A-Z])",
    r"\bi(?:'m|’m| am|m) retired\b",
    r"\bi(?:'m|’m| am|m) (?:a|an) (?!bit\b|little\b|lot\b|fan\b|huge\b|big fan\b)[a-z]+(?: [a-z]+)? (?:at|on|in|for)\b",
    # "when we moved in" names no place.
    r"\b(?:i|we) (?:live|have lived|'ve lived|moved|have moved|'ve moved|am moving|'m moving|grew up)"
    r" (?:in\b(?!\W*$)|to\b|here\b|from\b)",
    r"\b(?:we|i)(?:'re|’re| are|'m|’m| am)? (?:renting|living|based) (?:[a-z]+ ){0,3}in (?-i:[A-Z])",
    r"\bhere in (?-i:[A-Z][a-z]+)",
    # "one of my favourite things about go" ranks a thing among others: an opinion, not the favourite.
    r"(?<!\bone of )\bmy (?:all[- ]time |absolute )?fav(?:ou?rite)?\b",
    r"\b(?:my|our) (?:birthday|anniversary|wedding)\b",
    r"\bi(?:'m|’m| am|m) (?:a )?(?:vegetarian|vegan|pescatarian|diabetic|coeliac|celiac|lactose intolerant)\b",
    r"\b(?:i|she|he|\w+) (?:can't|cannot|can’t|don't|don’t|doesn't|doesn’t) eat\b",
    # Someone's birthday, a regular medicine, a child's school, years with an employer, a new job.
    r"\b(?:my|our|(?-i:[A-Z][a-z]+)['’]s) (?:[a-z]+['’]s )?(?:birthday|anniversary) (?:is|'s|’s|falls)\b",
    r"\bi(?:'m|’m| am) on (?:[a-z]+ ){1,2}(?:every|each|daily|twice|once|for)\b"
    r"|\bi take (?:[a-z]+ ){1,2}(?:every|each|daily|twice|once)\b",
    r"\b(?:gp|doctor|dr|consultant|cardiologist)\b.* (?:prescribed|has put|put) me (?:on )?",
    r"(?:['’]s|\bis|\bgoes|\bgo) (?:at|to) (?:(?-i:[A-Z])[\w.'’]*\s){1,4}"
    r"(?:primary|elementary|school|nursery|academy|high|college)\b",
    r"(?:\b(?:i've|i’ve|i have) |^\W*)been (?:at|with) (?-i:[A-Z])[\w&'’ ]* for (?:\w+ )?(?:years?|months?)\b",
    r"\b(?:accepted|took) (?:an|the|a) (?:job |offer|position|role)(?:[a-z ]*) (?:from|at|with) (?-i:[A-Z])",
    # A job ("im a quantity surveyor", "I'm a freelance translator"), a home town, a rate, a count of the
    # household's ("we have three chooks"), a thing named by its make ("my 2014 Honda Fit"), a home said
    # without its "I" ("live in sheffield").
    rf"\bi(?:'m|’m| am|m) (?:a|an) (?:(?:{_JOB_WORDS}) [a-z]+|(?:[a-z]+ )?(?:{_JOBS})s?)\b",
    r"\bi(?:'m|’m| am|m) (?:originally )?from (?!the\b|a\b|an\b|work\b|home\b)[a-z]+",
    rf"\b(?:i|we) (?:charge|earn|pay)\b[^.?!]*?{MONEY}",
    rf"\bwe(?:'ve|’ve| have)?(?: got)? (?:\d+|{_COUNTS}) (?!(?:{_SPANS})\b)[a-z]+",
    r"\b(?:my|our) (?:\d{4} |old |new )?(?-i:[A-Z][a-z]+) (?-i:[A-Z0-9][\w-]*)",
    r"^\W*(?:still |now )?(?:live|living|based) in\b",
    r"\bwe(?:'re|’re| are) (?:out |based )?(?:in|on) (?-i:[A-Z])",
    # A job taken ("got a job as a lab assistant at the institute"), a medicine the person is put on or
    # takes by its dose, an address.
    r"\b(?:got|have|started|landed|took|taking|accepted)(?: offered)? (?:a|an|the) (?:[\w&-]+ ){0,4}"
    r"(?:job|post|role|position)\b(?: as (?:a |an )?[\w ]+?)? (?:at|with|in)\b",
    r"\b(?:put|putting|switched) me on\b|\b(?:been|i'm|im|i am) on [a-z]+ \d+\s?mg\b",
    r"\b\d+ (?-i:[A-Z])\w+ (?:Street|Road|Avenue|Lane|Close|Drive|Way|St|Rd)\b",
    # A pet's kind after its name ("Biscuit needs a wee. he's a beagle"), a home or a plot the person has,
    # a named person's age ("Olly's eleven").
    rf"\b(?:he|she)(?:'s|’s| is) (?:a|an|the|our|my) (?:[a-z]+ ){{0,2}}(?:{_PETS})\b",
    r"\b(?:i|we)(?:'ve|’ve| have)?(?: still| also)?(?: got)? (?:a|an) (?:little |small |big |old )?"
    r"(?:place|house|flat|cottage|allotment|cabin|caravan|apartment)\b",
    rf"\b{_NAME}['’]s (?:\d+|{_AGES})\b",
    # Whom or what the person chose for a job ("we hired reyes & sons", "went with ridgeline roofing").
    r"(?:\b(?:we|i)(?:'ve|’ve| have)? |^\W*|\band )(?:hired|went with|gone with|switched to|signed with)\b"
    r"(?! (?:my|our|his|her|their|a friend|the kids|him|them|it)\b)",
    # A lasting condition.
    r"\bi (?:have|get|suffer from) (?:migraines|asthma|diabetes|epilepsy|hypothyroidism|high blood pressure"
    r"|type [12] diabetes)\b|\bi(?:'m|’m|m| am) (?:hypothyroid|asthmatic|epileptic)\b",
    # Someone close's allergy, by their name ("Maya's allergic to peanuts", "tom has a peanut allergy").
    rf"\b{_NAME}(?:'s|’s| is) (?:\w+ )?allergic\b|\bha(?:s|ve) (?:a|an) (?:[a-z]+ )?allerg(?:y|ies)\b",
    # A medicine by its dose and when it is taken ("amlodipine 5mg in the morning", "metformin 500mg twice a day").
    rf"\b[a-z]+,? {_DOSE},? (?:[a-z]+ ){{0,2}}?(?:{_DOSE_TIMES})\b",
    # A job said without its article, where it is done ("I'm HR manager at a logistics company").
    rf"\bi(?:'m|’m| am) (?:[a-z]+ )?(?:{_JOBS}) (?:at|in|for|with)\b",
    # A year of a course, a major, a subject studied somewhere ("2nd year psych at leeds", "I'm a biology major").
    r"(?:^\W*|, |\bi(?:'m|’m| am|m) (?:a |an |in (?:my |the )?)?)"
    r"(?:first|second|third|fourth|final|1st|2nd|3rd|4th)[- ]year\b"
    r"(?! (?:module|project|exam|essay|students?)\b)|\bi(?:'m|’m| am|m) (?:a|an) [a-z]+ major\b"
    r"|\bi(?:'m|’m| am|m) (?:doing|studying|reading) [a-z ]{3,30}? at (?!the moment|home|work|night)[a-z]+",
    # A home town said after a name or before the verb ("I'm Helen, originally from Leeds", "from Lubbock originally").
    r"\boriginally from (?-i:[A-Z])|\bfrom (?-i:[A-Z])[a-z]+ originally\b",
)
# Someone or something named: a possessive and a name, or "called" / "named" and a name.
# These state a fact also inside a request to the assistant ("draft a message to my
# editor, Gareth Pryce").
NAMING = (
    rf"\b(?:is|'s|’s|was|are|were) (?:called|named) {_NAME}",
    rf"\b(?:i|we) (?:own|have|run|got|adopted) (?:a|an|our|my) (?:[a-z]+ ){{0,2}}(?:called|named) {_NAME}",
    rf"\b(?:a|an) (?:[a-z]+ ){{1,3}}(?:called|named) {_NAME}",
    rf"\brenamed (?:\w+ ){{0,2}}{_NAME}",
    rf"\b(?:my|our) (?:\w+ )?(?:{_KIN})(?:'s|’s)?,? (?:name is |is called |is )?(?:{_TITLE} )?{_NAME}",
    # Who someone is, said after their name: "Ray's my husband", "Pip's our cat", "he's my partner".
    rf"\b(?:he|she)(?:'s|’s| is) (?:my|our) (?:[a-z]+ ){{0,2}}(?:{_KIN})s?\b",
    rf"\b{_NAME}(?:'s|’s| is) (?:my|our) (?-i:[a-z]+)\b",
    # A name typed in lower case after "called" ("shes called kerry", "pickle shes called").
    r"\b(?:is|['’]s|shes|hes) called (?!(?:me|him|her|us|them|it|the|a|an|back|off|in|out)\b)[a-z]+"
    r"|\b[a-z]+,? (?:she|he)['’]?s called\b",
    rf"\b(?:my|our) (?:new |old )?(?-i:[a-z]+),? (?:is )?(?:{_TITLE} )?{_NAME}",
    # Someone or a pet the person has, then their name ("we have a cat, Pepe", "also the dog, Pepe, a beagle").
    rf"\b(?:i|we)(?: have| got|'ve got|’ve got| have got| live with) (?:a|an) (?:[a-z]+ )?(?:{_KIN}|{_PETS}),? {_NAME}"
    rf"|\bthe (?:{_PETS}), {_NAME},",
    # The role said with what it is for ("my solicitor for the custody stuff is Sarah Bennett").
    rf"\b(?:my|our) (?-i:[a-z]+)(?: (?-i:[a-z'’]+)){{0,4}}? (?:is|'s|’s) (?:this guy |this woman )?{_NAME}",
    rf"{_NAME},? \(?(?:my|our) (?:\w+ )?(?:{_KIN})\b",
    # An apposition: "Pepper, our rescue greyhound, has …", "Priya Raman, she's my manager".
    rf"{_NAME}, (?:my|our) (?:[a-z]+ ){{0,2}}(?-i:[a-z]+)(?:,|\))",
    rf"{_NAME}(?: {_NAME})?, (?:she|he|they)(?:'s|’s| is|'re|’re| are) (?:my|our) ",
    # Who someone is by their title ("My GP here is Dottoressa Ferri", "the landlord is a Herr Brandl",
    # "my project supervisor for next year, Dr Hollis"): a title says a person of the person's own life.
    rf"(?:^\W*|, |\b(?:my|our|the) )(?:[a-z]+ ){{0,3}}?(?-i:[a-z]+)(?: here)? (?:is|'s|’s) (?:a |an )?"
    rf"(?:{_TITLE}|{_FOREIGN_TITLE}) {_NAME}",
    rf"\b(?:my|our) (?:[a-z]+ ){{0,4}}?(?-i:[a-z]+), (?:{_TITLE}|{_FOREIGN_TITLE}) {_NAME}",
)
# People beyond the person's household, named in a sentence about them ("my friend Jess is
# coming", "my cousin Graziella says …"): the news is theirs, so a naming of them is no fact of the
# person's (a spouse, a child, a flatmate, a manager or a doctor named is one).
FAR_RELATIONS = (
    r"friends?|(?:my|a|our) mates?|pals?|buddy|buddies|cousins?|neighbou?rs?|nieces?|nephews?|aunts?|aunties?|uncles?"
    r"|[a-z]+-in-law|in-laws|next door"
)
# People met through work: a clause about them says their facts (``usecases.turn.offline_facts``).
WORK_PEOPLE = r"colleagues?|co-?workers?|customers?|clients?|pupils?|one of (?:the|my) [a-z]+s"
# A length or a size given ("the total rise is 21 inches", "the porch is 6 feet wide"): a figure to work
# something out with, not the person's fact (``usecases.turn.offline_facts``).
MEASURES = (
    r"\d+(?:[.,]\d+)?\s?(?:inch(?:es)?|feet|foot|ft|yards?|metres?|meters?|m|cm|mm|km|miles?|sq(?:uare)? \w+)\b"
    r"|\d+(?:[.,]\d+)?\s?[a-z]*\s(?:long|wide|tall|high|deep)\b"
)
# Something there is, named ("there's a lurcher called Biscuit at the rescue"): seen, not the person's
# ("there's Biscuit, our rescue dog" is).
THERE_IS = r"there(?:'s|’s| is| was)\s+(?:a|an)\s"
# A thing's value said with a copula, at the start of a clause ("rent is 4900 nok a month", "my rota is 3 on
# 4 off", "guest list is at 110"); a number must follow (``usecases.turn.offline_facts``).
ATTRIBUTE_OPENING = r"^(?:(?:my|our|the)\s)?(?:[a-z]+\s){0,2}?[a-z]+\s(?:is|are|'s|’s)\s(?:now\s|still\s|set:?\s|at\s)?"
# A day that comes back every week ("on tuesdays", "every Thursday").
RECURRING_DAYS = rf"\b(?:{'|'.join(WEEKDAYS)})s\b|\bevery (?:{'|'.join(WEEKDAYS)})\b"
# Something booked: with its date, on the person's calendar (``usecases.turn.offline_facts``).
BOOKED = r"\b(?:i|we)(?:'ve|’ve| have)? booked\b"
# Something the person holds that runs out or renews on a date ("my patente expires", "the lease is up for renewal
# on June 30"): its date is on the person's calendar (``usecases.turn.offline_facts``).
EXPIRES = r"\b(?:expire[sd]?|expiring|expiry|runs out|run out|renews|renewal)\b"
# A work meeting or a deadline: on the calendar, but a passing event of the job (``usecases.turn.offline_facts``).
WORK_EVENTS = r"meetings?|deadlines?|standup|stand-up"
# A clause that opens on a pronoun (``usecases.turn.offline_facts``: the memory keeps the sentence before).
SUBJECT_PRONOUNS = r"he|she|he['’]s|she['’]s|they|they['’]re"
# An appointment or an identifier: a word for the thing, and beside it a date, a time or
# a code (``conversations.facts``) — "the dentist is Thursday at 9:15", "invoice INV-2231".
APPOINTMENT = (
    r"\b(?:appointment|appt|dentist|doctor|gp|check-?up|interview|flight|exam|test|surgery|scan|vet|hairdresser"
    r"|haircut|physio|therapy|therapist|court date)\b"
)
IDENTIFIER = (
    r"\b(?:number|no\.|code|id|invoice|order|booking|reservation|reference|ref|ticket|account|policy|plate"
    r"|registration|reg|pin|passport|licen[cs]e|membership|tracking|serial|iban|postcode|zip|car|van|mine's|mine’s"
    r"|invoice|callsign)\b"
)
# The words that name a code the person holds, said right before it ("booking reference QX7RM2",
# "car reg: LK19 XFD"); an order or a ticket named so is a passing transaction, not an identifier.
CODE_NAMES = (
    r"\b(?:number|code|ref|reference|registration|reg|booking|reservation|confirmation|membership|policy|account"
    r"|plate|passport|licen[cs]e|pin|iban|postcode|flight|invoice|inv|callsign)"
)
# An identifier said as one: a copula or "=" right before the code ("the ref is KX4R9T").
COPULAS = (r"\b(?:is|are|was)\b", r"(?<=\w)['’]s\b", r"=", r"\bmine['’]?s\b", r"\bits\b")
# Someone else's: their code is not the person's.
OTHERS_POSSESSIVES = ("their", "his", "her", "its", "your")
# A request addressed to the assistant, as it opens: the task's words state nothing about the person.
TASK_REQUESTS = (
    r"draft|write|rewrite|tighten|summari[sz]e|translate|outline|recut|update|make|give me|list|tips|ideas"
    r"|suggest|help me|fix|check|proofread|create|prepare|compose|reply|add that|add|turn this|plan|find"
)
# A polite opening before such a request ("can you help me write …").
POLITE_OPENERS = r"(?:can|could|would|will) you(?: please)?(?: help me)?|please|pls"
CLOCK = r"\b\d{1,2}(?:[:.]\d{2})?\s?(?:am|pm)\b|\b\d{1,2}:\d{2}\b"
# What follows a clock time ("9 am"), and the articles before a stated code ("is the KX4R9T").
CLOCK_SUFFIXES = r"am|pm"
CODE_ARTICLES = r"the\s"
# Not a stable fact about the person: an opinion, a hypothesis, a wish.
NOT_A_FACT = (
    r"\b(?:i think|i feel like|i guess|i reckon|imo|in my opinion|i love|i hate|i like|i prefer|i refuse|overrated"
    r"|underrated|if i|would you|should i|i wish|i wonder|i might|maybe|perhaps|i hope|hopefully|anyone who|whoever"
    r"|the most|the worst|the best)\b"
)
# A comma part that opens on a premise ("if bowling is £160, how much is left …"): a number given to
# work something out with, not the person's fact.
PREMISE = r"if"
# The chat itself as what a clause is about ("my grandson Liam has put this on my phone", "my son
# suggested I try one of these AI assistants"): how the person came to the assistant, small talk.
ABOUT_THE_ASSISTANT = (
    r"\b(?:set|put|installed|downloaded|got)\s+(?:this|it)\s+(?:up\b|on\b|for\b)",
    r"\b(?:use|try|using|trying|talk to|type to)\s+(?:this|it|one of these)\b",
    r"\bthis\s+(?:app|assistant|chatbot|ai)\b|\bthese\s+(?:ai\s+)?(?:assistants|apps|chatbots)\b",
)
# A clause that opens on a plan ("will test tomorrow", "I'll ask her if she can do Thursdays"): what
# the person means to do, a fact only when it carries an identifier or names someone.
PLAN = r"i['’]ll|i will|will|we['’]ll|we will|i['’]m going to|gonna"
# Someone's habit in the past ("Ron would buy her a bun", "our daughter Lynn would only go in", a
# clause opening on "she'd get …"): a memory told, not how things are.
HABITUAL_PAST = (
    r"(?:\b(?:we|he|she|they|(?-i:[A-Z][a-z]+))\s+would|^\W*(?:we|he|she|they)['’]d)\s+(?:not\s+|only\s+|always\s+|never\s+|often\s+)?"
    r"(?!like\b|love\b|prefer\b|rather\b|be\b|have\b|you\b)[a-z]+"
)
# A closing question that asks by a pronoun for what the sentence before named ("… wants my Seniors Card
# number again. What is it?"): the message is that question.
ASKS_BY_A_PRONOUN = (
    r"(?:what|which|when|where)(?:['’]s|\s+(?:is|was|are|were))\s+(?:it|that|they|those)(?:\s+again)?\s*\?"
)
# A day named: a weekday, a month ("may" left out: mostly the verb), or a day to come.
WEEKDAYS_MONTHS = r"\b(?:" + "|".join((*WEEKDAYS, *(m for m in MONTHS if m != "may"), "tomorrow", "next week")) + r")\b"
# What a question asks for (``usecases.turn.offline_context``): a name or a place, a time, a number.
# Titles and abbreviations that end with a full stop inside a sentence ("Prof. Okafor", "n. A3217").
TITLES = r"prof|dr|mr|mrs|ms|st|no"
# Spans and points of time ("last week", "next month"): two lines that both say "week" are not
# about one thing for it (``usecases.turn.offline_context``).
TIME_SPAN_WORDS = frozenset(
    """
    week weeks weekend weekends month months year years morning mornings afternoon evening evenings night
    nights tonight tomorrow yesterday next last ago later earlier soon
    """.split()  # noqa: SIM905 (a word list reads better as text)
)
ASKS_FOR_A_NAME = r"\b(?:name|names|called|who|whom|where|city|town|which \w+ (?:do|did|am|was|is))\b"
ASKS_FOR_A_TIME = r"\b(?:when|what time|which day|what day|what date|how long until|date|birthday)\b"
ASKS_FOR_A_NUMBER = (
    r"\b(?:number|code|ref|reference|plate|pin|registration|how many|how much|weight|weigh|weighs|height|how tall)\b"
)
# Words of asking, not of what is asked about: left out when a question is matched
# against what the context holds ("what's my dog's name again?" is about "dog").
ASKING_WORDS = frozenset(
    """
    name names called call remind remember recall again tell know said say mentioned mention exactly already
    anyway quick one quickly actually before forget forgot think wait gonna want need much many far asks asking
    currently still anymore sure
    """.split()  # noqa: SIM905 (a word list reads better as text)
)

# What a new statement says happened to an older fact: a change, an end, a correction, a
# negation. Regex alternatives matched on word boundaries, lowercased
# (``memories.matching.change``). General verbs and markers of change, not phrasings of one slot.
CHANGE_CUES = (
    r"no longer|not any ?more|any ?more|any longer|from now on|as of (?:now|today)|these days|nowadays",
    r"now|instead|actually|in fact|after all|turns out|not \S+ but|rather than|, not\b",
    r"(?:have |has |had |just )?(?:moved|relocated|switched|changed|swapped|replaced|updated|upgraded)",
    r"(?:got|found|started|landed|took|have) (?:a )?new|new (?:job|one|number|address|email|phone)",
    r"sold|gave away|cancell?ed|called off|quit|stopped|gave up|left|resigned|retired|graduated|finished",
    r"broke up|split up|divorced|separated|got married|just married|engaged|passed away|died|lost",
    r"raised|increased|reduced|lowered|cut|doubled|halved|went up|went down|put (?:\w+ ){0,2}up|bumped|upped",
    r"from next \w+|starting (?:next|from) \w+",
    r"postponed|rescheduled|pushed back|brought forward|delayed|got moved|was moved|been moved",
    # "turned it down" refuses an offer: nothing changed.
    # "dropped the car off at the garage" takes it somewhere, it does not drop it
    r"turned(?! (?:\w+ )?down)|became|become|is over|ended|closed|expired|dropped(?! (?:\S+ ){0,3}off\b)",
    r"ditched|fired|laid off",
    r"handed in (?:my |our )?notice|gave (?:my |our )?notice|promoted|promotion|downgraded|killed|scrapped|dumped",
    r"ported|withdrew|withdrawn|refunded|disconnected|put to sleep|put down|went back|gone back|back to",
    r"(?:is|are) (?:gone|done)|started|starting|began|first day|from (?:this|next) (?:week|month|year)|as of \w+day",
    r"typo|misread|misspoke|my mistake|(?:had|got) (?:that|it) wrong|correction|i meant|mixed (?:it |them )?up",
    r"called it quits|last day|put (?:\w+ )?down|traded (?:\w+ )?in|written off|transferred|remarried|finali[sz]ed",
    r"defended|arrived|got the keys|packed up|buried|start (?:on )?\w+day|got the (?:job|offer)",
)

# A statement about someone else, or one more item beside the older one: not a change of it.
OTHER_PEOPLE = (
    r"wife|husband|partner|brother|sister|mother|father|mum|mom|dad|parents|son|daughter|kids'|friend"
    r"|colleague|boss|neighbou?r|cousin|uncle|aunt|grandma|grandpa|grandmother|grandfather|in-laws"
    r"|nephew|niece|grandson|granddaughter|stepson|stepdaughter|ex|former"
)
# "too" only where it closes a clause ("at Acme too."), not "too expensive".
ADDITIVE = (
    r"also|too(?=\s*(?:[,.;:!?)]|$))|as well|another|(?:my|our) other|separate|in addition|besides|plus"
    # "second year", "the second half": a place in a sequence of time, not one more item
    r"|second(?! (?:year|half|term|semester|quarter|round|week|month|day)s?\b)"
    # "3 extra days" are what a change brings, not an item
    r"|extra(?! (?:days?|weeks?|months?|hours?|minutes?|nights?|time))"
    r"|for a conference|for a trip|visiting"
)
# Relations a person's own news does not end ("my best friend is Rachel": Rachel getting engaged
# or moving away leaves her my best friend; a manager who moves away is no longer one).
LASTING_RELATIONS = r"friend|ex|ex-wife|ex-husband|divorced|sister|brother|cousin"
# One person said with another word ("Dad" for "my father", "Mum" among "my parents"): the
# people each word names, so news of them is not someone else's (``memories.matching.change``).
KIN_SENSES = {
    "mum": ("mother", "parents"),
    "mom": ("mother", "parents"),
    "mother": ("mother", "parents"),
    "dad": ("father", "parents"),
    "father": ("father", "parents"),
    "parents": ("parents", "mother", "father"),
    "grandma": ("grandmother",),
    "grandmother": ("grandmother",),
    "grandpa": ("grandfather",),
    "grandfather": ("grandfather",),
    "kids'": ("son", "daughter"),
    "son": ("son",),
    "daughter": ("daughter",),
}
# Cues that something was acquired ("found a new bakery", "got a new number"): one more thing,
# a change only of a thing the older statement names (``memories.matching.change``).
ACQUIRING = r"(?:got|found|started|landed|took|have|bought) (?:a |an )?new|new"
# The new statement says the older fact still holds, or that nothing happened yet: whatever
# else it says changed is another thing ("checkup's still Tuesday though", "thinking of moving").
STILL_HOLDS = (
    r"(?:is|are) still|still (?:is|are|the same|on|\w+day)|unchanged|stays|remains|as before|same as (?:before|always)"
    r"|hasn't changed|has not changed|nothing's changed|nothing has changed|as planned|as expected|(?:is|are) confirmed"
    r"|for now,? (?:i'm|i am|we're|we are|i'll|we'll) (?:staying|stay|keeping)",
    r"thinking (?:about|of)|considering|might|maybe|haven't decided|not decided yet|nothing's decided",
)
# A change proposed, wished or not signed yet ("they suggested moving it", "just an idea"): nothing happened.
NOT_DECIDED = (
    r"(?:proposed|suggested) (?:that|to|we|moving|changing|switching)|would (?:like|love|prefer)"
    r"|we're (?:discussing|talking about)|just an idea|not sure yet|(?:haven't|have not|not) signed"
    r"|if they (?:accept|say yes|agree)"
)
# A routine (the older fact recurs) and one occasion of it (the new statement speaks of one):
# "Thursday yoga is cancelled next week" skips one class, it does not end the Thursdays. An
# occasion said from when on ("from next week", "as of this month") is a change, not one occasion.
ROUTINE = (
    r"every|each|daily|weekly|monthly|nightly|twice|once a|a (?:day|week|month)|per (?:day|week|month)|weekdays",
    r"(?:" + "|".join(WEEKDAYS) + r")s|on (?:" + "|".join(WEEKDAYS) + r") (?:mornings|afternoons|evenings|nights)",
)
ONE_OCCASION = (
    r"next week|this (?:week|weekend|month|morning|" + "|".join(WEEKDAYS) + r")|today|tonight|tomorrow|tmrw",
    r"for a change",
    r"all of (?:" + "|".join(MONTHS) + r")|for (?:a|one|two|three|four|a few|a couple of|\d+) (?:days?|weeks?|nights?)",
)
FROM_WHEN = r"from|starting|as of|beginning"
# A state placed in a past well before now ("back in 2020 my cholesterol was 280"): history, not news.
FAR_PAST = r"last year|years? ago|back in|in (?:19|20)\d\d|when i (?:was|used to)|as a kid"
PAST_STATE = r"was|were|used to|had been"
# A change that nearly happened did not ("we nearly separated last year").
NEAR_MISS = r"nearly|almost(?! \d)|came close to"
# The new statement says part of the older fact is kept ("still in Austin"): it supersedes only
# with a value of its own (a number or a name the older one lacks).
KEPT = r"still"
# The older state said to come back after an exception ("back to my usual tomorrow", "then I come
# back to bristol"): the words before what resumes, and the words that name the usual itself.
RESUMES = r"back to|come back to|comes back to|coming back to|go back to|going back to|carry on as|as normal"
USUAL = r"usual|normal|the same|how it was"
# The older fact said to hold as it always did ("half five like usual").
AS_USUAL = r"(?:like|as) (?:usual|always|normal|before)"
# The older statement's person or place said to come back after a while ("Sara comes back in spring").
COMES_BACK = r"comes? back|coming back|will be back|is back|returns|gets back|reopens"
# Closed as a state at a time, not as an event ("was closed for holidays"; not "closed down", "has closed").
CLOSED_STATE = r"(?:is|was|were|are|'s) (?:closed|shut)(?! down| for good| permanently| now)"
# Words that deny the change cue right after them ("haven't started", "never left").
CUE_DENIALS = (
    r"not|never|didn't|haven't|hasn't|won't|wasn't|isn't|aren't|don't|doesn't"
    # typed without the apostrophe; "if" only supposes it
    r"|didnt|havent|hasnt|wont|wasnt|isnt|arent|dont|doesnt|if"
)
# "been here a while now", "for years now": a present cue right after a span of time says how
# long the fact has held, not that it changed (``memories.matching.change.cue_in``).
PRESENT_CUES = r"now|these days|nowadays"
SPAN_SO_FAR = (
    r"(?:for |a )?(?:(?:a )?few |couple of |good |many |several |two |three |four |five |\d+ )?"
    r"(?:years|months|weeks|decades)"
    r"|(?:for )?(?:quite )?a (?:while|long time)|for ages|for so long"
)
# A fact set beside another ("my wife, whereas, drives"): not a change of it.
CONTRASTED = r"\bwhereas\b"
# Cues that need a denial before them to say a change ("don't use it anymore").
DENIED_CHANGE_CUES = r"any ?more|any longer"
# "43, not 42": the words that deny a value, and the articles between them and it.
DENIALS = r"not|no|never"
DENIED_ARTICLES = r"the"
# "one sugar, not two": the denial that corrects a value said just before it (not "no sugar", a value itself).
CORRECTING_DENIALS = r"not"
# Which of a month's weekdays ("the third Tuesday of the month", "not the second"): a day's value.
ORDINAL_DAYS = r"first|second|third|fourth|fifth|last"

# Words a memory does not need: the talk around the fact (``memories.text``).
MEMORY_FILLER_PREFIXES = (
    r"(?:please )?(?:remember|note|keep in mind|don't forget|do not forget|for the record|fyi|just so you know)"
    r"(?: that)?[:,]?",
    r"(?:by the way|btw|oh|well|so|ok|okay|also|actually|in fact)[,:]?",
)
# Removed anywhere: the talk of the moment, not the fact ("from now on" is the memory's nature).
MEMORY_FILLER_WORDS = (
    r"actually|in fact|just so you know|by the way|btw|from now on|as of (?:now|today)|right now|for now"
    r"|at the moment|these days|nowadays|currently|now"
)
# Cues of an end: they change a fact even when the sentence is about the thing itself
# ("Max passed away", "the yoga class was cancelled").
END_CUES = (
    r"no longer|not any ?more|any ?more|sold|gave away|cancell?ed|called off|passed away|died|is over|ended"
    r"|closed|expired|broke up|split up|called it quits|last day|written off|buried|stolen|turned \d+"
    r"|postponed|rescheduled|got moved|was moved|been moved|moved to"
)

# --- The statement grammar (``memories.matching``) -------------------------------------
# Words that negate a statement on their own.
NEGATIONS = frozenset({"cannot", "never", "no", "none", "not", "nothing"})
# Change or correction cues, removed before a statement is read (regex alternatives, whole words).
CORRECTION_CUES = (
    r"actually", r"after all", r"again", r"in fact", r"as of (?:now|today)", r"from now on", r"right now",
    r"these days", r"nowadays", r"currently", r"recently", r"now", r"instead", r"anymore", r"any more",
    r"any longer", r"i mean", r"to be precise", r"rather",
)  # fmt: skip
# Attribute names for "my X is …" in the slot vocabulary (English, one spelling).
ATTRIBUTE_ALIASES = {
    "favorite": "favourite", "fav": "favourite", "color": "colour", "order no": "order number",
    "order id": "order number", "order": "order number", "phone": "phone number", "mobile": "phone number",
    "mobile number": "phone number", "cell number": "phone number", "telephone number": "phone number",
    "email": "email address", "e-mail": "email address", "email address": "email address", "mail": "email address",
    "home address": "address", "address": "address", "boss": "manager", "supervisor": "manager",
    "line manager": "manager", "team lead": "manager", "team leader": "manager", "manager": "manager",
    "kids": "children", "children": "children", "date of birth": "birthday", "first name": "name",
    "last name": "surname", "family name": "surname", "city": "residence", "hometown": "origin",
    "home town": "origin", "company": "employer", "employer": "employer", "job": "occupation",
    "profession": "occupation", "occupation": "occupation", "diet": "diet", "age": "age", "partner": "partner",
    "girlfriend": "partner", "boyfriend": "partner", "mother tongue": "native language",
    "first language": "native language", "password": "password", "account number": "account number",
    "iban": "iban", "number plate": "license plate", "licence plate": "license plate", "budget": "budget",
    "deadline": "deadline", "timezone": "time zone", "hobby": "hobby", "hobbies": "hobby", "pet": "pet",
    "languages": "language", "allergy": "allergy", "allergies": "allergy",
}  # fmt: skip
# "X preferito": the words after a noun that make it a favourite (the noun in
# ``FAVOURITE_NOUNS``); English says "favourite X", the slot's own spelling.
FAVOURITE_AFTER = ""
FAVOURITE_NOUNS: dict[str, str] = {}
# One spelling per word of an attribute.
SPELLINGS = {"movie": "film", "color": "colour", "favorite": "favourite", "tv show": "series", "show": "series"}
# Adjectives that say "which version", not "which attribute" (regex alternatives).
ATTRIBUTE_QUALIFIERS = r"new|current|present|old|former|previous|actual|real|correct|right|latest|updated|only"
# Change verbs and adjectives in the statement itself are cues too ("my new manager").
CHANGE_WORDS = r"new|moved|relocated|switched|changed|became"
# "I am X": a diet, a marital status, a job, a faith (value "" stands for any), a chronotype.
DIETS = {
    "vegetarian": "vegetarian", "vegan": "vegan", "pescatarian": "pescatarian", "pescetarian": "pescatarian",
    "omnivore": "omnivore", "carnivore": "omnivore", "flexitarian": "flexitarian", "keto": "keto",
    "on a diet": "on a diet",
}  # fmt: skip
MARITAL_STATUSES = {
    "single": "single", "married": "married", "divorced": "divorced", "engaged": "engaged", "widowed": "widowed",
    "separated": "separated", "in a relationship": "in a relationship",
}  # fmt: skip
OCCUPATIONS = frozenset(
    w.strip()
    for w in """
    accountant, architect, baker, chef, consultant, cook, data scientist, dentist, designer, developer, doctor,
    electrician, engineer, farmer, firefighter, freelancer, journalist, lawyer, musician, nurse, pharmacist,
    photographer, pilot, plumber, police officer, product manager, programmer, project manager, researcher,
    retired, scientist, software developer, software engineer, student, teacher, translator, unemployed, vet,
    veterinarian, waiter, waitress, writer
    """.split(",")  # noqa: SIM905 (a word list reads better as text)
)
FAITHS = {
    "catholic": "catholic", "christian": "christian", "protestant": "protestant", "orthodox": "orthodox",
    "muslim": "muslim", "jewish": "jewish", "hindu": "hindu", "buddhist": "buddhist", "atheist": "atheist",
    "an atheist": "atheist", "agnostic": "agnostic", "religious": "", "a believer": "",
}  # fmt: skip
CHRONOTYPES = {
    "morning person": "morning", "a morning person": "morning", "early bird": "morning",
    "an early bird": "morning", "night owl": "night", "a night owl": "night", "night person": "night",
    "a night person": "night",
}  # fmt: skip
# Irregular plurals of counted things, in the singular.
PLURALS = {"children": "child", "kids": "child", "kid": "child"}
# The regular plural endings, regex → replacement, the first that matches applies
# ("hobbies" → "hobby", "dogs" → "dog", never "glass"); ``PLURAL_S`` is the plain one.
PLURAL_S = r"(?s)(?<=.{3})(?<!s)s\Z"
PLURAL_ENDINGS = {r"(?s)(?<=.{2})ies\Z": "y", PLURAL_S: ""}
# Rewritten before a statement is read, in order (regex → replacement): contractions
# spelt out, then a statement about "the user" read as the speaker's own.
CONTRACTIONS = {
    r"\bi'm\b": "i am", r"\bi've\b": "i have", r"\bwe've\b": "we have", r"\bwe're\b": "we are",
    r"\bi'd\b": "i would", r"\bi'll\b": "i will", r"\bcan't\b": "can not", r"\bwon't\b": "will not",
    r"\b(\w+)n't\b": r"\1 not", r"\bcannot\b": "can not",
}  # fmt: skip
THIRD_PERSON = {
    r"^(?:the )?user's\b": "my", r"^(?:the )?user\b": "i", r"^(?:the )?customer's\b": "my",
    r"^(?:the )?customer\b": "i", r"^(?:he|she|they|we)\b": "i", r"^(?:his|her|their)\b": "my",
}  # fmt: skip
# Negations removed from a statement (its polarity is kept apart), in order.
NEGATION_PHRASES = {
    r"\bno longer\b": "", r"\bnot any longer\b": "",
    r"\b(am|is|are|do|does|did|have|has|can|will|was|were)\s+not\b": r"\1", r"\bnever\b": "", r"\bnot\b": "",
}  # fmt: skip
# Prepositions of "I work in X" that name a place when X is capitalised (else a field).
WORK_PLACE_PREPOSITIONS = frozenset({"in"})
# Words after "I" that are not the verb of a claim ("I also …", "I would …").
NOT_VERBS = frozenset({"also", "really", "just", "still", "would", "will", "can", "should", "could", "do", "did"})
# Attribute names that end in "name" and are the name itself ("my first name is …"; a
# "my dog's name" is the dog's): the grammar keeps their "name".
NAME_ATTRIBUTES = ("name", "first name", "last name")
# "born on 3 May" (a date), "work as a nurse" (a job), "work in marketing" (a field): the
# prepositions that say which.
BORN_ON_PREPOSITIONS = frozenset({"on"})
WORK_AS_PREPOSITIONS = frozenset({"as"})
WORK_FIELD_PREPOSITIONS: frozenset[str] = frozenset()
# How one gets to work, in the slot's words ("walks" → "walk"), and what is dropped first.
COMMUTE_MEANS = {"walks": "walk", "cycles": "cycle", "bikes": "cycle", "drives": "drive"}
COMMUTE_DROPPED = ("the ",)
# Eating these says the diet is pescatarian (any other meat: omnivore).
PESCATARIAN_FOODS = frozenset({"fish", "seafood"})
# Endings cut from a verb for its slot ("smoking" → "smok"); every language's, the longest first.
VERB_SUFFIXES = ("ing", "es", "ed", "s", "e")
# The stems of liking: "I stopped liking X" ends a like, not an activity.
LIKE_STEMS = frozenset({"lik", "lov", "enjoy"})
# Auxiliaries dropped before a statement is read ("i do like" → "i like"), regex → replacement.
AUXILIARY_DROPS = {r"^(i |my \w+(?: \w+)? )(?:do|does|did) ": r"\1"}
# The rest of the grammar, by rule: regex alternatives each rule of ``memories.matching.patterns``
# puts in its slot ("" when the language has none). The named groups of ``commute`` are each
# used by one language (v, w, x here; y, z in Italian).
CLAIM_GRAMMAR = {
    "subject": r"i",
    "have": r"have|has",
    "filler": r"(?:please\s+)?(?:remember|note|keep in mind)(?:\s+that)?|just so you know|fyi|by the way|btw|oh|well"
    r"|so|ok|okay|also|and|hey|hi|update|ps",
    "correcting_opener": r"sorry|correction|quick correction|small correction|oops|wait|hold on|i mean|my mistake",
    "steady_adverb": r"just|finally|already|also|still|really|truly",
    "softener": r"really|very much|so much|a lot|too|also|as well|still|just|definitely|totally|absolutely|actually"
    r"|usually|currently|fully|completely|strictly|mostly",
    "article": r"the|a|an",
    "conjunction": r"but|so",
    "marital_verb": r"got|have got|get",
    "marital_value": r"married|engaged|divorced|separated",
    "household_verb": r"live|lives|living|am living",
    "household_value": r"with .+|alone|on my own|by myself",
    "name_intro": r"my name is|call me|i am called",
    "residence_verb": r"live|lives|living|am living|is living|reside|resides|am based|is based|have moved|has moved"
    r"|moved|move|am moving|is moving|relocated|have relocated|has relocated",
    "residence_preposition": r"in|to|at|back to|over to|out to",
    "born_verb": r"was born|were born",
    "born_preposition": r"in|on|at",
    "work_verb": r"work|works|working|am working|is working|have worked|started working",
    "work_preposition": r"in|at|for|with|as",
    "employer_verb": r"joined|have joined|has joined|got a job at|got a job with|am employed by|is employed by"
    r"|am employed at",
    "occupation_intro": "",
    "age_unit": r"years old|years",
    "count_verb": r"have|has|own|owns",
    "count_word": r"an|a|one|two|three|four|five|six",
    "eat_verb": r"eat|eats",
    "eaten_food": r"meat|fish|seafood|chicken|beef|pork",
    "own_verb": r"have|has|own|owns",
    "own_determiner": r"the|my",
    "commute": r"(?:take|takes|catch|catches|go|goes|get|travel|commute|commutes) (?P<v>.+?) to work"
    r"|(?P<w>walk|walks|cycle|cycles|bike|bikes|drive|drives|run|runs) to work"
    r"|(?:go|goes|get|travel|commute|commutes) to work (?:by|on|in) (?P<x>.+)",
    "drive_verb": r"drive|drives",
    "turned_verb": r"turned|have turned|turn",
    "retire": r"retired|have retired|am retiring",
    "like_verb": r"like|likes|love|loves|enjoy|enjoys|adore|adores|hate|hates|dislike|dislikes|can stand",
    "hate_verb": r"hate|hates|dislike|dislikes",
    "prefer_verb": r"prefer|prefers",
    "speak_verb": r"speak|speaks",
    "support_verb": r"support|supports|root for|roots for",
    "be_verb": r"am|is|are|was",
    "my": r"my",
    "my_or_our": r"my|our",
    "possessive_article": "",
    "possessive_copula": r"is|are|was|were|is called|are called|has changed to|changed to|has become|became|is now|=",
    "definite_article": r"the",
    "identifier_noun": r"number|reference|code|id|address|email|password|iban",
    "definite_copula": r"is",
    "inverted_copula": r"is|are",
    "entity_verb": r"lives|moved|has moved|works|likes|loves|hates|has|drives|speaks|is moving|relocated|resides",
    "stop_verb": r"quit|stopped|gave up|give up",
    "leave_verb": r"left|quit",
    "left_job": r"my job (?:at|with) ",
    "left_tail": r"in|last|this|a",
    "sell_verb": r"sold|gave away|got rid of",
    "sold_determiner": r"my |the |a |an ",
    # The words the grammar's own steps strip or test (``memories.matching.grammar``).
    "value_intro": r"called|named",
    "attribute_article": r"the",
    "name_suffix": r"'s name| name",
    "name_of": "",
    "age_word": r"years?",
    "age_after": r"old",
    "married_to": r"married|engaged",
    "married_preposition": r"to",
    "origin_intro": r"from",
    "allergy_word": r"allergic|intolerant",
    "allergy_preposition": r"to",
    "based_in": r"(?:based|living|located) in",
    "born_word": r"born",
    "born_place_preposition": r"in",
    "gerund": r"\w{3,}ing",
    "alone": r"by myself|on my own",
    "no_determiner": r"no|any",
    "subjectless_verb": r"like|love|live|work|have|am|prefer|speak|drive|moved|lives|works|likes|has|is",
    "still": r"still",
    # The last reading of a statement: a first-person verb opening it ("i smoke"), and the
    # ending a third-person form drops ("smokes" → "smoke").
    "first_person_verb": r"^i (?P<verb>[a-z]+) ?(?P<v>.*)$",
    "third_person_ending": r"(?<=[a-z]{3})(?<!s)s$",
}

# --- Relative dates (``conversations.relative_dates``) --------------------------------
# Each phrase by what it resolves to (regex alternatives, whole words, case-insensitive):
# ``{weekday}`` is a weekday's name, ``{n}`` a count, ``{unit}`` a unit of ``DATE_UNITS``.
RELATIVE_DATES = {
    "day_before_yesterday": r"(?:the )?day before yesterday",
    "day_after_tomorrow": r"(?:the )?day after tomorrow",
    "yesterday": r"yesterday|last night",
    "today": r"today|tonight|this (?:morning|afternoon|evening)",
    "tomorrow": r"tomorrow",
    "last_weekday": r"(?:last|this past) {weekday}",
    "next_weekday": r"next {weekday}",
    "last_weekend": r"last weekend",
    "this_weekend": r"this weekend",
    "next_weekend": r"next weekend",
    "last_week": r"last week",
    "next_week": r"next week",
    "this_week": r"this week",
    "last_month": r"last month",
    "next_month": r"next month",
    "this_month": r"this month",
    "last_year": r"last year",
    "next_year": r"next year",
    "this_year": r"this year",
    "ago": r"{n} {unit} ago",
    "from_now": r"in {n} {unit}",
}
DATE_UNITS = {
    "day": "day", "days": "day", "week": "week", "weeks": "week", "month": "month", "months": "month",
    "year": "year", "years": "year",
}  # fmt: skip
# How a resolved week or weekend is written ("[week of 2023-05-01]").
DATE_LABELS = {"week": "week of", "weekend": "weekend of"}
# Two of these words in a text and its dates are written in this language (English is the default).
DATE_HINTS: frozenset[str] = frozenset()

# --- The offline model (``usecases.turn.offline``) ------------------------------------
# Letters only this language writes: each counts towards it when a text's language is guessed.
LETTERS = ""
# What opens a question besides a question word.
ASKING_OPENERS = r"what's|remind me|do you (?:know|remember)"
# What names one definite thing ("the abstract", "the shop alarm code"): a question about it
# in a new conversation looks in the person's others (``usecases.turn.context``).
DEFINITE_ARTICLES = ("the",)
# A question for a value as it stands now or once more ("what day's padel now?", "when's the gp
# again?") is about something said before: it opens the thread's excerpts (``usecases.turn.context``).
ASKED_AGAIN = ("again", "now", "still", "currently", "anymore")
# A request for something the person told before, said without a question ("bike lock code
# please", "I need that insurance number"): the offline model answers it from its context
# when a line holding a value matches it.
# ... and a question passed on from someone else ("a mum is asking what the cap per student is").
ASKING_FOR = (
    r"please|pls|i need|i'll need|give me|tell me|send me|can i have|one more time"
    r"|(?:(?:is|are|'s|’s) asking|asks|asked) (?:me )?(?:what|when|where|which|how|for)|wants? to know"
    # ... and what a question just asked meant ("the pediatrician's name, I mean").
    r"|i mean(?=\W*$)"
)
# A clause that asks though typed without a question mark ("whats the lockbox code", "mercury wants
# our account number again, what was it"), at the start of a sentence or after a comma: a question
# word contracted or followed by a verb or the thing asked ("what a week", ", which is great" state);
# and what asks only at the start of a sentence (", who is a nurse" and ", where we met" state).
# ``conversations.informative.asks``.
ASKING_CLAUSE = (
    r"what(?:'s|’s|s)|what\s+(?:is|was|are|were|did|do|does|time|day|date|night|number|code|name)"
    r"|(?:when|where|who)(?:'s|’s|s)|which\s+\w+\s+(?:is|are|was|were|did|do|does|am|have|had)"
    r"|how\s+(?:much|many|long|old|often)"
    # "…, remind me what I'm allergic to so I tell him": a request to be told, not a fact.
    r"|(?:remind|tell)\s+me\s+(?:what|which|when|where|who|how)"
)
ASKING_SENTENCE = r"(?:when|where|who|how)\s+(?:is|are|was|were|did|do|does|can|should)"
# Words that lead into a question typed without its mark ("wait whats my locker code again", "random q but
# whats the name of …"): said before an asking clause, they say nothing of what is asked.
ASKING_LEADS = r"wait|quick q(?:uestion)?|random q(?:uestion)?"
# Question words contracted with "is" ("what's a good walk near here"), and question
# words that also open statements (none in English).
QUESTION_CONTRACTIONS = ("what's", "who's", "where's")
STATEMENT_OPENERS: tuple[str, ...] = ()
# What follows a verb that opens a yes/no question ("is it bad …", "can u make …", "do those lamps
# work"): a subject. Chat statements drop theirs ("were closed mondays", "will try", "have to be careful").
QUESTION_SUBJECTS = (
    "i", "you", "u", "we", "they", "he", "she", "it", "there", "this", "that", "these", "those", "the", "a", "an",
    "any", "anyone", "anybody", "anything", "my", "your", "our", "his", "her", "their",
)  # fmt: skip
# Spellings folded into one when a question's words are matched ("favourite" → "favorite").
SPELLING_VARIANTS = {"our": "or"}
# Capitalised words that are not names ("I"), and a past act that makes a question personal ("did").
CAPITALISED_WORDS = ("I",)
PAST_AUXILIARIES = ("did",)
# The offline model's replies (``str.format`` fields in braces).
REPLIES = {
    "told_you": "From what you told me",
    "i_remember": "From what I remember",
    "earlier": "earlier",
    "could_not_store": "I could not store that: {error}",
    "pending": "I've noted it; staff will review it before I use it.",
    "will_remember": "I'll remember that: {content}.",
    "nothing_about": "I have nothing stored about “{x}”.",
    "forgotten": "Done, I've forgotten: “{content}”.",
    "know_nothing": "I don't know anything about you yet.",
    "what_i_know": "Here is what I know about you:\n",
    "nothing_found": "I couldn't find anything about “{x}” earlier in this conversation.",
    "you_said": "Earlier you said:\n",
    "got_it": "Got it.",
    "no_information": "I don't have information about that. I can keep notes for you: say “remember that …”.",
    "noted": "Noted: “{content}”.",
    "from_memory": "what I remember about you",
    "summary": "conversation summary",
    "conversation": "conversation",
    "message": "message",
    "this_conversation": "earlier in this conversation",
}

# Kinds of things a person asks about by the kind ("what's my dog called?") and states by
# the instance ("Biscuit … he's a beagle"), or the other way round (``liamemory.kinds``).
# Each kind: the words that name it, single words that show one (a breed, a make, a drug),
# and a pattern that shows one where no word list can (a dose). Keyed by kind: the words
# of every language serve together, so an Italian question reaches an English statement.
KINDS = {
    "dog": (
        ("dog", "dogs", "puppy", "pup", "doggo"),
        ("beagle", "labrador", "retriever", "spaniel", "terrier", "poodle", "dachshund", "collie", "sheepdog",
         "husky", "pug", "chihuahua", "whippet", "greyhound", "lurcher", "schnauzer", "rottweiler", "doberman",
         "corgi", "cockapoo", "labradoodle", "cavapoo", "bulldog", "dalmatian", "weimaraner", "vizsla",
         "springer", "pomeranian", "walkies", "woof", "barking", "leash"),
        "",
    ),
    "cat": (
        ("cat", "cats", "kitten", "kitty"),
        ("tabby", "siamese", "persian", "ragdoll", "moggy", "sphynx", "purring", "meow", "miaow", "catnip",
         "litter"),
        "",
    ),
    "medication": (
        ("pill", "pills", "tablet", "tablets", "medication", "medications", "medicine", "meds", "prescription",
         "dose", "drug"),
        ("inhaler", "insulin", "paracetamol", "ibuprofen", "aspirin", "warfarin", "levothyroxine", "sertraline",
         "omeprazole", "metformin", "amlodipine", "ramipril", "lisinopril", "atorvastatin", "simvastatin"),
        r"\b\d+(?:[.,]\d+)?\s?(?:mg|mcg|ml)\b|\b[a-z]+(?:pril|sartan|olol|statin|prazole|dipine|formin|cillin|oxetine)\b",
    ),
    "car": (
        ("car", "cars", "vehicle"),
        ("fiat", "toyota", "yaris", "corolla", "prius", "volkswagen", "vw", "ford", "fiesta", "kuga", "renault",
         "clio", "peugeot", "citroen", "skoda", "octavia", "fabia", "honda", "civic", "nissan", "qashqai", "micra",
         "audi", "bmw", "mercedes", "kia", "hyundai", "tesla", "vauxhall", "corsa", "astra", "dacia", "sandero",
         "volvo", "mazda", "hatchback", "suv", "mot"),
        "",
    ),
    "landlord": (("landlord", "landlady"), ("rent", "tenancy", "lease", "tenant"), ""),
    "school": (
        ("school", "schools"),
        ("primary", "secondary", "academy", "nursery", "pupils", "headteacher"),
        "",
    ),
    "dentist": (
        ("dentist", "dental"),
        ("crown", "hygienist", "orthodontist", "braces", "tooth", "teeth", "molar"),
        "",
    ),
    "doctor": (("doctor", "gp", "physician"), ("dr", "clinic"), ""),
    "pharmacy": (("chemist", "pharmacy", "pharmacist"), ("boots", "lloyds", "superdrug", "prescriptions"), ""),
    "allergy": (
        ("allergy", "allergies", "allergic"),
        ("penicillin", "peanut", "peanuts", "nuts", "latex", "pollen", "gluten", "lactose", "shellfish", "hives",
         "antihistamine", "epipen"),
        "",
    ),
    "diet": (
        ("diet", "diets", "dietary"),
        ("vegetarian", "vegan", "pescatarian", "halal", "kosher", "coeliac", "celiac", "keto", "gluten-free",
         "lactose", "intolerant", "intolerance", "dairy-free", "lactose-free"),
        "",
    ),
    # A street address: a house number before a street's name ("112 Stoke Newington Church Street"), or
    # a UK postcode; case-sensitive, so "via email" or "5 more minutes" shows none.
    "address": (
        ("address", "addresses", "postcode"),
        ("street", "road", "lane", "avenue", "terrace", "crescent"),
        r"(?-i:\b\d{1,4}[a-z]?,?\s+(?:[A-Z][\w'-]+\s+){1,4}(?:Street|St|Road|Rd|Lane|Avenue|Ave|Place|Square"
        r"|Terrace|Crescent|Drive|Way|Close|Gardens|Court|Row|Hill|Grove|Walk|Mews)\b"
        r"|\b[A-Z]{1,2}\d{1,2}[A-Z]?\s\d[A-Z]{2}\b)",
    ),
    "occupation": (
        ("job", "jobs", "occupation", "profession", "career", "living"),
        ("nurse", "teacher", "engineer", "chef", "developer", "programmer", "translator", "designer",
         "physiotherapist", "researcher", "scientist", "paramedic", "midwife", "barista", "journalist", "analyst",
         "freelance", "freelancer", "lecturer", "carer", "librarian"),
        r"\bwork(?:ing)? as an? \w+",
    ),
    "courier": (
        ("courier", "couriers", "shipping", "carrier"),
        ("evri", "hermes", "dpd", "dhl", "fedex", "yodel", "parcelforce", "gls"),
        "",
    ),
    # Named only (no word or pattern shows one): a line naming one in another language or by another
    # word answers a question naming it ("my mum's name" / "mia mamma Roberta"; ``kinds_linked``'s naming).
    "mother": (("mum", "mom", "mother", "mummy", "mam"), (), ""),
    "father": (("dad", "father", "daddy"), (), ""),
    "rent": (("rent", "rents"), (), ""),
    "alarm": (("alarm", "alarms"), (), ""),
    "birthday": (("birthday", "birthdays", "bday"), (), ""),
}  # fmt: skip

# --- Corrections in the conversation a memory came from (``memories.thread_evidence``) ---
# Words of a person correcting what they said a moment ago, or updating it.
SELF_CORRECTION = (
    r"wrong|wait|hold on|oops|sorry|misread|mistyped|mistake|typo|i meant|flipped|the other way round"
    r"|update|reset"
)
# A thing moved to its new value ("they've pushed me to 9:15", "moving my inspection to April 10",
# "change the winter code to WINTER20"): the value must follow, of the kind the memory holds.
MOVED_TO = r"(?:pushed|moving|moved|changing|change|changed|switching|shifted|bumped)(?: [\w'’]+){0,3} to"
# A change only supposed, asked or wished: nothing happened yet.
TENTATIVE = r"if|should i|thinking (?:about|of)|considering|might|maybe|planning|would|could|hoping|want to"
# Change cues that only say when or how sure ("now", "actually"): no correction on their own.
MARKERS = r"now|actually|in fact|instead|currently|these days|nowadays|right now|rather|after all"
