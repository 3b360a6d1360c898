"""The facts filler asks about: short tables of common public knowledge, written for this project.

GoodAI's reference took its questions from TriviaQA, which we may not redistribute.  These tables
are our own (facts are not anyone's property), plain ASCII so token counts and JSON stay simple;
anything debatable was left out on purpose, since an answer the agent could reasonably dispute
would make the filler noisier than it needs to be.  `trivia.py` phrases them as questions.
"""

from __future__ import annotations

# ------------------------------------------------------------------------------------------------
# Fact tables (our own; plain ASCII so token counts and JSON stay simple).  A leading "the " on a
# name is kept for questions and dropped when the name is itself the answer.
# ------------------------------------------------------------------------------------------------

CAPITALS: dict[str, str] = {
    "France": "Paris", "Germany": "Berlin", "Italy": "Rome", "Spain": "Madrid",
    "Portugal": "Lisbon", "the United Kingdom": "London", "Ireland": "Dublin",
    "Belgium": "Brussels", "Austria": "Vienna", "Poland": "Warsaw", "the Czech Republic": "Prague",
    "Hungary": "Budapest", "Greece": "Athens", "Sweden": "Stockholm", "Norway": "Oslo",
    "Denmark": "Copenhagen", "Finland": "Helsinki", "Iceland": "Reykjavik", "Russia": "Moscow",
    "Ukraine": "Kyiv", "Romania": "Bucharest", "Bulgaria": "Sofia", "Serbia": "Belgrade",
    "Croatia": "Zagreb", "Latvia": "Riga", "Lithuania": "Vilnius", "Estonia": "Tallinn",
    "Slovakia": "Bratislava", "Slovenia": "Ljubljana", "Turkey": "Ankara", "Egypt": "Cairo",
    "Kenya": "Nairobi", "Ethiopia": "Addis Ababa", "Nigeria": "Abuja", "Ghana": "Accra",
    "Morocco": "Rabat", "Algeria": "Algiers", "Tunisia": "Tunis", "Senegal": "Dakar",
    "Japan": "Tokyo", "China": "Beijing", "South Korea": "Seoul", "India": "New Delhi",
    "Pakistan": "Islamabad", "Bangladesh": "Dhaka", "Nepal": "Kathmandu", "Thailand": "Bangkok",
    "Vietnam": "Hanoi", "the Philippines": "Manila", "Iran": "Tehran", "Iraq": "Baghdad",
    "Saudi Arabia": "Riyadh", "Afghanistan": "Kabul", "Mongolia": "Ulaanbaatar",
    "Syria": "Damascus", "Lebanon": "Beirut", "Jordan": "Amman", "Qatar": "Doha",
    "Cambodia": "Phnom Penh", "Laos": "Vientiane", "Australia": "Canberra",
    "New Zealand": "Wellington", "Canada": "Ottawa", "the United States": "Washington, D.C.",
    "Mexico": "Mexico City", "Cuba": "Havana", "Jamaica": "Kingston", "Argentina": "Buenos Aires",
    "Brazil": "Brasilia", "Chile": "Santiago", "Peru": "Lima", "Colombia": "Bogota",
    "Venezuela": "Caracas", "Ecuador": "Quito", "Uruguay": "Montevideo", "Paraguay": "Asuncion",
}  # fmt: skip

