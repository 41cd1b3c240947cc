"""Fact templates for the retrieval evaluation set.

Each fact is something a user says once, in passing, in one session: ``say`` are ways
of saying it (the answer turn), ``ask`` paraphrased questions that do not repeat the
statement's wording (the first shares a word or a word's stem with some way of saying
it, as most real questions do; the second often shares nothing), ``near`` distractor
turns that share words with the statement but do not answer the question, ``mem`` the
short long-term memory a tool would store.
``{0}``, ``{1}`` are filled from ``values``.
"""

from __future__ import annotations

EN_FACTS: list[dict] = [
    {
        "values": [("dog", "Biscuit"), ("cat", "Luna"), ("rabbit", "Pepper"), ("puppy", "Miso")],
        "say": [
            "We finally adopted a {0} from the shelter last weekend, we named her {1}.",
            "Big news at home: a rescue {0} moved in with us, {1} already owns the sofa.",
        ],
        "ask": ["What is the name of the animal we adopted?", "What did we call our new pet?"],
        "near": [
            "My sister keeps sending me videos of her neighbour's {0}, it's a bit much.",
            "Is it better to adopt from a shelter or go to a breeder, in general?",
        ],
        "mem": "Adopted a rescue {0} named {1}",
    },
    {
        "values": [("A-7781",), ("B-2093",), ("K-5120",), ("Z-0448",)],
        "say": [
            "For the record my order is {0}, the courier keeps asking me for it.",
            "The support ticket wants the order code, it's {0} in case I forget.",
        ],
        "ask": ["What was my order number again?", "Which code identifies my purchase?"],
        "near": ["The courier left a note saying the parcel will be late.", "I ordered pizza twice this week, oops."],
        "mem": "Order number is {0}",
    },
    {
        "values": [("Lisbon",), ("Kyoto",), ("Reykjavik",), ("Cape Town",)],
        "say": [
            "We booked the honeymoon! Ten days in {0} in September.",
            "After months of arguing we settled on {0} for the honeymoon trip.",
        ],
        "ask": ["Where are we going for the honeymoon?", "Which city did we pick for our post-wedding holiday?"],
        "near": [
            "My colleague just came back from a trip and won't stop talking about it.",
            "The wedding venue wants the deposit by Friday.",
        ],
        "mem": "Honeymoon destination: {0}",
    },
    {
        "values": [("peanuts",), ("shellfish",), ("gluten",), ("sesame",)],
        "say": [
            "Heads up, I'm seriously allergic to {0}, I carry an epipen everywhere.",
            "Please remember I react badly to {0}, the last time I ended up in the ER.",
        ],
        "ask": ["Which food do I have to avoid for health reasons?", "What am I allergic to?"],
        "near": [
            "My nephew has a pollen allergy every spring, poor kid.",
            "I tried a new restaurant, the food was great but way too salty.",
        ],
        "mem": "Allergic to {0}",
    },
    {
        "values": [("Toyota Corolla",), ("Honda Civic",), ("Tesla Model 3",), ("Mazda CX-5",)],
        "say": [
            "I finally replaced the old car, I bought a used {0} with low mileage.",
            "Picked up my new ride today, a {0}, silver, nothing fancy.",
        ],
        "ask": ["What car did I buy recently?", "Which car model do I drive now?"],
        "near": [
            "Traffic on the ring road was horrible this morning.",
            "My brother wants to sell his car, but the price is silly.",
        ],
        "mem": "Drives a {0}",
    },
    {
        "values": [("Marco",), ("Priya",), ("Tomasz",), ("Aiko",)],
        "say": [
            "My new manager is called {0}, seems fair so far.",
            "We got a reorg and now I report to {0}.",
        ],
        "ask": ["Who is my manager at work now?", "What's the name of the person I report to?"],
        "near": [
            "The manager of the gym changed the opening hours again.",
            "Work has been hectic, the reorg meetings never end.",
        ],
        "mem": "Reports to a manager named {0}",
    },
    {
        "values": [("marathon",), ("half marathon",), ("triathlon",), ("10k race",)],
        "say": [
            "I signed up for a {0} in April, training starts Monday.",
            "Registered for my first {0} this spring, wish me luck.",
        ],
        "ask": ["What race am I training for?", "Which event did I register for?"],
        "near": ["I watched the race on TV, the finish was incredible.", "My knees hurt after the stairs today."],
        "mem": "Training for a {0} in spring",
    },
    {
        "values": [("Spanish",), ("Japanese",), ("German",), ("Portuguese",)],
        "say": [
            "I've started taking {0} lessons on Tuesday evenings.",
            "New hobby: I'm learning {0} with an online tutor twice a week.",
        ],
        "ask": ["Which language am I taking lessons in?", "What foreign language did I pick up?"],
        "near": [
            "The tutor for my son's maths is expensive but good.",
            "Tuesday evenings are the only quiet time I get.",
        ],
        "mem": "Learning {0}",
    },
    {
        "values": [("14 March",), ("2 July",), ("30 October",), ("9 December",)],
        "say": [
            "My birthday is on {0}, I'm thinking of a small party.",
            "I turn thirty-five on {0}, can't believe it.",
        ],
        "ask": ["When is my birthday?", "On what date do I get a year older?"],
        "near": ["My friend's party was loud, I left early.", "I bought a birthday card for my aunt."],
        "mem": "Birthday: {0}",
    },
    {
        "values": [("oat milk",), ("almond milk",), ("soy milk",), ("coconut milk",)],
        "say": [
            "I switched to {0} in my coffee, dairy was upsetting my stomach.",
            "These days I only put {0} in my latte.",
        ],
        "ask": ["What do I take in my coffee instead of regular dairy?", "Which milk alternative do I use?"],
        "near": ["The coffee machine at the office broke again.", "I read that dairy farms are struggling this year."],
        "mem": "Uses {0} instead of dairy",
    },
    {
        "values": [("blue",), ("forest green",), ("terracotta",), ("mustard yellow",)],
        "say": [
            "We painted the living room {0} over the weekend, it looks great.",
            "The walls of the lounge are {0} now, my partner chose it.",
        ],
        "ask": ["What colour are our living room walls?", "Which paint did we use for the lounge?"],
        "near": ["The paint shop was out of brushes, annoying.", "My neighbour's living room flooded last year."],
        "mem": "Living room painted {0}",
    },
    {
        "values": [("Dune",), ("Middlemarch",), ("The Overstory",), ("Pachinko",)],
        "say": [
            "I'm halfway through {0} for the book club, it's dense but good.",
            "Book club picked {0} this month, I'm enjoying it.",
        ],
        "ask": ["Which novel am I reading for my reading group?", "What book is the club reading?"],
        "near": ["The library closes early on Saturdays now.", "My club meets at a cafe near the station."],
        "mem": "Reading {0} for book club",
    },
    {
        "values": [("Rossi & Partners",), ("Northwind",), ("Globex",), ("Initech",)],
        "say": [
            "I accepted the offer, I'm joining {0} next month.",
            "Signed the contract today, from June I work at {0}.",
        ],
        "ask": ["Which company did I accept an offer from?", "Where is my new job?"],
        "near": ["The job market is weird right now.", "I had a call with a recruiter that went nowhere."],
        "mem": "New job at {0}",
    },
    {
        "values": [("guitar",), ("piano",), ("cello",), ("drums",)],
        "say": [
            "I dusted off my old {0} and I practise every night now.",
            "Been playing the {0} again after ten years, my fingers hurt.",
        ],
        "ask": ["What instrument have I been playing again?", "Which musical instrument do I practise?"],
        "near": ["The concert last night was too loud.", "My downstairs neighbour complains about noise at night."],
        "mem": "Plays the {0}",
    },
    {
        "values": [("Dr. Patel",), ("Dr. Moreau",), ("Dr. Okafor",), ("Dr. Lindqvist",)],
        "say": [
            "My new GP is {0}, she actually listens.",
            "Switched doctors, I'm seeing {0} from now on.",
        ],
        "ask": ["Who is my new doctor?", "Who is my physician?"],
        "near": ["The clinic's waiting room was packed.", "I keep forgetting to book the dentist."],
        "mem": "GP is {0}",
    },
    {
        "values": [("sourdough",), ("kimchi",), ("kombucha",), ("pickles",)],
        "say": [
            "I've got into fermenting, my first batch of {0} came out well.",
            "Weekend project: homemade {0}, the kitchen smells funny.",
        ],
        "ask": ["What have I been making at home lately?", "What was the fermentation project?"],
        "near": ["The kitchen tap is leaking again.", "I bought bread at the market, overpriced."],
        "mem": "Makes homemade {0}",
    },
    {
        "values": [("3 bedrooms",), ("2 bedrooms",), ("a loft",), ("a studio",)],
        "say": [
            "We found a flat, {0}, close to the park, moving in on the first.",
            "The new apartment has {0} and a tiny balcony.",
        ],
        "ask": ["How many bedrooms does the new flat have?", "What kind of home did we rent?"],
        "near": ["The park was full of kids today.", "Rents in this city are insane."],
        "mem": "New flat: {0} near the park",
    },
    {
        "values": [("chess",), ("bouldering",), ("pottery",), ("salsa dancing",)],
        "say": [
            "Thursday nights are for {0} now, I joined a club.",
            "I started {0} classes with a friend, it's addictive.",
        ],
        "ask": ["What activity do I do on Thursday evenings?", "Which hobby class did I join?"],
        "near": ["My friend cancelled dinner on Thursday.", "The club downstairs plays music until late."],
        "mem": "Does {0} on Thursdays",
    },
    {
        "values": [("vegetarian",), ("vegan",), ("pescatarian",), ("keto",)],
        "say": [
            "I went {0} two months ago and I feel better.",
            "Since the new year I eat {0}, mostly.",
        ],
        "ask": ["What do I eat these days?", "How did I change my eating habits?"],
        "near": ["I feel tired after lunch most days.", "The new year party was fun."],
        "mem": "Follows a {0} diet",
    },
    {
        "values": [("Emma",), ("Noah",), ("Sofia",), ("Leo",)],
        "say": [
            "My daughter {0} starts school in September, she's excited.",
            "{0}, my youngest, lost her first tooth today.",
        ],
        "ask": ["What is my daughter's name?", "What's my kid called?"],
        "near": ["School fees went up again.", "My colleague's son had a tooth infection."],
        "mem": "Child named {0}",
    },
    {
        "values": [("Mondays",), ("Wednesdays",), ("Fridays",), ("Tuesdays",)],
        "say": [
            "I work from home on {0}, the office is empty anyway.",
            "Remote day for me is {0}, no commute.",
        ],
        "ask": ["Which day do I work from home?", "When do I skip the commute?"],
        "near": ["The office coffee is terrible.", "The commute took an hour because of the strike."],
        "mem": "Works from home on {0}",
    },
    {
        "values": [("Netflix",), ("Disney+",), ("HBO Max",), ("Apple TV",)],
        "say": [
            "I cancelled everything except {0}, too many subscriptions.",
            "We only keep {0} now, saving a bit each month.",
        ],
        "ask": ["Which subscription did I keep?", "Which streaming service do I still pay for?"],
        "near": ["There's nothing good to watch lately.", "My monthly bills are a mess."],
        "mem": "Subscribes only to {0}",
    },
    {
        "values": [("Crete",), ("the Dolomites",), ("Scotland",), ("Patagonia",)],
        "say": [
            "Next summer I want to go hiking in {0}, I started planning routes.",
            "I'm saving up for a trekking holiday in {0}.",
        ],
        "ask": ["Where do I want to go hiking?", "What's my trekking destination?"],
        "near": ["I bought new boots, they are stiff.", "Summer plans with the family are complicated."],
        "mem": "Plans hiking in {0}",
    },
    {
        "values": [("insomnia",), ("migraines",), ("back pain",), ("tendinitis",)],
        "say": [
            "I've been dealing with {0} for weeks, the doctor suggested physio.",
            "The {0} is back, I barely function some days.",
        ],
        "ask": ["What health issue am I dealing with?", "What condition is bothering me?"],
        "near": ["My physio friend opened her own practice.", "I had a slow day at work, nothing happened."],
        "mem": "Suffers from {0}",
    },
    {
        "values": [("2,400 euros",), ("1,850 euros",), ("3,100 euros",), ("950 euros",)],
        "say": [
            "The roof repair quote came in at {0}, ouch.",
            "The builder wants {0} to fix the roof.",
        ],
        "ask": ["How much will fixing the top of the house cost?", "What was the price they quoted for the repairs?"],
        "near": ["It rained all night, the gutters overflowed.", "My builder friend is busy until May."],
        "mem": "Roof repair quote: {0}",
    },
]

