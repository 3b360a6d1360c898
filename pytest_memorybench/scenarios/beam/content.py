"""The words and sentences the BEAM-shaped generator writes with (all written for this project).

A generated chat follows one user through a project in one domain, over dated sessions, as
BEAM's chats do (paper §2.2, App. B.3): a profile, people around them, a project with phases, and
the user's questions answered at length by the assistant.  Facts for the ten abilities are planted
into that chat (`generator.py`); everything else is filler written from the pools below.

A domain (`Domain`) supplies what its planted facts and filler talk about; the profile pools,
life events, instructions and preferences are shared by every domain.  Planted facts must never be
echoed by filler, so filler draws only on `topics` and `advice`, which name no phase, number or
person.
"""

from __future__ import annotations

from dataclasses import dataclass

FIRST_NAMES = (
    "Aino", "Bastian", "Carmen", "Dario", "Elif", "Florin", "Greta", "Hamid", "Ilse", "Jonas", "Kirra",
    "Lorenzo", "Marit", "Nadia", "Oskar", "Priya", "Quentin", "Rosa", "Soren", "Tamsin", "Ulrich", "Vera",
    "Wendell", "Xenia", "Yusuf", "Zora",
)  # fmt: skip
LAST_NAMES = (
    "Albrecht", "Brennan", "Castillo", "Dalgaard", "Esposito", "Fairweather", "Gallo", "Holm", "Ibsen",
    "Jankowski", "Kowalczyk", "Lindqvist", "Moreau", "Novak", "Okafor", "Pellegrini", "Quist", "Rask",
    "Sandoval", "Thorsen", "Urquhart", "Varga", "Whitlock", "Zamora",
)  # fmt: skip
CITIES = (
    "Aarhus", "Bilbao", "Cork", "Dresden", "Eindhoven", "Ghent", "Graz", "Krakow", "Lyon", "Porto",
    "Tampere", "Trieste", "Utrecht", "Valencia",
)  # fmt: skip
PROFESSIONS = (
    "school librarian", "hospital pharmacist", "bus driver", "civil engineer", "pastry chef",
    "museum guide", "insurance analyst", "physiotherapist", "sound technician", "florist",
)  # fmt: skip
PET_NAMES = ("Pepper", "Biscuit", "Juniper", "Mochi", "Tofu", "Olive", "Pickle", "Sage")
PLACES = ("the Dolomites", "the Algarve coast", "Lake Bled", "the Scottish Highlands", "Bruges", "Ljubljana")
# Never-versus-did pairs for the second contradiction question ({place} fills in).
CONTRADICTIONS = (
    (
        "I have never been to {place} in my life.",
        "When I was in {place} a few years ago, the food was wonderful.",
        "been to {place}",
        "visiting {place} a few years ago",
    ),
    (
        "I have never been to {place}, not even for a day.",
        "I remember walking around {place} on a rainy afternoon a while back.",
        "been to {place}",
        "walking around {place} on a rainy afternoon",
    ),
)
# Topics the chats never touch: abstention questions ask about them.
NEVER_DISCUSSED = (
    ("my dentist", "the new braces"),
    ("my landlord", "the rent increase"),
    ("my driving instructor", "the parallel parking test"),
    ("the tax adviser", "the property tax form"),
    ("my choir director", "the spring concert"),
    ("the vet", "the cat's vaccination schedule"),
)


@dataclass(frozen=True)
class Phase:
    """A stage of the project: its short label (event ordering), what the user says when it
    starts, and the clause a summary should contain."""

    label: str
    said: str
    summary: str


@dataclass(frozen=True)
class Measure:
    """A number the user states about the project: `unit` formats it ("{n} euros")."""

    name: str
    unit: str
    low: int
    high: int


@dataclass(frozen=True)
class Domain:
    """A project domain of our generated BEAM chats: its phases, measures and milestones."""

    key: str
    project: str  # "{name}" is the project's name
    names: tuple[str, ...]
    phases: tuple[Phase, ...]
    measures: tuple[Measure, ...]
    tally: tuple[str, str]  # (the question about a count, how a part of it is said: "{n}" is the number)
    kinds: tuple[str, tuple[str, ...]]  # (a category, its members) for the multi-session list
    tool: tuple[str, str]  # (a tool, what the user once used it for) for the contradiction
    milestones: tuple[str, str]  # two events for the days-between question, in order
    deadline: str  # what must be done by a date
    plan_task: str  # what a plan is asked for (instruction following)
    costly: str  # what a price is asked for
    options: tuple[str, str]  # two options to compare
    topics: tuple[str, ...]  # filler: things the user asks about
    advice: tuple[str, ...]  # filler: sentences the assistant builds answers from ("{topic}")