# Transcontinental countries (Russia, Turkey, Egypt), Oceania and the Caribbean are left out: each
# has more than one defensible answer.
CONTINENTS: dict[str, str] = {
    **dict.fromkeys(
        ("France", "Germany", "Italy", "Spain", "Portugal", "the United Kingdom", "Ireland",
         "Belgium", "Austria", "Poland", "the Czech Republic", "Hungary", "Greece", "Sweden",
         "Norway", "Denmark", "Finland", "Ukraine", "Romania", "Bulgaria", "Serbia", "Croatia",
         "Latvia", "Lithuania", "Estonia", "Slovakia", "Slovenia"),
        "Europe",
    ),
    **dict.fromkeys(
        ("Kenya", "Ethiopia", "Nigeria", "Ghana", "Morocco", "Algeria", "Tunisia", "Senegal"),
        "Africa",
    ),
    **dict.fromkeys(
        ("Japan", "China", "South Korea", "India", "Pakistan", "Bangladesh", "Nepal", "Thailand",
         "Vietnam", "the Philippines", "Iran", "Iraq", "Saudi Arabia", "Afghanistan", "Mongolia",
         "Syria", "Lebanon", "Jordan", "Qatar", "Cambodia", "Laos"),
        "Asia",
    ),
    **dict.fromkeys(
        ("Canada", "the United States", "Mexico"), "North America"
    ),
    **dict.fromkeys(
        ("Argentina", "Brazil", "Chile", "Peru", "Colombia", "Venezuela", "Ecuador", "Uruguay",
         "Paraguay"),
        "South America",
    ),
}  # fmt: skip

CURRENCIES: dict[str, str] = {
    "Japan": "yen", "the United Kingdom": "pound sterling", "the United States": "US dollar",
    "India": "Indian rupee", "Russia": "ruble", "Switzerland": "Swiss franc",
    "Mexico": "Mexican peso", "Brazil": "real", "South Africa": "rand", "South Korea": "won",
    "Poland": "zloty", "Sweden": "Swedish krona", "Norway": "Norwegian krone",
    "Denmark": "Danish krone", "Turkey": "Turkish lira", "Thailand": "baht", "Vietnam": "dong",
    "Hungary": "forint", "the Czech Republic": "Czech koruna", "Indonesia": "rupiah",
    "the Philippines": "Philippine peso", "Argentina": "Argentine peso",
    "Egypt": "Egyptian pound", "Saudi Arabia": "Saudi riyal", "Nigeria": "naira",
    "Kenya": "Kenyan shilling", "Canada": "Canadian dollar", "Australia": "Australian dollar",
    "New Zealand": "New Zealand dollar", "Germany": "euro", "France": "euro", "Italy": "euro",
    "Spain": "euro", "Ireland": "euro", "Greece": "euro", "Finland": "euro", "Austria": "euro",
    "Iceland": "Icelandic krona", "Chile": "Chilean peso", "Colombia": "Colombian peso",
    "Pakistan": "Pakistani rupee", "Bangladesh": "taka", "Malaysia": "ringgit",
    "Ukraine": "hryvnia", "Romania": "leu",
}  # fmt: skip

LANGUAGES: dict[str, str] = {
    "Brazil": "Portuguese", "Portugal": "Portuguese", "Mexico": "Spanish", "Argentina": "Spanish",
    "Colombia": "Spanish", "Chile": "Spanish", "Spain": "Spanish", "Cuba": "Spanish",
    "Japan": "Japanese", "Germany": "German", "Austria": "German", "France": "French",
    "Italy": "Italian", "Poland": "Polish", "Greece": "Greek", "Iran": "Persian",
    "Egypt": "Arabic", "Saudi Arabia": "Arabic", "Turkey": "Turkish", "Hungary": "Hungarian",
    "Sweden": "Swedish", "Norway": "Norwegian", "the Netherlands": "Dutch",
    "South Korea": "Korean", "Thailand": "Thai", "Vietnam": "Vietnamese", "Russia": "Russian",
    "the Czech Republic": "Czech", "Romania": "Romanian", "Denmark": "Danish",
    "Iceland": "Icelandic", "Ukraine": "Ukrainian", "Australia": "English",
    "the United Kingdom": "English",
}  # fmt: skip

