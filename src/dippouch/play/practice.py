"""Starting a practice game against bots (docs/bots.md): a game whose every other power is a bot, its
person seated on their power with a player key, the bots' first orders sent at once.

The game is unlisted and marked as practice in its settings (so the public list never shows it, and the caps
can count it). What keeps it from being abused: caps on the practice games not yet over, per client and
overall, counted and created in one turn (:func:`dippouch.store.bots.practice_slot`), so requests at the same
moment cannot both see room under a cap; a refusal says which cap and its number. The client is kept as an
HMAC keyed with the installation's secret (:func:`client_tag`), enough to count, not to show. When a practice
game its person left stops is :mod:`dippouch.bots.practice`'s.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import datetime

from dippouch.bots import LEVELS
from dippouch.bots.practice import strongest_level
from dippouch.bots.seats import check_level, play_seats, seat_bot
from dippouch.catalog import load_variant, variants_usable
from dippouch.core.messages import msg
from dippouch.game import GameError, GameSettings
from dippouch.store import bots as store_bots
from dippouch.store import games as store_games
from dippouch.store.access import AccessStore
from dippouch.store.bots import open_practice_games, practice_slot
from dippouch.store.installation import installation_secret
from dippouch.store.repository import GameStore

I18N_DOMAIN = "rules"
"""The catalogue of this module's refusals, said in the reader's language where they are shown."""

__all__ = [
    "AFFORDABLE_LEVELS",
    "DEFAULT_PACE",
    "PACES",
    "PER_CLIENT",
    "PLAYER",
    "TOTAL",
    "PracticeCapReached",
    "PracticeStarted",
    "client_tag",
    "default_level",
    "note_visited",
    "note_watched",
    "start_practice",
]

#: The paces one may choose: a label, and the time a movement, retreat and adjustment phase each get.
#: "ready": the phase is processed as soon as the person's orders are marked ready (bots are always ready);
#: the long deadline only moves a game its player left.
PACES: dict[str, tuple[str, str]] = {
    "ready": ("when I'm ready", "7d"),
    "2m": ("a phase every 2 minutes", "2m"),
    "10m": ("a phase every 10 minutes", "10m"),
    "1d": ("a phase a day", "1d"),
}
DEFAULT_PACE = "ready"
AFFORDABLE_LEVELS = ("search", "heuristic")
"""The levels a practice game is offered by default, strongest first (:func:`default_level`)."""


def note_visited(store: GameStore, game: str, *, now: datetime) -> None:
    """The person playing the practice game ``game`` came to it now: it is not left, so not stopped."""
    store_bots.note_practice_visit(store, game, now=now)


def note_watched(store: GameStore, game: str, *, now: datetime) -> None:
    """A signed-in person looked at ``game`` now: a game bots alone play that is watched is not paused."""
    store_bots.note_watched(store, game, now=now)


def default_level(variant: str = "standard") -> str:
    """The level a practice game offers when none is chosen: the heuristic, which answers at once (the players'
    trial: search bots took 2.1 s to start a standard game, 7.2 s for W3K and 1.4-3.4 s a phase, which a person
    waits for after each "ready"). The search level is the person's to choose where the machine can afford it
    for the variant's bots (:func:`dippouch.bots.practice.strongest_level`: refused otherwise)."""
    del variant  # every variant's default: one level, so the form's choice never changes under the person
    return "heuristic"


def __getattr__(name: str) -> str:
    """``DEFAULT_LEVEL``: the standard game's :func:`default_level`, worked out when first read (the home page's
    form offers it), not when this module is imported."""
    if name == "DEFAULT_LEVEL":
        return default_level()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


PER_CLIENT = 3
"""Practice games not yet over that one client may have."""
TOTAL = 200
"""Practice games not yet over on the whole site."""
PLAYER = "you (practice)"


class PracticeCapReached(GameError):
    """A cap on practice games is reached: worth trying again only once one of them is over or left."""

    retry_after = 600


@dataclass(frozen=True)
class PracticeStarted:
    """A new practice game: its name, the person's power and their player key's secret."""

    game: str
    power: str
    secret: str


def client_tag(store: GameStore, client: str) -> str:
    """What a practice game keeps of the client that started it: enough to count, not to show. An HMAC
    keyed with the installation's own secret: a plain hash of an address could be undone by hashing every
    address there is (IPv4 has four billion) by anyone who sees a game's settings (an export, a backup)."""
    key = installation_secret(store, "practice-client")
    return hmac.new(key, client.encode(), hashlib.sha256).hexdigest()[:20]