DOMAINS: tuple[Domain, ...] = (
    Domain(
        key="software",
        project="{name}, a small web app for sharing family recipes",
        names=("Potluck", "Saucebook", "Crumbtrail", "Kitchenlog", "Simmer"),
        phases=(
            Phase(
                "Database schema design",
                "I'm starting on the database schema today: recipes, ingredients and users each get a table.",
                "you began by designing the database schema for recipes, ingredients and users",
            ),
            Phase(
                "User sign-up and login",
                "Next up is user sign-up and login, with email confirmation.",
                "you built user sign-up and login with email confirmation",
            ),
            Phase(
                "Recipe search",
                "Now I want to build the recipe search so people can find dishes by ingredient.",
                "you added a recipe search by ingredient",
            ),
            Phase(
                "Photo uploads",
                "I'm moving on to photo uploads so every recipe can have a picture.",
                "you implemented photo uploads for recipes",
            ),
            Phase(
                "Shopping list export",
                "The shopping list export is my next piece of work: it turns a recipe into a printable list.",
                "you added a shopping list export",
            ),
            Phase(
                "Accessibility review",
                "I'm doing an accessibility review of every page this week.",
                "you ran an accessibility review of the pages",
            ),
            Phase(
                "Performance tuning",
                "Time for performance tuning; some pages take far too long to load.",
                "you tuned performance on slow pages",
            ),
            Phase(
                "Deployment pipeline",
                "I'm setting up the deployment pipeline so releases go out automatically.",
                "you set up an automatic deployment pipeline",
            ),
            Phase(
                "Beta tester feedback",
                "The beta tester feedback is coming in and I'm sorting it into themes.",
                "you sorted the beta tester feedback into themes",
            ),
            Phase(
                "Public launch preparation",
                "I'm preparing the public launch: landing page, announcement and support inbox.",
                "you prepared the public launch with a landing page and a support inbox",
            ),
        ),
        measures=(
            Measure("monthly hosting budget", "{n} euros", 18, 95),
            Measure("target page load time", "{n} milliseconds", 180, 900),
            Measure("number of beta testers", "{n} testers", 12, 60),
            Measure("maximum photo size", "{n} kilobytes", 300, 2400),
        ),
        tally=(
            "how many test recipes did I enter into the staging site",
            "I entered {n} test recipes into the staging site",
        ),
        kinds=(
            "charting libraries",
            ("Chart.js", "Plotly", "ECharts", "Recharts", "Vega-Lite", "ApexCharts"),
        ),
        tool=("Docker", "to package a small weather dashboard"),
        milestones=("deployed the first preview version", "received the first bug report from a tester"),
        deadline="the recipe search",
        plan_task="migrating the app to a newer framework version",
        costly="a year of hosting with daily backups",
        options=("a relational database", "a document database"),
        topics=(
            "form validation",
            "error pages",
            "session cookies",
            "unit tests",
            "image compression",
            "database indexes",
            "caching headers",
            "logging",
            "code reviews",
            "dependency updates",
            "API versioning",
            "background jobs",
            "password hashing",
            "mobile layouts",
        ),
        advice=(
            "With {topic}, it pays to start from the smallest version that works and grow it.",
            "Write down what you expect {topic} to do before you write any code for it.",
            "A common mistake with {topic} is to handle the happy path only; list the failure cases too.",
            "Keep the configuration for {topic} in one place so you can change it without hunting.",
            "Test {topic} with real data from your app, not only with tidy examples.",
            "If {topic} starts to feel complicated, split it into two smaller pieces.",
            "Measure before and after you change {topic}, so you know the change helped.",
            "Document the decision you made about {topic} in a short note next to the code.",
            (
                "Most frameworks have a well-trodden way to do {topic}; follow it unless you have a reason"
                " not to."
            ),
            "For {topic}, automated checks catch regressions long before your users do.",
            "Review {topic} again once the rest of the feature settles; early choices often need a tweak.",
            "Ask a friend to try the part of the app that depends on {topic} and watch where they hesitate.",
        ),
    ),
    Domain(
        key="renovation",
        project="the renovation of {name}, my two-room flat",
        names=("the Harbour Street flat", "the flat on Linden Row", "the attic flat", "the corner flat"),
        phases=(
            Phase(
                "Stripping old wallpaper",
                "Today I start stripping the old wallpaper in both rooms.",
                "you started by stripping the old wallpaper",
            ),
            Phase(
                "Rewiring the kitchen",
                "The electrician and I are rewiring the kitchen this week.",
                "you had the kitchen rewired",
            ),
            Phase(
                "Replacing the windows",
                "We're replacing the windows with double glazing now.",
                "you replaced the windows with double glazing",
            ),
            Phase(
                "Sanding the floorboards",
                "Next I'm sanding the floorboards in the living room.",
                "you sanded the living room floorboards",
            ),
            Phase(
                "Tiling the bathroom",
                "I'm tiling the bathroom walls, white tiles with grey grout.",
                "you tiled the bathroom in white with grey grout",
            ),
            Phase(
                "Painting the bedroom",
                "The bedroom is getting painted this week, a soft green.",
                "you painted the bedroom a soft green",
            ),
            Phase(
                "Fitting kitchen cabinets",
                "I'm fitting the new kitchen cabinets now.",
                "you fitted the new kitchen cabinets",
            ),
            Phase(
                "Installing shelves",
                "I'm installing built-in shelves in the hallway.",
                "you installed built-in shelves in the hallway",
            ),
            Phase(
                "Garden balcony planting",
                "I'm planting the balcony with herbs and climbing roses.",
                "you planted the balcony with herbs and roses",
            ),
            Phase(
                "Final cleaning and inspection",
                "It's time for the final cleaning and the inspection with the building manager.",
                "you finished with a final cleaning and an inspection",
            ),
        ),
        measures=(
            Measure("total renovation budget", "{n} euros", 9000, 28000),
            Measure("floor area of the living room", "{n} square metres", 14, 38),
            Measure("number of days the builder quoted", "{n} days", 12, 75),
            Measure("ceiling height", "{n} centimetres", 238, 310),
        ),
        tally=("how many tins of paint did I buy", "I bought {n} tins of paint"),
        kinds=(
            "flooring samples",
            ("oak parquet", "cork tiles", "linoleum", "bamboo planks", "terracotta", "polished concrete"),
        ),
        tool=("a tile cutter", "to redo my parents' bathroom floor"),
        milestones=("got the keys back from the builder", "passed the electrical inspection"),
        deadline="the bathroom tiling",
        plan_task="repainting a room with a dark wall colour",
        costly="replacing all the interior doors",
        options=("engineered wood flooring", "vinyl flooring"),
        topics=(
            "damp walls",
            "choosing paint finishes",
            "sealing grout",
            "drilling into concrete",
            "moving radiators",
            "noise insulation",
            "skirting boards",
            "door hinges",
            "light fittings",
            "extractor fans",
            "silicone sealant",
            "storage ideas",
            "waste disposal",
            "dust protection",
        ),
        advice=(
            (
                "For {topic}, protect everything nearby before you start; cleaning up costs more time than"
                " covering."
            ),
            "Buy a little more material than you need for {topic}; batches can differ slightly.",
            "With {topic}, check the manufacturer's drying or curing times and do not rush them.",
            "Take photos before you begin {topic} so you can see how things were put together.",
            "A small test patch tells you more about {topic} than any catalogue picture.",
            "If {topic} involves anything structural or electrical, ask a qualified person to check it.",
            "Good light makes {topic} far easier; bring a work lamp even in daytime.",
            "Keep a notebook of measurements for {topic}; you will need them again.",
            "Rent the proper tool for {topic} rather than improvising with the wrong one.",
            "Ventilate the room while you work on {topic}, and take regular breaks.",
            "Plan {topic} so the messy work happens before the finishing work.",
            "Ask the neighbours about {topic}; someone in the building has usually done it before.",
        ),
    ),
    Domain(
        key="running",
        project="{name}, my plan to run my first half marathon",
        names=("the spring half marathon", "the river half marathon", "the city half marathon"),
        phases=(
            Phase(
                "Building an aerobic base",
                "This week I'm just building an aerobic base with easy runs.",
                "you began by building an aerobic base with easy runs",
            ),
            Phase(
                "Buying proper running shoes",
                "I went to get proper running shoes fitted today.",
                "you had proper running shoes fitted",
            ),
            Phase(
                "Adding a weekly long run",
                "I'm adding a weekly long run on Sundays from now on.",
                "you added a weekly long run on Sundays",
            ),
            Phase(
                "Strength training for the legs",
                "I'm starting strength training for my legs twice a week.",
                "you started leg strength training twice a week",
            ),
            Phase(
                "Interval sessions",
                "Interval sessions on the track start this week.",
                "you began interval sessions on the track",
            ),
            Phase(
                "Fixing my nutrition",
                "I'm sorting out my nutrition, especially breakfast before long runs.",
                "you worked on your nutrition before long runs",
            ),
            Phase(
                "Recovering from a calf strain",
                "I strained my calf and I'm focusing on recovery for a while.",
                "you recovered from a calf strain",
            ),
            Phase(
                "Race-pace practice",
                "Now I'm practising running at race pace.",
                "you practised running at race pace",
            ),
            Phase(
                "Tapering",
                "Tapering starts now: shorter runs and more sleep.",
                "you tapered with shorter runs and more sleep",
            ),
            Phase(
                "Race-day logistics",
                "I'm sorting out race-day logistics: bib pickup, transport and kit.",
                "you planned race-day logistics",
            ),
        ),
        measures=(
            Measure("target finishing time", "{n} minutes", 105, 150),
            Measure("weekly distance", "{n} kilometres", 18, 55),
            Measure("resting heart rate", "{n} beats per minute", 48, 72),
            Measure("race entry fee", "{n} euros", 25, 80),
        ),
        tally=("how many energy gels did I buy", "I bought {n} energy gels"),
        kinds=(
            "running routes",
            (
                "the canal towpath",
                "the park loop",
                "the hill circuit",
                "the forest trail",
                "the harbour promenade",
                "the old railway line",
            ),
        ),
        tool=("a heart rate monitor", "during a cycling holiday"),
        milestones=("ran ten kilometres without stopping", "finished my first eighteen-kilometre run"),
        deadline="the first fifteen-kilometre run",
        plan_task="getting back to running after a week of illness",
        costly="a season of physiotherapy sessions",
        options=("running in the morning", "running in the evening"),
        topics=(
            "warming up",
            "cooling down",
            "stretching",
            "breathing rhythm",
            "cadence",
            "running in rain",
            "hydration",
            "sleep",
            "rest days",
            "blisters",
            "side stitches",
            "hill technique",
            "treadmill runs",
            "running form",
        ),
        advice=(
            "With {topic}, small consistent changes beat big sudden ones.",
            "Pay attention to how your body responds to {topic} over a few weeks, not a single day.",
            "Many runners overthink {topic}; keep it simple and repeatable.",
            "If {topic} ever causes sharp pain, stop and get it looked at.",
            "Try one change to {topic} at a time so you know what made the difference.",
            "Write a line about {topic} in your training log after each run.",
            "Experienced runners in your club will have tips on {topic}; ask them.",
            "For {topic}, comfort and habit matter more than the perfect method.",
            "Practise {topic} in training before you rely on it on race day.",
            "Easy days make {topic} easier on hard days.",
            "Give {topic} a few weeks before you judge whether it works for you.",
            "Weather changes how {topic} feels; adjust rather than push through.",
        ),
    ),
)