# name -> (symbol, atomic number)
ELEMENTS: dict[str, tuple[str, int]] = {
    "hydrogen": ("H", 1), "helium": ("He", 2), "lithium": ("Li", 3), "beryllium": ("Be", 4),
    "boron": ("B", 5), "carbon": ("C", 6), "nitrogen": ("N", 7), "oxygen": ("O", 8),
    "fluorine": ("F", 9), "neon": ("Ne", 10), "sodium": ("Na", 11), "magnesium": ("Mg", 12),
    "aluminium": ("Al", 13), "silicon": ("Si", 14), "phosphorus": ("P", 15), "sulfur": ("S", 16),
    "chlorine": ("Cl", 17), "argon": ("Ar", 18), "potassium": ("K", 19), "calcium": ("Ca", 20),
    "titanium": ("Ti", 22), "chromium": ("Cr", 24), "manganese": ("Mn", 25), "iron": ("Fe", 26),
    "cobalt": ("Co", 27), "nickel": ("Ni", 28), "copper": ("Cu", 29), "zinc": ("Zn", 30),
    "arsenic": ("As", 33), "bromine": ("Br", 35), "krypton": ("Kr", 36), "silver": ("Ag", 47),
    "tin": ("Sn", 50), "iodine": ("I", 53), "xenon": ("Xe", 54), "tungsten": ("W", 74),
    "platinum": ("Pt", 78), "gold": ("Au", 79), "mercury": ("Hg", 80), "lead": ("Pb", 82),
    "radon": ("Rn", 86), "uranium": ("U", 92), "plutonium": ("Pu", 94),
}  # fmt: skip

PLANETS: tuple[str, ...] = (
    "Mercury", "Venus", "Earth", "Mars", "Jupiter", "Saturn", "Uranus", "Neptune",
)  # fmt: skip

