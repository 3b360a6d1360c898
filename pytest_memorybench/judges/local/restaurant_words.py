"""The words the offline Restaurant reading knows beyond a menu's own (our own lists).

Kept apart from the reading (`restaurant.py`) because they are data: what names food or drink,
what only describes, what names no food in an ordering phrase.
"""

from __future__ import annotations

from pytest_memorybench.judges.local.text import stem

# Words of an ordering phrase that name no food: courses, time, the menu, the service.
NOT_FOOD = frozenset(
    """minute moment second look bill check menu time table recommendation help appetizer appetiser starter
    main course entree entrée dessert side meal dish order something anything option choice drink beverage
    food thing same one instead also too now first just sandwich salad soup pasta burger plate bowl wrap
    glass cup bottle portion serving piece dishes still ice come comes served""".split()
)
# Words that name a drink (our own list), for drinks asked for that a menu does not list.
DRINK_WORDS = frozenset(
    """water still sparkling mineral soda tonic lemonade juice squash smoothie milkshake shake milk tea coffee
    espresso latte cappuccino americano macchiato mocha cocoa wine red white rose prosecco champagne cava
    cabernet merlot pinot noir grigio sauvignon chardonnay riesling malbec shiraz syrah rioja chianti
    zinfandel beer lager ale stout cider cocktail mojito margarita martini gin whisky whiskey vodka rum
    bourbon brandy sherry sake coke cola pepsi sprite fanta seltzer kombucha""".split()
)
# Words that name something to eat, beyond a menu's own words (our own list): a phrase left over
# after the menu items is an off-menu order only if it names food or drink.
FOOD_WORDS = frozenset(
    """toast bread roll bagel sandwich burger pizza pasta noodle rice fries chips potato salad soup stew curry
    steak beef pork lamb chicken turkey duck fish salmon tuna cod prawn shrimp lobster crab oyster mussel
    egg omelette bacon sausage ham cheese tofu bean lentil vegetable veg mushroom tomato avocado fruit berry
    apple banana cake pie tart pudding cream sorbet cookie brownie waffle pancake dessert taco burrito
    wrap kebab sushi ramen dumpling side water wine beer juice tea coffee soda lemonade cocktail milk
    smoothie cider""".split()
)
# Describing words a dish name may start with: never enough to name the dish alone.
DESCRIPTIVE = frozenset(
    """classic crispy fresh warm hot cold chilled spicy sweet sour creamy rich light homemade house special
    vegan vegetarian halal kosher organic seasonal traditional spiced velvet hearty wild slow still""".split()
)
# "A drink" names no item even where one item's name says "drinks"; "the salad" names the only salad.
GENERIC = frozenset(
    stem(word) for word in "drink beverage dish meal food side option choice course order thing".split()
)
