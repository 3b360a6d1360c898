"""Our own vocabulary for the user's relation graph (MemBench App. A.1 names the attribute kinds).

The paper's profiles hold people (the user, relatives, colleagues) with gender, name, age,
height, birthday, hometown, work location, education, occupation, position, company, hobby,
character, phone and email; work and leisure events with type, content, location, time, name,
scale and duration; items and places the user owns or visited.  The kinds come from the paper;
every list below is written for this project.  Person and company names come from Faker
(`graph.py`).  Cities are real US cities: a question such as "Where does my aunt work?" reads
naturally with them, and a place is a fact, not content.

No entry contains a comma or a question mark: options are joined with ", " in list answers, and
the `recall` baseline takes any message with "?" for a question and does not store it.
"""

from __future__ import annotations

# (relation, gender): the people around the user.
RELATIVES: tuple[tuple[str, str], ...] = (
    ("brother", "male"), ("sister", "female"), ("cousin", "male"), ("cousin", "female"),
    ("niece", "female"), ("nephew", "male"), ("uncle", "male"), ("aunt", "female"),
    ("grandmother", "female"), ("grandfather", "male"), ("stepbrother", "male"), ("stepsister", "female"),
    ("brother-in-law", "male"), ("sister-in-law", "female"),
)  # fmt: skip
COLLEAGUES: tuple[tuple[str, str], ...] = (
    ("boss", "male"), ("boss", "female"), ("coworker", "male"), ("coworker", "female"),
    ("subordinate", "male"), ("subordinate", "female"), ("mentor", "female"), ("mentor", "male"),
    ("team lead", "female"), ("intern", "male"),
)  # fmt: skip

CITIES: tuple[str, ...] = (
    "Boston, MA", "Denver, CO", "Austin, TX", "Portland, OR", "Seattle, WA", "Chicago, IL", "Atlanta, GA",
    "Phoenix, AZ", "Nashville, TN", "Madison, WI", "Raleigh, NC", "Tucson, AZ", "Omaha, NE", "Boise, ID",
    "Richmond, VA", "Albany, NY", "Savannah, GA", "Spokane, WA", "Des Moines, IA", "Burlington, VT",
    "Santa Fe, NM", "Anchorage, AK", "Honolulu, HI", "Louisville, KY", "Providence, RI", "Charleston, SC",
    "Duluth, MN", "Fresno, CA", "Lexington, KY", "Tulsa, OK", "Reno, NV", "Provo, UT",
)  # fmt: skip

EDUCATION: tuple[str, ...] = (
    "high school diploma",
    "associate degree",
    "bachelor's degree",
    "master's degree",
    "doctorate",
    "vocational certificate",
    "law degree",
    "medical degree",
)

# occupation -> positions someone in it may hold
OCCUPATIONS: dict[str, tuple[str, ...]] = {
    "nurse": ("charge nurse", "ward nurse", "clinic nurse"),
    "electrician": ("maintenance electrician", "site supervisor", "apprentice electrician"),
    "software engineer": ("backend developer", "tech lead", "site reliability engineer"),
    "teacher": ("head of science", "year five teacher", "music teacher"),
    "accountant": ("audit senior", "payroll specialist", "tax adviser"),
    "architect": ("project architect", "design director", "junior architect"),
    "chef": ("sous chef", "pastry chef", "head chef"),
    "pharmacist": ("hospital pharmacist", "store pharmacist", "clinical pharmacist"),
    "police officer": ("patrol officer", "desk sergeant", "community liaison officer"),
    "graphic designer": ("art director", "brand designer", "layout artist"),
    "civil engineer": ("bridge inspector", "structural engineer", "site engineer"),
    "librarian": ("archivist", "children's librarian", "reference librarian"),
    "paramedic": ("crew lead", "flight paramedic", "dispatch trainer"),
    "journalist": ("city reporter", "copy editor", "sports writer"),
    "dentist": ("orthodontist", "practice owner", "dental surgeon"),
    "marketing manager": ("brand manager", "campaign lead", "head of growth"),
    "carpenter": ("joiner", "cabinet maker", "site foreman"),
    "veterinarian": ("small animal vet", "equine vet", "clinic director"),
    "lawyer": ("associate", "partner", "in-house counsel"),
    "lab technician": ("quality analyst", "sample coordinator", "lab manager"),
}