# Title -> author.  Titles shared by several well-known works are left out.
AUTHORS: dict[str, str] = {
    "Pride and Prejudice": "Jane Austen", "Emma": "Jane Austen", "Persuasion": "Jane Austen",
    "Sense and Sensibility": "Jane Austen", "Moby-Dick": "Herman Melville",
    "War and Peace": "Leo Tolstoy", "Anna Karenina": "Leo Tolstoy",
    "Crime and Punishment": "Fyodor Dostoevsky", "The Brothers Karamazov": "Fyodor Dostoevsky",
    "The Idiot": "Fyodor Dostoevsky", "Don Quixote": "Miguel de Cervantes",
    "Great Expectations": "Charles Dickens", "Oliver Twist": "Charles Dickens",
    "A Tale of Two Cities": "Charles Dickens", "David Copperfield": "Charles Dickens",
    "A Christmas Carol": "Charles Dickens", "Jane Eyre": "Charlotte Bronte",
    "Wuthering Heights": "Emily Bronte", "Frankenstein": "Mary Shelley",
    "Dracula": "Bram Stoker", "The Great Gatsby": "F. Scott Fitzgerald",
    "Nineteen Eighty-Four": "George Orwell", "Animal Farm": "George Orwell",
    "Brave New World": "Aldous Huxley", "To Kill a Mockingbird": "Harper Lee",
    "The Catcher in the Rye": "J. D. Salinger", "Les Miserables": "Victor Hugo",
    "The Hunchback of Notre-Dame": "Victor Hugo", "The Count of Monte Cristo": "Alexandre Dumas",
    "The Three Musketeers": "Alexandre Dumas", "Madame Bovary": "Gustave Flaubert",
    "The Old Man and the Sea": "Ernest Hemingway",
    "A Farewell to Arms": "Ernest Hemingway", "The Sun Also Rises": "Ernest Hemingway",
    "Of Mice and Men": "John Steinbeck", "The Grapes of Wrath": "John Steinbeck",
    "East of Eden": "John Steinbeck", "Treasure Island": "Robert Louis Stevenson",
    "Kidnapped": "Robert Louis Stevenson",
    "Strange Case of Dr Jekyll and Mr Hyde": "Robert Louis Stevenson",
    "Robinson Crusoe": "Daniel Defoe", "Gulliver's Travels": "Jonathan Swift",
    "The Hobbit": "J. R. R. Tolkien", "The Lord of the Rings": "J. R. R. Tolkien",
    "Alice's Adventures in Wonderland": "Lewis Carroll",
    "The Picture of Dorian Gray": "Oscar Wilde", "Little Women": "Louisa May Alcott",
    "The Adventures of Tom Sawyer": "Mark Twain", "Adventures of Huckleberry Finn": "Mark Twain",
    "Twenty Thousand Leagues Under the Seas": "Jules Verne",
    "Around the World in Eighty Days": "Jules Verne",
    "Journey to the Centre of the Earth": "Jules Verne", "The Time Machine": "H. G. Wells",
    "The War of the Worlds": "H. G. Wells",
    "One Hundred Years of Solitude": "Gabriel Garcia Marquez", "Middlemarch": "George Eliot",
    "Silas Marner": "George Eliot", "Heart of Darkness": "Joseph Conrad",
    "Lolita": "Vladimir Nabokov", "The Trial": "Franz Kafka", "The Metamorphosis": "Franz Kafka",
    "Hamlet": "William Shakespeare", "Macbeth": "William Shakespeare",
    "Romeo and Juliet": "William Shakespeare",
    "A Midsummer Night's Dream": "William Shakespeare", "Faust": "Johann Wolfgang von Goethe",
    "The Divine Comedy": "Dante Alighieri", "Paradise Lost": "John Milton",
    "The Canterbury Tales": "Geoffrey Chaucer", "Oedipus Rex": "Sophocles",
    "Candide": "Voltaire", "The Prince": "Niccolo Machiavelli",
    "On the Origin of Species": "Charles Darwin", "A Brief History of Time": "Stephen Hawking",
    "The Wealth of Nations": "Adam Smith",
    "Walden": "Henry David Thoreau", "Leaves of Grass": "Walt Whitman",
    "Vanity Fair": "William Makepeace Thackeray", "Far from the Madding Crowd": "Thomas Hardy",
    "Tess of the d'Urbervilles": "Thomas Hardy", "Mrs Dalloway": "Virginia Woolf",
    "Lord of the Flies": "William Golding", "Fahrenheit 451": "Ray Bradbury",
    "Catch-22": "Joseph Heller", "Things Fall Apart": "Chinua Achebe",
    "Beloved": "Toni Morrison", "Rebecca": "Daphne du Maurier",
    "The Hound of the Baskervilles": "Arthur Conan Doyle",
    "Murder on the Orient Express": "Agatha Christie",
    "Charlie and the Chocolate Factory": "Roald Dahl", "Matilda": "Roald Dahl",
    "The Lion, the Witch and the Wardrobe": "C. S. Lewis", "Winnie-the-Pooh": "A. A. Milne",
    "The Tale of Peter Rabbit": "Beatrix Potter", "Heidi": "Johanna Spyri",
    "The Jungle Book": "Rudyard Kipling", "Peter Pan": "J. M. Barrie",
    "The Wind in the Willows": "Kenneth Grahame", "Anne of Green Gables": "L. M. Montgomery",
    "Black Beauty": "Anna Sewell", "The Secret Garden": "Frances Hodgson Burnett",
    "The Call of the Wild": "Jack London", "Uncle Tom's Cabin": "Harriet Beecher Stowe",
    "The Scarlet Letter": "Nathaniel Hawthorne", "Doctor Zhivago": "Boris Pasternak",
    "The Master and Margarita": "Mikhail Bulgakov", "The Name of the Rose": "Umberto Eco",
    "The Little Prince": "Antoine de Saint-Exupery", "Dead Souls": "Nikolai Gogol",
    "Eugene Onegin": "Alexander Pushkin",
}  # fmt: skip