@dataclass(frozen=True)
class LifeEvent:
    """Something in the user's life outside the project ({friend}, {partner}, {pet}, {place})."""

    label: str
    said: str
    summary: str


LIFE_EVENTS = (
    LifeEvent(
        "Helping {friend} move",
        "I spent the whole day helping {friend} move into a new flat.",
        "you helped {friend} move into a new flat",
    ),
    LifeEvent(
        "Adopting a cat",
        "Big news: {partner} and I adopted a rescue cat called {pet}.",
        "you and {partner} adopted a rescue cat called {pet}",
    ),
    LifeEvent(
        "Weekend trip",
        "{partner} and I took a weekend trip to {place}.",
        "you took a weekend trip to {place}",
    ),
    LifeEvent(
        "Pottery class", "I signed up for an evening pottery class.", "you started an evening pottery class"
    ),
    LifeEvent(
        "Charity run with {friend}",
        "{friend} and I did a charity fun run for the local food bank.",
        "you did a charity fun run with {friend}",
    ),
    LifeEvent(
        "Birthday dinner for {partner}",
        "I cooked a birthday dinner for {partner} last night.",
        "you cooked a birthday dinner for {partner}",
    ),
    LifeEvent(
        "Visiting {colleague}'s allotment",
        "{colleague} showed me around their allotment; I came home with a bag of courgettes.",
        "you visited {colleague}'s allotment",
    ),
    LifeEvent(
        "Learning to sail", "I had my first sailing lesson on the lake.", "you had your first sailing lesson"
    ),
)