# hobby -> what someone with it likes doing (the answer of a post-processing question)
HOBBIES: dict[str, str] = {
    "collecting antiques": "hunting down old objects and learning their history",
    "rock climbing": "scaling walls and cliffs with ropes and chalk",
    "birdwatching": "spotting and identifying wild birds outdoors",
    "baking bread": "kneading dough and turning out fresh loaves",
    "playing chess": "thinking several moves ahead in a board game of strategy",
    "gardening": "growing flowers and vegetables in the soil",
    "long-distance running": "covering many miles on foot for endurance",
    "knitting": "making scarves and sweaters out of yarn",
    "photography": "capturing scenes and people with a camera",
    "woodworking": "building furniture by cutting and joining timber",
    "sailing": "steering small boats with the wind",
    "playing the cello": "practising pieces on a large bowed string instrument",
    "astronomy": "looking at planets and stars through a telescope",
    "pottery": "shaping clay on a wheel and firing it",
    "salsa dancing": "moving to Latin rhythms with a partner",
    "fly fishing": "casting light lines into rivers to catch trout",
    "cycling": "riding a bike on long country roads",
    "painting watercolours": "brushing pigments thinned with water onto paper",
    "solving crosswords": "filling in word puzzles from clever clues",
    "home brewing": "making beer in small batches at home",
}

CHARACTERS: tuple[str, ...] = (
    "cheerful",
    "patient",
    "stubborn",
    "generous",
    "shy",
    "outgoing",
    "meticulous",
    "easygoing",
    "ambitious",
    "thoughtful",
    "witty",
    "calm",
    "impulsive",
    "loyal",
    "curious",
    "reserved",
)

# Events: work or leisure, each kind with what it is about.
WORK_EVENTS: dict[str, str] = {
    "team retreat": "planning next year's goals away from the office",
    "product launch": "presenting a new product to customers and press",
    "industry conference": "talks and panels from people across the field",
    "training workshop": "hands-on sessions to learn a new tool",
    "quarterly review": "going through the numbers of the last three months",
    "hackathon": "building prototypes in small teams against the clock",
    "trade fair": "stands where companies show their latest work",
    "leadership summit": "managers sharing how they run their teams",
}
LEISURE_EVENTS: dict[str, str] = {
    "food festival": "stalls with dishes from local cooks",
    "charity run": "a race that raises money for the children's hospital",
    "jazz night": "live bands playing in a small club",
    "book fair": "authors signing books and publishers selling them",
    "film screening": "an open-air showing of an old classic",
    "climbing meetup": "climbers trying new routes together",
    "craft market": "makers selling handmade goods",
    "chess tournament": "rounds of rapid games for all levels",
}
# Event names: "<first> <second> <kind noun>", e.g. "Silver Harbor Summit".
EVENT_NAME_FIRST: tuple[str, ...] = (
    "Silver",
    "Northern",
    "Blue",
    "Golden",
    "Red",
    "Evergreen",
    "Bright",
    "Summit",
    "Riverside",
    "Copper",
    "Maple",
    "Harbor",
    "Granite",
    "Lakeside",
    "Sunrise",
    "Cedar",
)
EVENT_NAME_SECOND: tuple[str, ...] = (
    "Lights",
    "Horizon",
    "Spark",
    "Valley",
    "Bridge",
    "Wave",
    "Compass",
    "Forge",
    "Orchard",
    "Beacon",
    "Meadow",
    "Circuit",
    "Anchor",
    "Trail",
)
EVENT_NAME_NOUN: dict[str, str] = {
    "team retreat": "Retreat", "product launch": "Launch", "industry conference": "Conference",
    "training workshop": "Workshop", "quarterly review": "Review", "hackathon": "Hackathon",
    "trade fair": "Expo", "leadership summit": "Summit", "food festival": "Food Festival",
    "charity run": "Run", "jazz night": "Jazz Night", "book fair": "Book Fair", "film screening": "Screening",
    "climbing meetup": "Climb Meet", "craft market": "Craft Market", "chess tournament": "Chess Open",
}  # fmt: skip