# Only inventions with one uncontested name attached.
INVENTIONS: dict[str, str] = {
    "dynamite": "Alfred Nobel", "the World Wide Web": "Tim Berners-Lee",
    "the diesel engine": "Rudolf Diesel", "the game of basketball": "James Naismith",
    "the Braille reading system": "Louis Braille", "the voltaic pile": "Alessandro Volta",
    "the lightning rod": "Benjamin Franklin", "the Pascaline calculator": "Blaise Pascal",
    "the Celsius temperature scale": "Anders Celsius", "the phonograph": "Thomas Edison",
    "the cotton gin": "Eli Whitney", "the Rubik's Cube": "Erno Rubik",
    "the video game Tetris": "Alexey Pajitnov", "the stethoscope": "Rene Laennec",
    "the saxophone": "Adolphe Sax", "the Polaroid instant camera": "Edwin Land",
    "the mercury thermometer": "Daniel Gabriel Fahrenheit",
}  # fmt: skip

DISCOVERIES: dict[str, str] = {
    "penicillin": "Alexander Fleming", "X-rays": "Wilhelm Roentgen",
    "the electron": "J. J. Thomson", "the neutron": "James Chadwick",
    "the dwarf planet Pluto": "Clyde Tombaugh", "the planet Uranus": "William Herschel",
    "the two moons of Mars": "Asaph Hall", "the four largest moons of Jupiter": "Galileo Galilei",
    "the atomic nucleus": "Ernest Rutherford",
    "the tomb of Tutankhamun": "Howard Carter",
}  # fmt: skip

YOUNG_ANIMALS: dict[str, str] = {
    "cat": "kitten", "dog": "puppy", "cow": "calf", "horse": "foal", "sheep": "lamb",
    "goat": "kid", "pig": "piglet", "kangaroo": "joey", "frog": "tadpole", "swan": "cygnet",
    "goose": "gosling", "duck": "duckling", "owl": "owlet", "eagle": "eaglet", "bear": "cub",
    "lion": "cub", "tiger": "cub", "deer": "fawn", "hare": "leveret", "chicken": "chick",
    "seal": "pup", "elephant": "calf", "whale": "calf", "giraffe": "calf",
}  # fmt: skip

ANIMAL_GROUPS: dict[str, str] = {
    "lions": "pride", "wolves": "pack", "dolphins": "pod", "whales": "pod", "sheep": "flock",
    "cattle": "herd", "elephants": "herd", "crows": "murder", "owls": "parliament",
    "ants": "colony", "fish": "school", "geese": "gaggle", "puppies": "litter",
    "monkeys": "troop",
}  # fmt: skip

# (smaller unit, larger unit with its article, how many of the first make one of the second)
UNITS: tuple[tuple[str, str, int], ...] = (
    ("millimetres", "a centimetre", 10), ("centimetres", "a metre", 100),
    ("metres", "a kilometre", 1000), ("milligrams", "a gram", 1000),
    ("grams", "a kilogram", 1000), ("kilograms", "a metric tonne", 1000),
    ("millilitres", "a litre", 1000), ("square metres", "a hectare", 10000),
    ("seconds", "a minute", 60), ("minutes", "an hour", 60), ("seconds", "an hour", 3600),
    ("hours", "a day", 24), ("minutes", "a day", 1440), ("days", "a week", 7),
    ("hours", "a week", 168), ("days", "a fortnight", 14), ("months", "a year", 12),
    ("years", "a decade", 10), ("years", "a century", 100), ("years", "a millennium", 1000),
    ("inches", "a foot", 12), ("feet", "a yard", 3), ("yards", "a mile", 1760),
    ("feet", "a mile", 5280), ("ounces", "a pound", 16), ("pounds", "a stone", 14),
    ("pints", "a quart", 2), ("quarts", "a gallon", 4), ("bits", "a byte", 8),
    ("items", "a dozen", 12), ("items", "a gross", 144), ("degrees", "a right angle", 90),
    ("degrees", "a full circle", 360), ("cents", "a euro", 100),
    ("pence", "a pound sterling", 100), ("cents", "a US dollar", 100),
)  # fmt: skip

POLYGON_SIDES: dict[str, int] = {
    "triangle": 3, "square": 4, "rectangle": 4, "rhombus": 4, "parallelogram": 4,
    "quadrilateral": 4, "pentagon": 5, "hexagon": 6, "heptagon": 7, "octagon": 8,
    "nonagon": 9, "decagon": 10, "dodecagon": 12,
}  # fmt: skip