def _choose(variant_name: str, wanted: str, level: str | None, pace: str) -> tuple[str, list[str], str, str]:
    """The variant, its powers, the person's power and the bots' level (``None``: :func:`default_level`, or
    weaker where the machine cannot afford even that; a level stronger than it affords for the variant's bots
    is refused), or GameError naming what to choose."""
    good, _broken = variants_usable()
    usable = [v.name for v in good]
    if variant_name not in usable:
        raise GameError(
            msg(
                "no usable variant %(variant)s; choose one of %(variants)s",
                variant=repr(variant_name),
                variants=", ".join(usable),
            )
        )
    powers = [p.name for p in load_variant(variant_name).powers]
    if wanted.lower() == "any":
        power = secrets.choice(powers)
    else:
        match = [p for p in powers if p.lower() == wanted.lower()]
        if not match:
            raise GameError(
                msg(
                    "%(variant)s has no power %(power)s; its powers are %(powers)s, or any",
                    variant=variant_name,
                    power=repr(wanted),
                    powers=", ".join(powers),
                )
            )
        power = match[0]
    affordable = strongest_level(len(powers) - 1)
    if level is None:
        level = min(default_level(variant_name), affordable, key=LEVELS.index)
    level = check_level(level)
    if LEVELS.index(level) > LEVELS.index(affordable):
        # Every "ready" of the person waits for all the bots, on the server's processors: a level the machine
        # cannot afford for this many bots is no practice (and anyone, signed in or not, may start one).
        weaker = ", ".join(LEVELS[: LEVELS.index(affordable) + 1])
        raise GameError(
            msg(
                "the %(level)s level is more than this site can afford for %(count)d bots (each time you mark your "
                "orders ready you would wait for them all); choose one of %(levels)s",
                level=level,
                count=len(powers) - 1,
                levels=weaker,
            )
        )
    if pace not in PACES:
        paces = ", ".join(f"{k} ({v[0]})" for k, v in PACES.items())
        raise GameError(msg("no pace %(pace)s; choose one of %(paces)s", pace=repr(pace), paces=paces))
    return variant_name, powers, power, level


def start_practice(
    store: GameStore,
    access: AccessStore,
    *,
    client: str,
    now: datetime,
    variant: str = "standard",
    power: str = "any",
    level: str | None = None,
    pace: str = DEFAULT_PACE,
    per_client: int = PER_CLIENT,
    total: int = TOTAL,
) -> PracticeStarted:
    """Check the choices, then the caps (PracticeCapReached), then create the game, seat the bots and the
    person, and let the bots send their first orders (``level`` ``None``: the strongest this machine can
    afford, :func:`default_level`). Nothing is stored when anything is refused."""
    variant, powers, power, level = _choose(variant, power, level, pace)
    tag = client_tag(store, client)
    with practice_slot(store):
        open_games = open_practice_games(store)
        mine = sum(1 for t in open_games.values() if t == tag)
        if mine >= per_client:
            raise PracticeCapReached(
                msg(
                    "you already have %(count)s practice games going (at most %(most)s at once); finish one of "
                    "them first, or leave it: a practice game its player has left stops after a while (ten of its "
                    "movement phases, at least an hour, at most a week)",
                    count=mine,
                    most=per_client,
                )
            )
        if len(open_games) >= total:
            raise PracticeCapReached(
                msg(
                    "the site has %(count)s practice games going, its limit (%(most)s); try again later",
                    count=len(open_games),
                    most=total,
                )
            )
        name = f"practice-{secrets.token_hex(5)}"
        deadline = PACES[pace][1]
        settings = GameSettings(
            deadlines={"movement": deadline, "retreats": deadline, "adjustments": deadline},
            missed_limit=0,  # the person's power never falls into civil disorder: the game waits for them
            practice=tag,
            when_ready=pace == "ready",
        )
        store_games.create_game(store, name, variant, now=now, settings=settings)
        access.set_visibility(name, "unlisted")
        for other in powers:
            if other != power:
                seat_bot(store, name, other, level, now=now)
        store_games.assign(store, name, power, PLAYER, now=now)
        _, secret = access.create_key("player", game=name, power=power, label=PLAYER, now=now)
    # The bots' first orders after the turn: the caps are settled, and a slow level must not hold up
    # everyone else's start.
    play_seats(store, now=now, games=[name])
    return PracticeStarted(name, power, secret)