@dataclass(frozen=True)
class Standing:
    """A standing instruction or a stated preference, the later request it governs, the rubric a
    reply to that request is judged by, and a compliant reply (what the calibration oracle says).
    In instructions {plan_task}, {costly}, {option_a} and {option_b} fill in; in preferences
    {project_short}."""

    said: str
    request: str
    rubric: tuple[str, ...]
    answer: str


INSTRUCTIONS = (
    Standing(
        "From now on, whenever I ask you how to do something, answer with numbered steps.",
        "How should I go about {plan_task}?",
        ("LLM response should contain: numbered steps",),
        "Here are the numbered steps:\n1. Check where you are now.\n2. Make a short plan for {plan_task}.\n3."
        " Do the first small part and review it.",
    ),
    Standing(
        "Whenever you mention a price, please give it in euros.",
        "Roughly what would {costly} cost me?",
        ("LLM response should contain: prices given in euros",),
        "Prices given in euros: {costly} would be somewhere around 600 to 900 euros, depending on where you"
        " buy.",
    ),
    Standing(
        "When I ask you to compare options, always list the pros and cons of each option.",
        "Should I go for {option_a} or {option_b}?",
        ("LLM response should contain: pros and cons for each option",),
        "Pros and cons for each option: {option_a} - pros: familiar and flexible; cons: more upkeep."
        " {option_b} - pros: quick to start; cons: harder to change later.",
    ),
    Standing(
        "Please end every answer about my schedule with a one-sentence summary that starts with 'In short'.",
        "Can you help me fit {plan_task} into my schedule next week?",
        ("LLM response should contain: a closing summary that starts with 'In short'",),
        "Put it on two weekday evenings and keep Saturday morning free as a buffer.\nIn short (the closing"
        " summary you asked me to start this way): two evenings plus a Saturday buffer.",
    ),
)