SOLID_FACES: dict[str, int] = {
    "cube": 6, "regular tetrahedron": 4, "regular octahedron": 8, "regular dodecahedron": 12,
    "regular icosahedron": 20, "square-based pyramid": 5,
}  # fmt: skip

MONTHS: tuple[str, ...] = (
    "January", "February", "March", "April", "May", "June", "July", "August", "September",
    "October", "November", "December",
)  # fmt: skip
MONTH_DAYS: tuple[int, ...] = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)  # common year
WEEKDAYS: tuple[str, ...] = (
    "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday",
)  # fmt: skip

# City -> the river it stands on (cities on two rivers of similar note are left out).
CITY_RIVERS: dict[str, str] = {
    "Paris": "Seine", "London": "Thames", "Rome": "Tiber", "Vienna": "Danube",
    "Budapest": "Danube", "Bratislava": "Danube", "Cairo": "Nile", "Baghdad": "Tigris",
    "Prague": "Vltava", "Warsaw": "Vistula", "Cologne": "Rhine", "Basel": "Rhine",
    "Florence": "Arno", "Dublin": "Liffey", "Moscow": "Moskva",
    "Saint Petersburg": "Neva", "Dresden": "Elbe", "Hamburg": "Elbe", "Seville": "Guadalquivir",
    "Bordeaux": "Garonne", "Turin": "Po", "Lisbon": "Tagus", "Toledo in Spain": "Tagus",
    "Varanasi": "Ganges", "New Orleans": "Mississippi", "Memphis, Tennessee": "Mississippi",
    "Quebec City": "St. Lawrence", "Vientiane": "Mekong", "Bangkok": "Chao Phraya",
}  # fmt: skip

RIVER_CONTINENTS: dict[str, str] = {
    "the Nile": "Africa", "the Congo": "Africa", "the Niger": "Africa", "the Zambezi": "Africa",
    "the Limpopo": "Africa", "the Amazon": "South America", "the Orinoco": "South America",
    "the Parana": "South America", "the Mississippi": "North America",
    "the Missouri": "North America", "the Yukon": "North America",
    "the St. Lawrence": "North America", "the Rio Grande": "North America",
    "the Yangtze": "Asia", "the Ganges": "Asia", "the Mekong": "Asia", "the Indus": "Asia",
    "the Euphrates": "Asia", "the Tigris": "Asia", "the Danube": "Europe", "the Rhine": "Europe",
    "the Volga": "Europe", "the Thames": "Europe", "the Seine": "Europe", "the Loire": "Europe",
    "the Elbe": "Europe", "the Vistula": "Europe", "the Po": "Europe", "the Tagus": "Europe",
}  # fmt: skip

INSTRUMENT_FAMILIES: dict[str, str] = {
    **dict.fromkeys(("violin", "viola", "cello", "double bass", "harp"), "string"),
    **dict.fromkeys(
        ("flute", "piccolo", "clarinet", "oboe", "bassoon", "saxophone"), "woodwind"
    ),
    **dict.fromkeys(("trumpet", "trombone", "tuba", "French horn", "cornet", "euphonium"), "brass"),
    **dict.fromkeys(
        ("snare drum", "bass drum", "xylophone", "glockenspiel", "triangle", "tambourine",
         "marimba"),
        "percussion",
    ),
}  # fmt: skip

INSTRUMENT_STRINGS: dict[str, int] = {
    "violin": 4, "viola": 4, "cello": 4, "classical guitar": 6, "ukulele": 4, "bass guitar": 4,
}  # fmt: skip

# Players per side in play at one time.
TEAM_SIZES: dict[str, int] = {
    "association football": 11, "basketball": 5, "indoor volleyball": 6,
    "beach volleyball": 2, "ice hockey": 6, "rugby union": 15, "rugby league": 13,
    "cricket": 11, "baseball": 9, "water polo": 7, "handball": 7, "netball": 7,
    "field hockey": 11, "American football": 11, "polo": 4, "Gaelic football": 15,
    "hurling": 15, "Australian rules football": 18, "korfball": 8,
}  # fmt: skip

