"""The `template` chapter writer: offline prose of our own that obeys an event's meta-data.

The paper has an LLM write each chapter (App. B.1.5) and then checks it (B.1.6); this writer
produces text that passes the same checks by construction, so the benchmark runs offline and
deterministically.  For an event and its meta-data it writes `nb_paragraphs` paragraphs where
  * the date, the location and the protagonist's full name each appear verbatim in their assigned
    paragraph and nowhere else;
  * "<first name> <detail>" (the paper's verbatim content check) and the content's name appear in
    the content paragraph and nowhere else;
  * elsewhere the protagonist is called by first name, the event "the event", "the gathering"…;
  * secondary characters (App. B.1.8) appear by full name, each new to the book.
Sentence banks differ by style, so a horror chapter and a comedy chapter read differently in
rhythm as well as words.  No sentence holds a question mark, a number, a month name or a phrase of
not knowing, so a chapter stored as one statement never reads as a question or an abstention.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from pytest_memorybench.scenarios.episodic.events import Event, EventMeta
from pytest_memorybench.scenarios.episodic.universe import first_name

FEATURE_ORDER = ("location", "date", "entity", "content")
PRONOUNS = {
    "she": {"they": "she", "them": "her", "their": "her", "themself": "herself"},
    "he": {"they": "he", "them": "him", "their": "his", "themself": "himself"},
}


@dataclass(frozen=True)
class StyleBank:
    """One style's sentences.  Placeholders: {first} {entity} {date} {location} {content}
    {detail} {other}, and the protagonist's pronouns {they} {them} {their} {themself}; every
    `content` sentence holds "{first} {detail}" and "{content}"."""

    openings: tuple[str, ...]
    fillers: tuple[str, ...]
    companions: tuple[str, ...]
    closings: tuple[str, ...]
    date: tuple[str, ...]
    location: tuple[str, ...]
    entity: tuple[str, ...]
    content: tuple[str, ...]


BANKS: dict[str, StyleBank] = {
    "detective": StyleBank(
        openings=(
            "The first thing {first} noticed was the mud on the doorstep.",
            "Facts first, feelings later: {first} had always worked that way.",
            "A coat hung on the wrong hook, and {first} filed the detail away.",
        ),
        fillers=(
            "{first} counted the exits. Two. Then the windows. Four.",
            "Someone had moved a chair since morning, and {first} wanted to know who.",
            "A smudge of chalk on a sleeve told its own small story.",
            "{first} wrote a single word in the notebook and underlined it twice.",
            "Nobody lies about the weather, {first} reminded {themself}, so start there.",
            "The clock above the door ran four minutes fast. Useful.",
            "{first} listened more than {they} spoke, which was the whole trick.",
            "Every crowd has a pattern, and this one kept drifting toward the back wall.",
        ),
        companions=(
            "{other} offered an alibi before anyone had asked for one.",
            "{first} watched {other} fold a receipt into a very small square.",
            "{other} kept glancing at the door, and {first} let the silence do the work.",
            "According to {other}, the lights had flickered just after lunch.",
        ),
        closings=(
            "By evening the pieces had settled into an order {first} could live with.",
            "{first} closed the notebook. The case, such as it was, could wait for morning.",
            "Whatever else was true, the day had left a trail, and {first} meant to follow it.",
        ),
        date=(
            "The ledger on the counter was dated {date}, in a tidy hand.",
            "{first} wrote {date} at the top of a fresh page and started a list.",
        ),
        location=(
            "{location} looked ordinary, which was exactly what made {first} careful.",
            "At {location}, the floorboards kept a record of every visitor.",
        ),
        entity=(
            "{entity} took the measure of the room the way others take off a coat.",
            "For the record, the name on the visitor list was {entity}.",
        ),
        content=(
            (
                "The {content} was the reason everyone had come, and {first} {detail} while keeping an eye on"
                " the room."
            ),
            "In the middle of the {content}, {first} {detail}, noting who looked away.",
        ),
    ),
    "comedy": StyleBank(
        openings=(
            "Things went wrong early, which at least got it out of the way.",
            "{first} had planned the day in great detail, and the day had other plans.",
            "A pigeon stole a sandwich before anything else happened, setting the tone.",
        ),
        fillers=(
            "{first} tripped over a cable, apologised to it, and carried on.",
            "Somebody had brought a trombone, and nobody would admit to it.",
            "The coffee was either very strong or slightly alive.",
            "{first} waved at a stranger, who turned out to be waving at someone else entirely.",
            "A folding chair refused to fold, then refused to unfold, then gave up altogether.",
            "The sign read please keep left, so naturally everyone kept right.",
            "{first} laughed so hard at a pun that tea came out of both nostrils.",
            "A dog in a tiny raincoat inspected the crowd with deep suspicion.",
        ),
        companions=(
            "{other} insisted on explaining the rules, then broke every one of them.",
            "{first} and {other} spent ten minutes trying to open the same door from opposite sides.",
            "{other} arrived wearing two different shoes and declared it a fashion statement.",
            "When {other} sneezed, the whole front row said bless you in perfect harmony.",
        ),
        closings=(
            "Against all odds, everyone went home smiling, and one person went home with the trombone.",
            "{first} decided it had been a triumph, mostly because nothing had caught fire.",
            "The day ended the way it began, with a pigeon and no regrets.",
        ),
        date=(
            "It was {date}, a day the calendar had clearly not prepared for.",
            "Someone had written {date} on the whiteboard, then drawn a small moustache beside it.",
        ),
        location=(
            "{location} had never hosted anything quite so chaotic, and it showed.",
            "The caretaker of {location} watched the crowd arrive with the face of a man counting spoons.",
        ),
        entity=(
            "{entity} arrived with a clipboard, a whistle and a hat that had opinions.",
            (
                "Everyone agreed that {entity} was the calmest person present, which said a lot about the"
                " others."
            ),
        ),
        content=(
            "Then the {content} began in earnest, and {first} {detail} to scattered but sincere applause.",
            (
                "Halfway through the {content}, {first} {detail}, and somehow that was the least strange"
                " thing so far."
            ),
        ),
    ),
    "tragedy": StyleBank(
        openings=(
            "The morning came grey and slow, as if reluctant to begin.",
            "{first} had come back to this place believing it would be easier this time.",
            "There are days that carry their ending folded inside them, and this was one.",
        ),
        fillers=(
            "{first} remembered a promise made long ago and kept only halfway.",
            "The wind pulled at coats and at the thin courage underneath them.",
            "Laughter rose somewhere near the front and fell again, as laughter does.",
            "{first} held a cup gone cold and let the warmth of the crowd pass by.",
            "Old photographs had a way of looking back, and {first} avoided them.",
            "The light slanted low across the floor, long before it had any right to.",
            "Every kindness that afternoon felt borrowed against something.",
            "{first} thought of the people who should have been there, and the space they left.",
        ),
        companions=(
            "{other} spoke gently, as if to someone recently wounded.",
            "{first} saw {other} turn away to hide a face that had started to crumple.",
            "{other} pressed a hand on a shoulder and said nothing, which was the right thing.",
            "It was {other} who stayed longest, folding chairs in the failing light.",
        ),
        closings=(
            "When it was over, {first} stood alone for a while and let the quiet settle.",
            "The day closed softly, the way a door closes on a room that will not be opened again.",
            "{first} walked home slowly, carrying the day like something fragile and already cracked.",
        ),
        date=(
            "It was {date}, and {first} would remember the date long after the rest had faded.",
            "{date} began like any other day, which only made it harder later.",
        ),
        location=(
            "{location} held more memories than it had room for.",
            "At {location}, the old paint was peeling in long pale strips.",
        ),
        entity=(
            "{entity} stood at the edge of the crowd, close enough to belong and far enough to leave.",
            "The name {entity} had once meant something bright here.",
        ),
        content=(
            "The {content} went on regardless, and {first} {detail}, hands steadier than the heart.",
            "For a brief hour the {content} made everything bearable, and {first} {detail}.",
        ),
    ),
    "romance": StyleBank(
        openings=(
            "The air smelled of cut grass and possibility.",
            "{first} had not expected to feel nervous, and felt nervous anyway.",
            "Some days begin with a glance held a moment too long.",
        ),
        fillers=(
            "{first} tucked a loose strand of hair away and pretended not to be watching the door.",
            "Music drifted from somewhere, soft enough to lean into.",
            "A shared umbrella turned strangers into neighbours for the length of a shower.",
            "{first} laughed, and the sound surprised {them} with its lightness.",
            "Every smile in the room seemed to be hiding a second, shyer one.",
            "Sunlight warmed the backs of hands resting close together on a railing.",
            "{first} caught a reflection in a window and, for once, liked what {they} saw.",
            "Someone hummed a half-remembered love song under the noise of the crowd.",
        ),
        companions=(
            "{other} handed {first} a paper cup of lemonade and held on a second too long.",
            "{first} and {other} found themselves reaching for the same programme.",
            "{other} had a way of listening that made every word feel worth saying.",
            "When {other} smiled across the room, {first} forgot what {they} had been saying.",
        ),
        closings=(
            "As the light softened, {first} realised {they} did not want the day to end.",
            "They parted with promises neither had quite said aloud.",
            "{first} walked home with a warmth that had nothing to do with the weather.",
        ),
        date=(
            "It was {date}, and the whole world seemed to be holding its breath.",
            "Later, {first} would write {date} in the margin of a favourite book.",
        ),
        location=(
            "{location} glowed in the late light, every edge gone gold.",
            "At {location}, fairy lights hung in loose loops between the posts.",
        ),
        entity=(
            "{entity} stepped in from the sunshine, cheeks flushed, eyes searching the room.",
            "The card pinned by the door read {entity}, in looping handwriting.",
        ),
        content=(
            "The {content} drew everyone closer together, and {first} {detail}, glowing with it.",
            "During the {content}, {first} {detail} and felt a pair of eyes follow every move.",
        ),
    ),
    "thriller": StyleBank(
        openings=(
            "The clock was already running when {first} arrived.",
            "Move fast, look calm: {first} had the rule memorised.",
            "Something was off from the very first minute.",
        ),
        fillers=(
            "{first} checked the exits again. Still clear. For now.",
            "A phone buzzed twice and went silent.",
            "Footsteps behind {them} matched {their} pace, then stopped when {they} stopped.",
            "{first} kept {their} breathing slow and {their} hands loose.",
            "A van idled outside with its engine running and its windows dark.",
            "The crowd shifted, and for a second {they} lost sight of the door.",
            "{first} memorised three faces and forgot the rest on purpose.",
            "Every second counted now, and {they} could feel them going.",
        ),
        companions=(
            "{other} slipped a folded note across the table and walked away without a word.",
            "{first} spotted {other} near the stairs, watching too carefully.",
            "{other} muttered a warning about the back corridor.",
            "When {other} stepped too close, {first} shifted {their} weight, ready.",
        ),
        closings=(
            "{first} made it out with seconds to spare, heart hammering, and did not look back.",
            "The day was over. Whatever was hunting {them} was not.",
            "By nightfall, {first} knew one thing for certain: this was only the beginning.",
        ),
        date=(
            "{date}. The date on the pass burned in {their} pocket.",
            "The message had said {date}, and the message had never been wrong.",
        ),
        location=(
            "{location} was crowded, loud and full of blind corners.",
            "Getting into {location} had been easy. Getting out would be the hard part.",
        ),
        entity=(
            "{entity} slipped through the side entrance, face calm, pulse racing.",
            "The badge clipped to {their} jacket said {entity}. It would have to do.",
        ),
        content=(
            "The {content} was the perfect cover, so {first} {detail} and kept watching the crowd.",
            "In the thick of the {content}, {first} {detail}, every nerve awake.",
        ),
    ),
    "fantasy": StyleBank(
        openings=(
            "The morning arrived on silver wings, or so it seemed to {first}.",
            "Old songs say that certain days are thinner than others, and this was one.",
            "A wind from nowhere set every banner dancing at once.",
        ),
        fillers=(
            "{first} felt the hum of old magic underfoot, faint as a remembered tune.",
            "Lanterns floated a little higher than lanterns ought to.",
            "A crow watched from the rooftop with one gold eye.",
            "{first} traced a rune in the dust without quite knowing why.",
            "The stones remembered older days and whispered of them to anyone who listened.",
            "Colours seemed brighter here, as if the world had been freshly painted.",
            "{first} heard bells that no one else seemed to hear.",
            "Moss grew in spirals along the walls, patient as a spell.",
        ),
        companions=(
            "{other} claimed to be descended from a river spirit, and nobody argued.",
            "{first} watched {other} coax a spark from cupped hands.",
            "{other} spoke in riddles, each one a small locked door.",
            "When {other} laughed, the candles leaned toward the sound.",
        ),
        closings=(
            "As dusk fell, the glamour lifted, and {first} carried a little of it home.",
            "The day ended like a story ends, with a promise of another.",
            "{first} left the last lantern burning, for luck and for the old powers.",
        ),
        date=(
            "It was {date}, a date the seers had marked in their star charts.",
            "The calendar stone read {date}, carved in looping script.",
        ),
        location=(
            "{location} shimmered faintly at its edges, as if not fully of this world.",
            "The old folk say {location} stands on a ley line, and today they were believed.",
        ),
        entity=(
            "{entity} walked in with light clinging to the hem of a long green cloak.",
            "The heralds announced {entity} with a flourish of copper horns.",
        ),
        content=(
            (
                "The {content} unfolded like a spell cast slowly, and {first} {detail} as sparks drifted"
                " overhead."
            ),
            "Deep in the enchantment of the {content}, {first} {detail}.",
        ),
    ),
    "horror": StyleBank(
        openings=(
            "The cold came first, seeping up through the floor.",
            "{first} felt watched before there was anyone to watch {them}.",
            "The lights were on, and somehow that made it worse.",
        ),
        fillers=(
            "Something scraped in the walls, slow and patient.",
            "{first} told {themself} the shadow in the corner was only a coat.",
            "The smell of damp earth hung where no earth should be.",
            "A door at the end of the corridor stood open that had been closed.",
            "{first} laughed too loudly at a joke, just to hear a human sound.",
            "The candles guttered all at once, then steadied.",
            "Every reflection lagged a fraction behind the person making it.",
            "{first} pulled {their} sleeves over {their} hands against a chill that came from inside.",
        ),
        companions=(
            "{other} smiled without showing any teeth, and {first} looked away first.",
            "{first} saw {other} standing perfectly still while everyone else moved.",
            "{other} whispered a name that nobody present owned.",
            "When {other} touched {their} arm, the skin there stayed cold for an hour.",
        ),
        closings=(
            "{first} left before dark, and the dark followed politely behind.",
            "Later, alone, {they} heard the scraping again, closer.",
            "The day ended, but the feeling of being watched did not.",
        ),
        date=(
            "It was {date}, and the date felt wrong in the mouth, like a word in a dead language.",
            "The calendar in the hall had stopped on {date}, and no one had turned the page.",
        ),
        location=(
            "{location} seemed larger inside than out, and darker than the windows allowed.",
            "Something about {location} made people lower their voices without knowing why.",
        ),
        entity=(
            "{entity} stepped across the threshold and felt the temperature drop.",
            "A voice from the dark called {entity}, patiently, twice.",
        ),
        content=(
            (
                "The {content} carried on with brittle cheer, and {first} {detail} while the shadows pressed"
                " closer."
            ),
            "Somewhere in the middle of the {content}, {first} {detail}, and the room went very quiet.",
        ),
    ),
    "mystery": StyleBank(
        openings=(
            "A sealed envelope waited on the table, addressed to no one.",
            "{first} arrived early, hoping to catch the place off guard.",
            "Everything looked as it should, which was the first clue.",
        ),
        fillers=(
            "{first} noticed a key on a ribbon, hanging where no key belonged.",
            "A page had been torn from the guest book, neatly, with a ruler.",
            "Whispers stopped whenever {first} came near, then started again behind {them}.",
            "The portrait over the mantel had been rehung slightly crooked.",
            "{first} found a ticket stub in a coat pocket and kept it.",
            "A pattern in the floor tiles repeated, then broke, then repeated.",
            "{first} sensed that the answer was in plain sight and refusing to stand still.",
            "The scent of pipe smoke lingered in a room where nobody smoked.",
        ),
        companions=(
            "{other} dropped a hint and then pretended it had been a joke.",
            "{first} overheard {other} mention a locked cabinet upstairs.",
            "{other} knew more than a stranger should, and hid it badly.",
            "When {other} left early, {first} noted the direction and the hurry.",
        ),
        closings=(
            "When the crowd thinned, {first} finally saw how the pieces fit.",
            "The last clue clicked into place, and {first} smiled to {themself}.",
            "{first} slipped the ticket stub into {their} notebook, the day's best souvenir.",
        ),
        date=(
            "The postmark on the envelope read {date}.",
            "Someone had circled {date} on the calendar in red ink, and only that date.",
        ),
        location=(
            "{location} kept its secrets the way old buildings do, in corners and cupboards.",
            "At {location}, every creaking board seemed to point somewhere.",
        ),
        entity=(
            "{entity} signed the guest book with a steady, careful hand.",
            "The invitation had been addressed to {entity}, and nobody knew who had sent it.",
        ),
        content=(
            "The {content} was well under way, and {first} {detail} while watching for the next clue.",
            "Amid the bustle of the {content}, {first} {detail}, and a stranger took note.",
        ),
    ),
}

# Neutral sentences any style may use, so long chapters do not repeat themselves.
SHARED_FILLERS: tuple[str, ...] = (
    "A breeze moved through the crowd and rearranged the smells of food and dust.",
    "{first} stepped aside to let a family with a pushchair pass.",
    "The noise rose and fell like a tide against a wall.",
    "Somebody dropped a tray, and for a moment every head turned.",
    "{first} took a long breath and let the scene settle in {their} memory.",
    "Children wove between the grown-ups, trailing laughter and crumbs.",
    "Overhead, gulls circled and complained about everything.",
    "{first} rolled up {their} sleeves, ready for whatever came next.",
    "The volunteers in bright vests moved with practised calm.",
    "A radio somewhere played an old song, slightly out of tune.",
    "{first} found a quiet bench and watched the world go by for a while.",
    "The queue for tea stretched almost to the gate.",
    "Paper bunting snapped and fluttered along the railings.",
    "{first} traded a nod with a stranger who seemed to understand.",
    "A photographer crouched low, hunting for the perfect angle.",
    "The afternoon stretched out, warm and unhurried.",
    "Shoes squeaked on polished boards and echoed off the ceiling.",
    "{first} noticed the small things: a chipped mug, a lost glove, a drawing pinned to a board.",
    "Conversation hummed in a dozen accents at once.",
    "The organisers hurried past with clipboards and worried smiles.",
    "{first} stretched {their} shoulders and felt the day settle into its rhythm.",
    "Clouds built up in the west, then thought better of it.",
    "The smell of frying onions drifted over from a stall near the entrance.",
    "Applause broke out somewhere, for reasons {first} never learned.",
    "A stack of leaflets slid off a table and fanned out across the floor.",
    "{first} wiped {their} palms on {their} coat and waited for the next thing to happen.",
    "Voices carried from the far end, bright and overlapping.",
    "The floor trembled slightly whenever a heavy trolley rolled past.",
    "{first} counted the faces {they} recognised and came up with very few.",
    "A child asked a question loudly and was hushed by three adults at once.",
    "Somebody was handing out paper cups of water, and {first} took one gratefully.",
    "The windows rattled in their frames as the wind picked up.",
    "{first} leaned against a pillar and let the chatter wash over {them}.",
    "Two old friends embraced near the entrance, laughing at the same memory.",
    "A lost balloon drifted up toward the rafters and stayed there.",
    "{first} watched a volunteer untangle a knot of extension leads with saintly patience.",
    "The hum of the crowd settled into something almost like music.",
    "Someone had set out a tin of biscuits, and it emptied with alarming speed.",
    "{first} checked the time, then checked it again out of habit.",
    "Light from the high windows laid long bright bars across the floor.",
    "A small dog barked once, decisively, and then lay down.",
    "{first} shifted {their} bag to the other shoulder and pressed on.",
    "Laughter spilled out of a side room whenever its door swung open.",
    "The air smelled of rain on warm stone.",
)

SHARED_COMPANIONS: tuple[str, ...] = (
    "{other} waved from across the room and came over to talk.",
    "{first} shared a bench with {other} and a bag of toffees.",
    "{other} pointed out the best place to stand.",
    "{first} helped {other} carry a box of programmes to the front.",
)


@dataclass(frozen=True)
class WrittenChapter:
    """A chapter's paragraphs, and who appears in it besides the protagonist."""

    paragraphs: tuple[str, ...]
    secondary: tuple[str, ...]

    @property
    def text(self) -> str:
        return "\n\n".join(self.paragraphs)