PREFERENCES = (
    Standing(
        "I'm vegetarian, so I never want meat suggested to me.",
        "What should I cook for a small dinner to celebrate finishing {project_short}?",
        ("LLM response should contain: suggests a vegetarian dish", "LLM response should not mention: meat"),
        "I suggest a vegetarian dish: a mushroom and leek risotto with a lemony green salad.",
    ),
    Standing(
        "I prefer free, open-source tools over paid subscriptions whenever possible.",
        "Which app could I use to keep track of my tasks for {project_short}?",
        (
            "LLM response should contain: suggests a free open-source tool",
            "LLM response should not mention: a paid subscription",
        ),
        "I suggest a free open-source tool such as a plain-text task list kept in a notes app you already"
        " have.",
    ),
    Standing(
        "I like short answers: three sentences at most, no long introductions.",
        "Any tips for staying motivated with {project_short}?",
        ("LLM response should contain: a short answer of at most three sentences",),
        "A short answer in three sentences: set one small goal per week. Tick it off somewhere visible."
        " Reward yourself at the end of each month.",
    ),
    Standing(
        "I'd rather travel by train than fly whenever a trip can be done in a day.",
        "How should I travel to the meet-up in the next city over?",
        (
            "LLM response should contain: suggests travelling by train",
            "LLM response should not mention: flying",
        ),
        "I suggest travelling by train: it is a short ride, and you can read on the way.",
    ),
)

# Filler: how the user opens a question, and how the assistant opens and closes an answer.
USER_OPENERS = (
    "Quick question about {topic} for {project_short}.",
    "I've been reading about {topic} and I'm a bit lost.",
    "Could we go over {topic} again?",
    "Something came up with {topic} today.",
    "I keep going back and forth on {topic}.",
    "A friend mentioned {topic} and now I'm curious.",
)
USER_ASKS = (
    "What should I keep in mind?",
    "How would you approach it?",
    "Where do people usually go wrong?",
    "What would you do first?",
    "Is there a simple rule of thumb?",
    "How much effort is it worth at this stage?",
)
ANSWER_OPENERS = (
    "Good question; {topic} is worth getting right early.",
    "Here is how I would think about {topic}.",
    "Let's break {topic} down into a few parts.",
    "There is no single answer for {topic}, but a few habits help a lot.",
)
ANSWER_CLOSERS = (
    "Would you like me to go deeper into any of these points?",
    "Tell me how it goes and we can adjust.",
    "If you share more details, I can make this more specific.",
    "We can come back to this once you have tried it.",
)
ACKNOWLEDGEMENTS = (
    "Thanks for letting me know; I'll keep that in mind.",
    "Noted. That helps me tailor the next suggestions.",
    "Got it, I've made a note of that.",
    "Understood. I'll take that into account from now on.",
)