# Numbers in words: event scales and durations are told in words, as people say them.
NUMBER_WORDS: dict[int, str] = {
    1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine",
    10: "ten", 11: "eleven", 12: "twelve", 14: "fourteen", 15: "fifteen", 20: "twenty", 30: "thirty",
    40: "forty", 50: "fifty", 60: "sixty", 80: "eighty", 100: "one hundred", 150: "one hundred and fifty",
    200: "two hundred", 250: "two hundred and fifty", 300: "three hundred", 400: "four hundred",
    500: "five hundred", 600: "six hundred", 800: "eight hundred", 1000: "one thousand",
    1200: "twelve hundred", 1500: "fifteen hundred", 2000: "two thousand", 3000: "three thousand",
}  # fmt: skip
EVENT_SCALES: tuple[int, ...] = (
    20,
    30,
    40,
    50,
    60,
    80,
    100,
    150,
    200,
    250,
    300,
    400,
    500,
    600,
    800,
    1000,
    1200,
    1500,
    2000,
    3000,
)
EVENT_DAYS: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7)

# Items the user owns: type -> made-up brand names of our own.
ITEMS: dict[str, tuple[str, ...]] = {
    "coffee machine": ("Brewmont Duo", "Kettleby Barista", "Crema Nine", "Morning Forge"),
    "laptop": ("Corvane Air 14", "Lumen Book Pro", "Tessel X3", "Northbyte Slim"),
    "running shoes": ("Stridewell Glide", "Pacer Cloud 5", "Trailfox Rush", "Kinetra Swift"),
    "bicycle": ("Velora Urban", "Ridgeway Tour 2", "Spokeline Metro", "Cadence Flyer"),
    "headphones": ("Sonique Halo", "Quietline 700", "Auralis Pods", "Bassmoor Studio"),
    "backpack": ("Trekmark 30", "Cityhaul Daypack", "Summitpak Lite", "Roamwell Carry"),
    "camera": ("Optiva M50", "Shutterline Z", "Lensmark Pro", "Aperture One"),
    "vacuum cleaner": ("Dustra Cyclone", "Cleanway V8", "Suckwell Compact", "Hoverline Pet"),
    "electric toothbrush": ("Brightbrush Sonic", "Dentara Pro", "Smilewave 3", "Pearlon Clean"),
    "watch": ("Tideline Diver", "Meridian Classic", "Chronova Sport", "Hourmark Field"),
}
# Places the user visited: type -> name endings; names are "<first word> <ending>".
PLACE_TYPES: dict[str, str] = {
    "park": "Park", "museum": "Museum", "restaurant": "Bistro", "bookshop": "Books", "gym": "Fitness",
    "café": "Café", "mall": "Galleria", "beach": "Beach", "theatre": "Playhouse", "market": "Market",
}  # fmt: skip
PLACE_FIRST: tuple[str, ...] = (
    "Willow", "Juniper", "Hollow Oak", "Bluebell", "Stonebridge", "Fernhill", "Elmstead", "Kingsley",
    "Marigold", "Foxglove", "Ashford", "Lantern", "Birchwood", "Coral", "Heron", "Thistle",
)  # fmt: skip

# Where the user is when an observed message is sent (observation scenario).  Each is "the" and
# one short word, so every place suffix has the same token count and trajectories hit their size.
WHEREABOUTS: tuple[str, ...] = (
    "the office", "the gym", "the park", "the train", "the clinic", "the car", "the hotel", "the café",
    "the beach", "the bakery", "the museum", "the studio", "the garden", "the market",
)  # fmt: skip

# What the assistant says back to a statement it is told (participation scenario).
ACKNOWLEDGEMENTS: tuple[str, ...] = (
    "Thanks for telling me, I'll keep that in mind.",
    "Good to know. I've made a note of it.",
    "That's helpful to hear, thank you.",
    "Got it. I'll remember that.",
    "Interesting, thanks for sharing that with me.",
    "Noted. It helps me to know these things.",
    "That sounds nice. I'll remember it.",
    "Understood, I've stored that.",
    "Thanks, that's a useful detail.",
    "I appreciate you filling me in on that.",
    "Okay, I'll keep it in mind for later.",
    "Lovely. I'll hold on to that.",
)