def secondary_count(rng: random.Random) -> int:
    """How many secondary characters a chapter has: 1–4, two most often (cf. the paper's Table 8)."""
    return rng.choices((1, 2, 3, 4), weights=(3, 5, 3, 1))[0]


def write_chapter(
    event: Event, meta: EventMeta, secondary: Sequence[str], seed: str, pronoun: str = "she"
) -> WrittenChapter:
    """The chapter of `event`: deterministic in its arguments, every feature in its paragraph."""
    rng = random.Random(f"episodic|prose|{seed}")
    bank = BANKS[meta.style]
    values = {
        "first": first_name(event.entity),
        "entity": event.entity,
        "date": event.date,
        "location": event.location,
        "content": event.content,
        "detail": event.detail,
        **PRONOUNS[pronoun],
    }
    fillers = _Deck(rng, bank.fillers + SHARED_FILLERS)
    companions = _Deck(rng, bank.companions + SHARED_COMPANIONS)
    n = meta.nb_paragraphs
    # Each secondary character appears once in a random paragraph, and sometimes again.
    appearances: dict[int, list[str]] = {k: [] for k in range(1, n + 1)}
    for name in secondary:
        for paragraph in {rng.randint(1, n) for _ in range(rng.choice((1, 1, 2)))}:
            appearances[paragraph].append(name)
    paragraphs = []
    for k in range(1, n + 1):
        middle = [
            rng.choice(getattr(bank, feature)).format(**values)
            for feature in FEATURE_ORDER
            if meta.idx_paragraph[feature] == k
        ]
        middle += [companions.draw().format(**values, other=name) for name in appearances[k]]
        for _ in range(max(0, rng.randint(4, 7) - len(middle))):
            middle.append(fillers.draw().format(**values))
        rng.shuffle(middle)
        head = [rng.choice(bank.openings).format(**values)] if k == 1 else []
        tail = [rng.choice(bank.closings).format(**values)] if k == n and n > 1 else []
        paragraphs.append(" ".join(head + middle + tail))
    return WrittenChapter(tuple(paragraphs), tuple(secondary))


class _Deck:
    """Sentences dealt without repeats until the deck runs out, then reshuffled."""

    def __init__(self, rng: random.Random, cards: Sequence[str]) -> None:
        self.rng = rng
        self.cards = list(cards)
        self.pile: list[str] = []

    def draw(self) -> str:
        if not self.pile:
            self.pile = list(self.cards)
            self.rng.shuffle(self.pile)
        return self.pile.pop()