PLURALS: dict[str, str] = {
    "mouse": "mice", "child": "children", "goose": "geese", "tooth": "teeth", "foot": "feet",
    "man": "men", "woman": "women", "ox": "oxen", "louse": "lice", "sheep": "sheep",
    "deer": "deer", "moose": "moose", "criterion": "criteria", "phenomenon": "phenomena",
    "crisis": "crises", "analysis": "analyses", "thesis": "theses", "knife": "knives",
    "leaf": "leaves", "wolf": "wolves", "half": "halves", "loaf": "loaves",
    "potato": "potatoes", "tomato": "tomatoes", "hero": "heroes", "bacterium": "bacteria",
    "axis": "axes", "oasis": "oases",
}  # fmt: skip

OPPOSITES: dict[str, str] = {
    "hot": "cold", "up": "down", "left": "right", "north": "south", "east": "west",
    "black": "white", "true": "false", "early": "late", "empty": "full", "inside": "outside",
    "push": "pull", "buy": "sell", "top": "bottom", "fast": "slow", "wet": "dry",
    "asleep": "awake", "always": "never", "before": "after", "sunrise": "sunset",
    "minimum": "maximum", "positive": "negative", "import": "export", "even": "odd",
    "entrance": "exit",
}  # fmt: skip

COLOUR_MIXES: dict[tuple[str, str], str] = {
    ("blue", "yellow"): "green", ("red", "yellow"): "orange", ("red", "blue"): "purple",
    ("red", "white"): "pink", ("black", "white"): "grey",
}  # fmt: skip

