"""The guided first game's lessons, as data (docs/learn.md): each a corner of the standard board, the power the
reader plays, the other powers' scripted orders, and a goal the next position is checked against.

A lesson's position is the standard opening's with its units (and, where given, its supply centres and phase)
replaced; ``setup`` orders are adjudicated first, by the real engine, to reach a position a lesson cannot write
down by hand (a retreat phase: the engine works out who is dislodged and where it may go). The texts are
marked for the ``rules`` catalogue (``N_``) and said in the reader's language where the page shows them.
``answer`` is one set of orders that reaches the goal (the tests play it; a page never shows it unasked).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from dippouch.core.messages import N_

I18N_DOMAIN = "rules"

__all__ = ["LESSONS", "Goal", "Lesson"]


@dataclass(frozen=True)
class Goal:
    """A checkable predicate on the position after the lesson's phase.

    ``unit``: a unit of ``power`` stands in ``at`` (a province, or a coast ``spa/nc``), of ``unit`` kind if given;
    ``no_unit``: no unit of ``power`` stands in ``at``; ``units``: ``power`` has ``count`` units or more.
    """

    kind: Literal["unit", "no_unit", "units"]
    power: str
    at: str = ""
    unit: str = ""
    count: int = 0


@dataclass(frozen=True)
class Lesson:
    slug: str
    title: str
    text: str
    task: str
    power: str
    units: tuple[tuple[str, str], ...]
    """(power, unit) pairs: ``("France", "A pic")``."""
    goals: tuple[Goal, ...]
    answer: str
    opponents: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """The other powers' orders, as a game would receive them."""
    phase: str = "Spring 1901 Movement"
    centres: dict[str, tuple[str, ...]] | None = None
    """Supply centres by owner (``None``: the opening's)."""
    setup: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Orders adjudicated before the lesson begins (every power's), to reach its phase."""
    example: str = ""
    """How an order of this lesson is written, shown beside the order box."""


LESSONS: tuple[Lesson, ...] = (
    Lesson(
        slug="moves",
        title=N_("Moving a unit"),
        text=N_(
            "Every unit is an army (A) or a fleet (F). Each turn you give each unit one order; the simplest is a "
            "move to a neighbouring province, written with a dash: the unit, a dash, where it goes. Armies move "
            "over land, fleets over sea and along coasts. A province with a supply centre that you hold at the end "
            "of a year is yours."
        ),
        task=N_("You play France. Move your army in Picardy into Belgium."),
        power="France",
        units=(("France", "A pic"), ("France", "A par"), ("Germany", "A mun")),
        opponents={"Germany": ("A mun H",)},
        goals=(Goal("unit", "France", "bel"),),
        answer="A pic - bel",
        example="A pic - bel",
    ),
    Lesson(
        slug="bounce",
        title=N_("A bounce"),
        text=N_(
            "All orders are carried out at the same moment. When two units of equal strength try to enter the "
            "same province, neither gets in: they bounce, and both stay where they were. A unit standing still "
            "keeps out an attacker of the same strength too. Germany's army in Munich is about to march into "
            "Burgundy."
        ),
        task=N_("Keep Germany out of Burgundy."),
        power="France",
        units=(("France", "A par"), ("France", "A mar"), ("Germany", "A mun")),
        opponents={"Germany": ("A mun - bur",)},
        goals=(Goal("no_unit", "Germany", "bur"),),
        answer="A par - bur",
        example="A mar - bur",
    ),
    Lesson(
        slug="support",
        title=N_("Support"),
        text=N_(
            "A unit may support another instead of moving: it adds one to the strength of that unit's move (or of "
            "its hold). A move gets in only with more strength than what stands against it. The supporting unit "
            "must be able to move into the province it supports into, and it stays where it is."
        ),
        task=N_("You play France. Germany holds Belgium with one army: take Belgium."),
        power="France",
        units=(("France", "A pic"), ("France", "A bur"), ("Germany", "A bel")),
        opponents={"Germany": ("A bel H",)},
        goals=(Goal("unit", "France", "bel"),),
        answer="A pic - bel\nA bur S A pic - bel",
        example="A bur S A pic - bel",
    ),
    Lesson(
        slug="cut",
        title=N_("Cutting a support"),
        text=N_(
            "A unit that is attacked gives no support: its support is cut, even if the attack fails (unless the "
            "attack comes from the province the support is aimed at). Austria attacks Munich from Tyrolia, "
            "supported by Bohemia, and also attacks Silesia from Galicia."
        ),
        task=N_("You play Germany. Hold Munich against two."),
        power="Germany",
        units=(
            ("Germany", "A mun"),
            ("Germany", "A sil"),
            ("Austria", "A tyr"),
            ("Austria", "A boh"),
            ("Austria", "A gal"),
        ),
        opponents={"Austria": ("A tyr - mun", "A boh S A tyr - mun", "A gal - sil")},
        goals=(Goal("unit", "Germany", "mun"),),
        answer="A mun H\nA sil - boh",
        example="A sil - boh",
    ),
    Lesson(
        slug="convoy",
        title=N_("Convoys"),
        text=N_(
            "A fleet at sea can carry an army across it: the fleet orders a convoy (C) and the army orders its "
            "move as if the sea were not there. If the convoying fleet is dislodged, the convoy is disrupted and "
            "the army stays home. Germany means to drive your fleet out of the North Sea with two fleets."
        ),
        task=N_("You play England. Land your army from Yorkshire in Norway."),
        power="England",
        units=(
            ("England", "A yor"),
            ("England", "F nth"),
            ("England", "F edi"),
            ("Germany", "F hel"),
            ("Germany", "F den"),
        ),
        opponents={"Germany": ("F hel - nth", "F den S F hel - nth")},
        goals=(Goal("unit", "England", "nwy", "A"),),
        answer="A yor - nwy\nF nth C A yor - nwy\nF edi S F nth",
        example="F nth C A yor - nwy",
    ),
    Lesson(
        slug="retreats",
        title=N_("Retreats"),
        text=N_(
            "A dislodged unit must retreat to an empty neighbouring province, or it is disbanded. It may not "
            "retreat to where the attack came from, nor to a province left empty by a bounce. Two units that "
            "retreat to the same province are both disbanded. Last spring Germany drove your army out of "
            "Burgundy, and England drove a German army out of Belgium: both must retreat now."
        ),
        task=N_("You play France. Save your army: retreat it where it survives."),
        power="France",
        units=(
            ("France", "A bur"),
            ("Germany", "A mun"),
            ("Germany", "A ruh"),
            ("Germany", "A bel"),
            ("England", "A hol"),
            ("England", "F nth"),
        ),
        setup={
            "France": ("A bur H",),
            "Germany": ("A mun - bur", "A ruh S A mun - bur", "A bel H"),
            "England": ("A hol - bel", "F nth S A hol - bel"),
        },
        opponents={"Germany": ("A bel R pic",)},
        phase="Spring 1901 Retreats",
        goals=(Goal("units", "France", count=1),),
        answer="A bur R par",
        example="A bur R gas",
    ),
    Lesson(
        slug="builds",
        title=N_("Builds"),
        text=N_(
            "After the autumn moves, each power counts its supply centres: with more centres than units it "
            "builds new units, one a centre, only in its home centres that it still holds and that are empty. "
            "With fewer centres than units it removes units. France holds five centres with three units."
        ),
        task=N_("Build a fleet in Brest and a second new unit."),
        power="France",
        phase="Winter 1901 Adjustments",
        units=(("France", "A spa"), ("France", "A bel"), ("France", "A mar"), ("Germany", "A mun")),
        centres={
            "France": ("bre", "mar", "par", "spa", "bel"),
            "Germany": ("mun",),
        },
        goals=(Goal("unit", "France", "bre", "F"), Goal("units", "France", count=5)),
        answer="Build F bre\nBuild A par",
        example="Build A par",
    ),
    Lesson(
        slug="coasts",
        title=N_("Coasts"),
        text=N_(
            "Spain, St Petersburg and Bulgaria have two coasts. An army simply enters the province, but a fleet "
            "sails to one coast and from there reaches only the seas and provinces along that coast. Name the "
            "coast in the order: nc for north coast, sc for south coast, ec for east coast."
        ),
        task=N_("Sail your fleet to Spain's north coast, from where it can reach Gascony."),
        power="France",
        units=(("France", "F mao"), ("France", "A par")),
        goals=(Goal("unit", "France", "spa/nc", "F"),),
        answer="F mao - spa/nc",
        example="F mao - spa/nc",
    ),
)