EN_ASSISTANT_FACTS: list[dict] = [
    {
        "values": [("The Lantern",), ("Osteria Blu",), ("Kanpai",), ("El Patio",)],
        "say": ["For a quiet anniversary dinner I'd suggest {0}: candlelit tables and a short seasonal menu."],
        "user": "Any idea where to take my partner for our anniversary?",
        "ask": [
            "Which restaurant did you recommend for the anniversary?",
            "What place did you suggest for our dinner?",
        ],
        "near": ["Our anniversary is coming up and I have no ideas.", "Dinner yesterday was cold and late."],
        "mem": "Anniversary dinner suggestion: {0}",
    },
    {
        "values": [("Pomodoro",), ("time blocking",), ("Getting Things Done",), ("Eisenhower matrix",)],
        "say": ["You could try the {0} method: it's simple and keeps focus on one thing at a time."],
        "user": "I keep procrastinating, any technique to stay focused?",
        "ask": ["What productivity method did you propose to me?", "Which focus technique was suggested?"],
        "near": ["I procrastinated the whole afternoon again.", "My focus is better in the morning."],
        "mem": "Suggested focus method: {0}",
    },
]

IT_FACTS: list[dict] = [
    {
        "values": [("cane", "Birillo"), ("gatto", "Micio"), ("coniglio", "Fiocco")],
        "say": [
            "Abbiamo adottato un {0} dal canile, si chiama {1}.",
            "Novità: in casa c'è un {0} nuovo, l'abbiamo chiamato {1}.",
        ],
        "ask": ["Come si chiama l'animale che abbiamo preso?", "Che nome abbiamo dato al nostro nuovo animale?"],
        "near": ["Il {0} dei vicini abbaia tutta la notte.", "Mia sorella vuole un animale ma vive in un monolocale."],
        "mem": "Ha adottato un {0} di nome {1}",
    },
    {
        "values": [("A-7781",), ("C-3310",), ("M-9024",)],
        "say": [
            "Il codice del mio ordine è {0}, il corriere me lo chiede sempre.",
            "Segnati che l'ordine è il numero {0}.",
        ],
        "ask": ["Qual era il numero del mio acquisto?", "Che codice ha la mia ordinazione?"],
        "near": [
            "Il corriere ha lasciato un avviso, pacco in ritardo.",
            "Ho ordinato la pizza due volte questa settimana.",
        ],
        "mem": "Numero d'ordine {0}",
    },
    {
        "values": [("Lisbona",), ("Tokyo",), ("Atene",)],
        "say": [
            "Abbiamo prenotato il viaggio di nozze: dieci giorni a {0}.",
            "Alla fine per la luna di miele abbiamo scelto {0}.",
        ],
        "ask": ["Dove andiamo dopo il matrimonio?", "Quale città abbiamo scelto per la luna di miele?"],
        "near": ["Il matrimonio di mio cugino è stato lunghissimo.", "Il viaggio in treno è stato un incubo."],
        "mem": "Viaggio di nozze a {0}",
    },
    {
        "values": [("arachidi",), ("crostacei",), ("glutine",)],
        "say": [
            "Ricordati che sono allergico alle {0}, porto sempre l'adrenalina.",
            "Ho una brutta allergia: niente {0} per me.",
        ],
        "ask": ["Quale cibo devo evitare per la salute?", "A cosa sono allergico?"],
        "near": ["Mio nipote ha l'allergia al polline in primavera.", "Il ristorante nuovo era buono ma salato."],
        "mem": "Allergico a {0}",
    },
    {
        "values": [("Fiat Panda",), ("Toyota Yaris",), ("Volkswagen Golf",)],
        "say": [
            "Ho cambiato macchina, ho comprato una {0} usata.",
            "Oggi ho ritirato l'auto nuova, una {0} grigia.",
        ],
        "ask": ["Che veicolo ho acquistato?", "Quale modello di auto guido adesso?"],
        "near": ["Il traffico in tangenziale era terribile.", "Mio fratello vende la sua auto a un prezzo assurdo."],
        "mem": "Guida una {0}",
    },
    {
        "values": [("spagnolo",), ("giapponese",), ("tedesco",)],
        "say": [
            "Ho cominciato un corso di {0} il martedì sera.",
            "Nuovo hobby: studio {0} con un insegnante online.",
        ],
        "ask": ["Quale lingua sto studiando?", "Che lingua sto imparando?"],
        "near": ["L'insegnante di matematica di mio figlio è bravo.", "Il martedì sera è l'unico momento libero."],
        "mem": "Studia {0}",
    },
    {
        "values": [("14 marzo",), ("2 luglio",), ("30 ottobre",)],
        "say": [
            "Il mio compleanno è il {0}, pensavo a una piccola festa.",
            "Compio gli anni il {0}, non ci credo.",
        ],
        "ask": ["Quando è il mio compleanno?", "In che giorno compio gli anni?"],
        "near": ["La festa del mio amico era troppo rumorosa.", "Ho comprato un biglietto d'auguri per la zia."],
        "mem": "Compleanno il {0}",
    },
    {
        "values": [("Marco",), ("Giulia",), ("Luca",)],
        "say": [
            "Il mio nuovo responsabile si chiama {0}, sembra in gamba.",
            "Dopo la riorganizzazione il mio capo è {0}.",
        ],
        "ask": ["Come si chiama il mio responsabile?", "Chi è il mio superiore al lavoro?"],
        "near": [
            "Il responsabile della palestra ha cambiato gli orari.",
            "Le riunioni sulla riorganizzazione non finiscono mai.",
        ],
        "mem": "Il suo responsabile è {0}",
    },
    {
        "values": [("vegetariano",), ("vegano",), ("senza glutine",)],
        "say": [
            "Da due mesi mangio {0} e mi sento meglio.",
            "Dall'inizio dell'anno seguo una dieta da {0}.",
        ],
        "ask": ["Che dieta seguo?", "Come ho cambiato le mie abitudini alimentari?"],
        "near": ["Dopo pranzo sono sempre stanco.", "La festa di capodanno è stata divertente."],
        "mem": "Mangia {0}",
    },
    {
        "values": [("Creta",), ("le Dolomiti",), ("la Scozia",)],
        "say": [
            "La prossima estate voglio fare trekking in {0}, sto già studiando i percorsi.",
            "Sto risparmiando per una vacanza a piedi in {0}.",
        ],
        "ask": ["Dove voglio camminare in montagna l'anno prossimo?", "Qual è la meta del mio trekking?"],
        "near": ["Ho comprato scarponi nuovi, sono rigidi.", "I programmi estivi con la famiglia sono complicati."],
        "mem": "Vuole fare trekking in {0}",
    },
]