# Stand-alone facts: (family, first phrasing, second phrasing, answer).
STANDALONE: tuple[tuple[str, str, str, str], ...] = (
    ("calendar", "How many days are there in a leap year?",
     "A leap year has how many days?", "366"),
    ("calendar", "How many days are there in a common, non-leap year?",
     "A year that is not a leap year has how many days?", "365"),
    ("calendar", "How many days does February have in a leap year?",
     "In a leap year, how many days are there in February?", "29"),
    ("calendar", "How many days does February have in a common year?",
     "Outside leap years, how many days are there in February?", "28"),
    ("games", "How many squares are there on a chessboard?",
     "A standard chessboard is made up of how many squares?", "64"),
    ("games", "How many pieces does each player have at the start of a game of chess?",
     "At the start of a chess game, how many pieces does one player own?", "16"),
    ("games", "How many pawns does each player start with in chess?",
     "In chess, how many pawns does one side have at the start?", "8"),
    ("games", "How many cards are in a standard deck, not counting jokers?",
     "Leaving out the jokers, how many cards make up a standard deck?", "52"),
    ("games", "How many suits are there in a standard deck of playing cards?",
     "A standard deck of cards is divided into how many suits?", "4"),
    ("games", "How many faces does a standard die have?",
     "An ordinary gaming die has how many faces?", "6"),
    ("games", "What do the spots on all faces of a standard six-sided die add up to?",
     "How many pips are there in total on an ordinary six-sided die?", "21"),
    ("games", "How many rings are there on the Olympic flag?",
     "The Olympic symbol is made of how many rings?", "5"),
    ("games", "How many minutes does a regulation association football match last?",
     "Without added time, how long in minutes is a football (soccer) match?", "90"),
    ("nature", "How many legs does a spider have?", "A spider walks on how many legs?", "8"),
    ("nature", "How many legs does an insect have?", "An adult insect has how many legs?", "6"),
    ("nature", "How many arms does an octopus have?", "An octopus has how many arms?", "8"),
    ("nature", "How many hearts does an octopus have?",
     "An octopus has how many hearts?", "3"),
    ("nature", "What is the largest animal alive today?",
     "Which living animal is the biggest?", "blue whale"),
    ("nature", "What is the tallest living animal?", "Which animal is the tallest alive?",
     "giraffe"),
    ("nature", "What is the fastest land animal?", "Which land animal can run the fastest?",
     "cheetah"),
    ("human body", "How many bones are there in the adult human body?",
     "An adult human skeleton has how many bones?", "206"),
    ("human body", "How many chambers does the human heart have?",
     "The human heart is divided into how many chambers?", "4"),
    ("human body", "How many teeth are in a full set of adult human teeth?",
     "A complete adult set of human teeth has how many teeth?", "32"),
    ("human body", "What is the largest organ of the human body?",
     "Which organ of the human body is the largest?", "skin"),
    ("human body", "Which blood cells carry oxygen around the body?",
     "Oxygen is carried through the body by which kind of blood cell?", "red blood cells"),
    ("space", "What is the largest planet in the Solar System?",
     "Which planet in the Solar System is the biggest?", "Jupiter"),
    ("space", "What is the smallest planet in the Solar System?",
     "Which planet in the Solar System is the smallest?", "Mercury"),
    ("space", "Which planet is known as the Red Planet?",
     "Which planet is nicknamed the Red Planet?", "Mars"),
    ("space", "How many planets are there in the Solar System?",
     "The Solar System has how many planets?", "8"),
    ("space", "What is the star at the centre of the Solar System called?",
     "Which star do the planets of the Solar System orbit?", "the Sun"),
    ("space", "How many natural moons does Earth have?",
     "Earth has how many natural satellites?", "1"),
    ("geography", "What is the highest mountain above sea level?",
     "Which mountain has the highest summit above sea level?", "Mount Everest"),
    ("geography", "What is the largest ocean on Earth?", "Which ocean is the biggest?",
     "Pacific Ocean"),
    ("geography", "What is the largest hot desert in the world?",
     "Which hot desert covers the most area?", "Sahara"),
    ("geography", "What is the largest country in the world by area?",
     "Which country covers the most land?", "Russia"),
    ("geography", "What is the smallest country in the world by area?",
     "Which country has the smallest area?", "Vatican City"),
    ("geography", "What is the largest continent by area?",
     "Which continent covers the most land?", "Asia"),
    ("science", "At sea level, at what temperature in degrees Celsius does water boil?",
     "What is the boiling point of water at sea level, in degrees Celsius?", "100"),
    ("science", "At what temperature in degrees Celsius does water freeze?",
     "What is the freezing point of water in degrees Celsius?", "0"),
    ("science", "At sea level, at what temperature in degrees Fahrenheit does water boil?",
     "What is the boiling point of water at sea level, in degrees Fahrenheit?", "212"),
    ("science", "At what temperature in degrees Fahrenheit does water freeze?",
     "What is the freezing point of water in degrees Fahrenheit?", "32"),
    ("science", "What is the chemical formula of water?",
     "Which chemical formula describes water?", "H2O"),
    ("science", "Which gas do plants take in from the air for photosynthesis?",
     "Photosynthesis uses which gas taken from the air?", "carbon dioxide"),
    ("science", "Which gas makes up most of Earth's atmosphere?",
     "What is the most plentiful gas in Earth's atmosphere?", "nitrogen"),
    ("science", "How many edges does a cube have?", "A cube has how many edges?", "12"),
    ("science", "How many vertices does a cube have?", "A cube has how many corners?", "8"),
    ("music", "How many keys does a standard modern piano have?",
     "A full-size modern piano keyboard has how many keys?", "88"),
    ("alphabet", "How many letters are there in the English alphabet?",
     "The English alphabet has how many letters?", "26"),
    ("alphabet", "What is the first letter of the Greek alphabet?",
     "Which letter begins the Greek alphabet?", "alpha"),
    ("alphabet", "What is the last letter of the Greek alphabet?",
     "Which letter ends the Greek alphabet?", "omega"),
)  # fmt: skip

ORDINAL_WORDS: tuple[str, ...] = (
    "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
    "eleventh", "twelfth",
)  # fmt: skip
