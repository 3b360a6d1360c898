"""High-level preferences and the low-level likes that reveal them (MemBench §3.1, App. A.2).

The paper maps each high-level preference (a movie genre, a taste, a book genre) to the concrete
items a user with it would mention, building the maps from MovieLens, Food.com and Goodreads.  We
write our own, smaller maps: well-known titles and dishes whose category is not in doubt, so the
reflective question ("which genre do I probably prefer?") has one defensible answer.  The domain
names and the taste names follow the paper's categories (App. C.1 lists the tastes); the
selections are ours.  No title contains a comma (list answers are joined with ", ").
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Domain:
    """One kind of preference: what the items are called, and category -> items."""

    name: str  # "movie"
    plural: str  # "movies"
    category: str  # what a high-level preference of this domain is called: "genre"
    like_verbs: tuple[str, ...]  # "watching", as in "I really enjoyed watching X"
    items: dict[str, tuple[str, ...]]


MOVIES = Domain(
    "movie",
    "movies",
    "genre",
    ("watching", "seeing"),
    {
        "Comedy": (
            "Groundhog Day (1993)",
            "Airplane! (1980)",
            "Some Like It Hot (1959)",
            "Superbad (2007)",
            "The Grand Budapest Hotel (2014)",
            "Office Space (1999)",
            "Monty Python and the Holy Grail (1975)",
            "Bridesmaids (2011)",
        ),
        "Horror": (
            "The Shining (1980)",
            "Halloween (1978)",
            "The Exorcist (1973)",
            "Hereditary (2018)",
            "A Nightmare on Elm Street (1984)",
            "The Conjuring (2013)",
            "Get Out (2017)",
            "The Babadook (2014)",
        ),
        "Science Fiction": (
            "Blade Runner (1982)",
            "2001: A Space Odyssey (1968)",
            "The Matrix (1999)",
            "Arrival (2016)",
            "Interstellar (2014)",
            "Solaris (1972)",
            "Gattaca (1997)",
            "Ex Machina (2014)",
        ),
        "Romance": (
            "Before Sunrise (1995)",
            "Notting Hill (1999)",
            "The Notebook (2004)",
            "Roman Holiday (1953)",
            "Pride and Prejudice (2005)",
            "Sleepless in Seattle (1993)",
            "Casablanca (1942)",
            "La La Land (2016)",
        ),
        "Animation": (
            "Spirited Away (2001)",
            "Toy Story (1995)",
            "The Lion King (1994)",
            "WALL-E (2008)",
            "My Neighbor Totoro (1988)",
            "Up (2009)",
            "Coco (2017)",
            "Shrek (2001)",
        ),
        "Western": (
            "Unforgiven (1992)",
            "High Noon (1952)",
            "The Searchers (1956)",
            "Rio Bravo (1959)",
            "Once Upon a Time in the West (1968)",
            "True Grit (1969)",
            "Tombstone (1993)",
            "Shane (1953)",
        ),
        "War": (
            "Saving Private Ryan (1998)",
            "Apocalypse Now (1979)",
            "Dunkirk (2017)",
            "Platoon (1986)",
            "Das Boot (1981)",
            "Full Metal Jacket (1987)",
            "1917 (2019)",
            "The Thin Red Line (1998)",
        ),
        "Musical": (
            "Singin' in the Rain (1952)",
            "The Sound of Music (1965)",
            "West Side Story (1961)",
            "Mamma Mia! (2008)",
            "Chicago (2002)",
            "Grease (1978)",
            "The Greatest Showman (2017)",
            "Les Misérables (2012)",
        ),
    },
)

DISHES = Domain(
    "dish",
    "dishes",
    "taste",
    ("eating", "having"),
    {
        "Sweet": (
            "Chocolate Fudge Cake",
            "Maple Pancakes",
            "Tiramisu",
            "Honey Baklava",
            "Strawberry Shortcake",
            "Crème Brûlée",
            "Cinnamon Rolls",
            "Lemon Meringue Pie",
        ),
        "Spicy": (
            "Vindaloo Curry",
            "Buffalo Wings",
            "Jalapeño Poppers",
            "Kimchi Stew",
            "Nashville Hot Chicken",
            "Arrabbiata Pasta",
            "Jerk Chicken",
            "Dan Dan Noodles",
        ),
        "Sour": (
            "Lemon Sorbet",
            "Sauerkraut",
            "Ceviche",
            "Pickled Cucumbers",
            "Key Lime Tart",
            "Tamarind Chutney",
            "Sour Cherry Soup",
            "Green Mango Salad",
        ),
        "Umami": (
            "Miso Soup",
            "Mushroom Risotto",
            "Parmesan Crisps",
            "Beef Bone Broth",
            "Soy Glazed Salmon",
            "Anchovy Toast",
            "Shiitake Ramen",
            "Seaweed Salad",
        ),
        "Sweet and Salty": (
            "Salted Caramel Brownies",
            "Kettle Corn",
            "Prosciutto with Melon",
            "Chocolate Covered Pretzels",
            "Salted Butterscotch Pudding",
            "Peanut Butter Cookies",
            "Maple Bacon Doughnuts",
            "Honey Roasted Nuts",
        ),
        "Sweet and Sour": (
            "Gu Lao Rou Pork",
            "Pad Thai",
            "Lemon Drizzle Cake",
            "Pineapple Chicken",
            "Cranberry Sauce",
            "Raspberry Vinaigrette Salad",
            "Orange Chicken",
            "Rhubarb Crumble",
        ),
        "Bitter": (
            "Dark Chocolate Truffles",
            "Grilled Radicchio",
            "Bitter Melon Stir Fry",
            "Espresso Granita",
            "Dandelion Green Salad",
            "Marmalade Toast",
            "Sautéed Broccoli Rabe",
            "Endive Gratin",
        ),
        "Creamy and Sweet": (
            "Vanilla Custard",
            "Rice Pudding",
            "Cheesecake",
            "Panna Cotta",
            "Banana Cream Pie",
            "Coconut Flan",
            "Eton Mess",
            "Milk Tart",
        ),
    },
)

BOOKS = Domain(
    "book",
    "books",
    "genre",
    ("reading", "finishing"),
    {
        "Fantasy": (
            "The Hobbit",
            "A Wizard of Earthsea",
            "The Name of the Wind",
            "Mistborn",
            "The Last Unicorn",
            "Jonathan Strange and Mr Norrell",
            "The Fellowship of the Ring",
            "Uprooted",
        ),
        "Mystery": (
            "The Hound of the Baskervilles",
            "Murder on the Orient Express",
            "Gone Girl",
            "The Big Sleep",
            "In the Woods",
            "The Moonstone",
            "And Then There Were None",
            "The Maltese Falcon",
        ),
        "Science Fiction": (
            "Dune",
            "Foundation",
            "The Left Hand of Darkness",
            "Neuromancer",
            "Hyperion",
            "The Martian",
            "Ender's Game",
            "Solaris",
        ),
        "Biography": (
            "Steve Jobs",
            "The Diary of a Young Girl",
            "Long Walk to Freedom",
            "Alexander Hamilton",
            "Becoming",
            "Team of Rivals",
            "Einstein: His Life and Universe",
            "The Immortal Life of Henrietta Lacks",
        ),
        "Self-Help": (
            "Atomic Habits",
            "The 7 Habits of Highly Effective People",
            "How to Win Friends and Influence People",
            "Deep Work",
            "Mindset",
            "The Power of Now",
            "Getting Things Done",
            "Quiet",
        ),
        "Historical Fiction": (
            "Wolf Hall",
            "The Pillars of the Earth",
            "All the Light We Cannot See",
            "The Name of the Rose",
            "I Claudius",
            "The Book Thief",
            "Shogun",
            "War and Peace",
        ),
        "Horror": (
            "Dracula",
            "Frankenstein",
            "The Haunting of Hill House",
            "It",
            "Pet Sematary",
            "The Shining",
            "Rebecca",
            "Mexican Gothic",
        ),
        "Poetry": (
            "Leaves of Grass",
            "The Waste Land",
            "Ariel",
            "Milk and Honey",
            "Songs of Innocence and of Experience",
            "The Sun and Her Flowers",
            "Howl and Other Poems",
            "Paradise Lost",
        ),
    },
)

DOMAINS: tuple[Domain, ...] = (MOVIES, DISHES, BOOKS)


def category_of(domain: Domain, item: str) -> str:
    """The category an item is listed under (each item is listed once per domain)."""
    return next(category for category, items in domain.items.items() if item in items)
