"""Starting, finding, joining and leaving games, once for every door: any signed-in player starts a game from a
template and coordinates it; the open games are found by filters; quick play joins the one that starts
soonest; sign-up, the waiting list, claiming a seat from the pool and resigning (those two change a seat's hands,
as every door's do, in :mod:`dippouch.play.seats`).

The templates are data (:data:`PRESETS`, and one for each variant the catalog holds): a variant, phase lengths,
press rules, anonymity, the reliability asked, and whether the game is private (found only by its invitation
link). The web's pages and its JSON API call these functions and show what they return; who is asking (the
signed-in person) is the door's to know and is passed in as ``person_id``.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any

from dippouch.catalog import load_variant, variant_files, variants_usable
from dippouch.core.errors import DippouchError
from dippouch.core.messages import Msg, msg
from dippouch.game import GameError, GameSettings, parse_duration
from dippouch.people.reliability import is_newcomer, meets, on_probation
from dippouch.play import seats
from dippouch.play.blocks import check_join
from dippouch.play.seats import resign
from dippouch.press.rules import KINDS, PressRules
from dippouch.store import openings as store_openings
from dippouch.store.openings import Opening
from dippouch.store.people.reliability import record_of, reliabilities
from dippouch.store.press.messages import press_rules, set_press_rules
from dippouch.store.repository import GameStore

I18N_DOMAIN = "rules"
"""The catalogue of what joining and leaving a game tells the person, and of the lobby's refusals."""

__all__ = [
    "LENGTHS",
    "PRESETS",
    "STARTS_SOON",
    "Created",
    "Filters",
    "Found",
    "Joined",
    "Template",
    "TemplateChoices",
    "claim",
    "create_from_template",
    "draw_powers",
    "find_games",
    "new_invitation",
    "open_to_players",
    "quick_play",
    "resign",
    "resign_message",
    "resign_text",
    "seat_signup",
    "sign_up",
    "start_when_full",
    "template",
    "templates",
    "withdraw",
]

STARTS_SOON = 2
"""A game "starts soon" when at most this many more sign-ups fill it (its clock is held until then)."""

LENGTHS = {"1h": timedelta(hours=1), "1d": timedelta(days=1), "2d": timedelta(days=2), "7d": timedelta(days=7)}
"""The phase-length filter's choices: movement phases at most this long."""


@dataclass(frozen=True)
class Template:
    """A preset new game: what a player picks on the new-game page before changing any of it."""

    key: str
    title: Msg
    """Said in the reader's language where it is shown (a variant's title inside it as the variant gives it)."""
    variant: str
    deadlines: Mapping[str, str]
    press: Mapping[str, Any] = field(default_factory=dict)
    """Press rules (:class:`~dippouch.press.rules.PressRules` data); empty: the variant's own."""
    anonymous: bool = False
    min_reliability: int = 0
    private: bool = False
    variant_title: str = ""
    """The variant's own title, as people know it (the name is its file's)."""
    newcomers: bool = True
    """Whether newcomers may join (``GameSettings.newcomers``): yes in every template, casual games being where a
    newcomer starts; the creator may keep theirs for players with a record."""


PRESETS = (
    Template(
        "standard-1d-full",
        msg("Standard, 1 day, full press"),
        "standard",
        {"movement": "1d", "retreats": "12h", "adjustments": "12h"},
        {"kind": "white"},
    ),
    Template(
        "gunboat-2d",
        msg("Gunboat, 2 days"),
        "standard",
        {"movement": "2d", "retreats": "1d", "adjustments": "1d"},
        {"kind": "none"},
        anonymous=True,
    ),
    Template(
        "standard-1h-live",
        msg("Standard, 1 hour, full press (a live evening)"),
        "standard",
        {"movement": "1h", "retreats": "20m", "adjustments": "20m"},
        {"kind": "white"},
    ),
)
"""Named presets; :func:`templates` adds one per variant."""

VARIANT_DEADLINES = {"movement": "2d", "retreats": "1d", "adjustments": "1d"}
"""Phase lengths of a variant's own template: a game played over a few weeks."""


def templates() -> list[Template]:
    """Every template offered: the presets, then one per variant that loads (its own press rules), each named
    by the variant's title."""
    good, _broken = variants_usable()
    titles = {v.name: v.title for v in good}
    out = [replace(t, variant_title=titles.get(t.variant, t.variant)) for t in PRESETS if t.variant in titles]
    out += [_variant_template(name, title) for name, title in titles.items()]
    return out


def _variant_template(name: str, title: str) -> Template:
    return Template(
        f"variant-{name}",
        msg("%(variant)s, 2 days, the variant's press", variant=title),
        name,
        VARIANT_DEADLINES,
        variant_title=title,
    )


def template(key: str) -> Template:
    """The template named ``key``; refused with the names there are."""
    key = key.strip()
    got = _named(key)
    if got is not None:
        return got
    found = {t.key: t for t in templates()}
    raise GameError(
        msg("no template %(template)s; choose one of %(templates)s", template=repr(key), templates=", ".join(found))
    )


def _named(key: str) -> Template | None:
    """The template ``key`` names, as :func:`templates` lists it, made from its one variant: every new game
    asked for listed the 41 variants to find its own (200 ``stat`` calls, some 4 ms of the server's
    interpreter, for a request refused at its creator's cap too). None where it names none that loads."""
    preset = next((t for t in PRESETS if t.key == key), None)
    name = preset.variant if preset is not None else key.removeprefix("variant-") if key.startswith("variant-") else ""
    if not name or name not in {f.name for f in variant_files() if f.status == "used"}:
        return None
    try:
        title = load_variant(name).title
    except (DippouchError, OSError, ValueError):  # a broken file: not offered, as templates() leaves it out
        return None
    return replace(preset, variant_title=title) if preset is not None else _variant_template(name, title)


@dataclass(frozen=True)
class TemplateChoices:
    """What the player changed on the template (``None``: the template's value)."""

    template: str
    name: str = ""
    movement: str | None = None
    retreats: str | None = None
    adjustments: str | None = None
    press: str | None = None
    """A press kind (:data:`~dippouch.press.rules.KINDS`)."""
    anonymous: bool | None = None
    min_reliability: int | None = None
    private: bool | None = None
    newcomers: bool | None = None
    """Whether newcomers may join (:attr:`Template.newcomers`)."""
    fog: bool = False
    """Fog of war (:attr:`dippouch.game.GameSettings.fog`): no template plays in it unless the creator asks."""


@dataclass(frozen=True)
class Created:
    """A game started from a template: its name, and for a private game the invitation link's secret (shown
    once: the page that shows it is the creator's only copy, until they make a new one)."""

    game: str
    invitation: str | None


_NAME_SAFE = re.compile(r"[^A-Za-z0-9_-]+")


def _applied(t: Template, c: TemplateChoices) -> Template:
    deadlines = dict(t.deadlines)
    for kind in ("movement", "retreats", "adjustments"):
        text = getattr(c, kind)
        if text is not None and text.strip():
            length = parse_duration(text)
            if length < timedelta(minutes=1):
                raise GameError(
                    msg(
                        "the %(kind)s phases must last at least one minute (it was %(value)s)",
                        kind=kind,
                        value=repr(text),
                    )
                )
            deadlines[kind] = text.strip()
    press = dict(t.press)
    if c.press is not None and c.press.strip():
        kind = c.press.strip().lower()
        if kind not in KINDS:
            raise GameError(
                msg("no press kind %(kind)s; choose one of %(kinds)s", kind=repr(c.press), kinds=", ".join(KINDS))
            )
        press["kind"] = kind
    minimum = t.min_reliability if c.min_reliability is None else c.min_reliability
    if not 0 <= minimum <= 100:
        raise GameError(msg("the minimum reliability is a percentage from 0 to 100, not %(value)s", value=minimum))
    return replace(
        t,
        deadlines=deadlines,
        press=press,
        anonymous=t.anonymous if c.anonymous is None else c.anonymous,
        min_reliability=minimum,
        private=t.private if c.private is None else c.private,
        newcomers=t.newcomers if c.newcomers is None else c.newcomers,
    )


def create_from_template(store: GameStore, person_id: int, choices: TemplateChoices, *, now: datetime) -> Created:
    """Start a game from a template with the player's changes: created, its press rules set, opened for
    players with its powers drawn from the wishes when full, and ``person_id`` its creator, who coordinates
    it. Everything is checked before the game is made; a blank name is made from the variant's."""
    t = _applied(template(choices.template), choices)
    # Bad lengths refused before anything is made.
    settings = GameSettings(deadlines=t.deadlines, anonymous=t.anonymous, newcomers=t.newcomers, fog=choices.fog)
    PressRules.from_data(t.press)
    name = choices.name.strip() or f"{_NAME_SAFE.sub('-', t.variant)}-{secrets.token_hex(3)}"
    # Made, its press rules and visibility set, and opened in one transaction counted against the person's cap.
    store_openings.open_new_game(
        store,
        person_id,
        name,
        t.variant,
        now=now,
        settings=settings,
        press_rules=t.press or None,
        visibility="private" if t.private else "public",
        min_reliability=t.min_reliability,
        mode="preferences",
    )
    return Created(name, store_openings.new_invitation(store, name) if t.private else None)


# --------------------------------------------------------------------------------------------------
# Finding a game


@dataclass(frozen=True)
class Filters:
    """What a player looks for (``None`` or empty: anything)."""

    variant: str | None = None
    length: str | None = None
    """At most this long a movement phase: a key of :data:`LENGTHS`."""
    press: str | None = None
    """A press kind (:data:`~dippouch.press.rules.KINDS`)."""
    starts_soon: bool = False
    """Only games that at most :data:`STARTS_SOON` more sign-ups fill."""
    seats: int = 0
    """At least this many powers still open to sign-up (a group joining together)."""

    def checked(self) -> Filters:
        """These filters, or a refusal naming the value there is no such choice for."""
        if self.length and self.length not in LENGTHS:
            raise GameError(
                msg(
                    "phase length %(length)s: choose one of %(lengths)s",
                    length=repr(self.length),
                    lengths=", ".join(LENGTHS),
                )
            )
        if self.press and self.press not in KINDS:
            raise GameError(
                msg("no press kind %(kind)s; choose one of %(kinds)s", kind=repr(self.press), kinds=", ".join(KINDS))
            )
        if not 0 <= self.seats <= 50:
            raise GameError(msg("seats left %(seats)s: a number from 0 to 50", seats=self.seats))
        return self


@dataclass(frozen=True)
class Found:
    """An open game as the list shows it, with what its filters read."""

    opening: Opening
    press: str
    """The game's press kind, as its rules say (the one truth every door enforces)."""
    movement: timedelta


def open_to_players(
    store: GameStore,
    game: str,
    *,
    now: datetime,
    min_reliability: int = 0,
    mode: str = "coordinator",
    rules: Mapping[str, Any] | None = None,
) -> Opening:
    """Open ``game`` for players (or change what its opening asks), with the press rules the lobby will show
    and every door enforce: the rules are checked before anything is stored, so a bad setting leaves the
    opening as it was."""
    if rules is not None:
        PressRules.from_data(dict(rules), press_rules(store, game))
    opening = store_openings.open_game(store, game, now=now, min_reliability=min_reliability, mode=mode)
    if rules is not None:
        set_press_rules(store, game, rules, now=now)
    return opening


def withdraw(store: GameStore, game: str, person_id: int, *, now: datetime) -> None:
    """The person takes back their sign-up to ``game`` before they are seated."""
    store_openings.withdraw(store, game, person_id, now=now)


def new_invitation(store: GameStore, game: str) -> str:
    """A new invitation link's secret for the game's opening, shown once (the one before stops working)."""
    return store_openings.new_invitation(store, game)


def seat_signup(store: GameStore, game: str, person_id: int, power: str, *, now: datetime) -> str:
    """The coordinator gives an empty ``power`` to a person who signed up; the power given."""
    return store_openings.assign_signup(store, game, person_id, power, now=now)


def draw_powers(store: GameStore, game: str, *, now: datetime) -> dict[int, str]:
    """The coordinator draws the empty powers for the people waiting now from their wishes (the rest stay open
    for sign-up): person -> power seated, recorded with the opening's seed."""
    return store_openings.fill_from_preferences(store, game, now=now)


def find_games(store: GameStore, filters: Filters = Filters()) -> list[Found]:
    """The open games these filters let through, those starting soonest first."""
    f = filters.checked()
    out = []
    for o in store_openings.open_games(store):
        found = Found(o, press_rules(store, o.game).kind, parse_duration(o.deadlines.get("movement", "1d")))
        if f.variant and o.variant != f.variant:
            continue
        if f.length and found.movement > LENGTHS[f.length]:
            continue
        if f.press and found.press != f.press:
            continue
        if f.starts_soon and o.needed > STARTS_SOON:
            continue
        if f.seats and o.needed < f.seats:
            continue
        out.append(found)
    out.sort(key=lambda x: (x.opening.needed, x.opening.opened_at, x.opening.game))
    return out


# --------------------------------------------------------------------------------------------------
# Joining and leaving


@dataclass(frozen=True)
class Joined:
    """A sign-up recorded: the game, the power given if it filled the game, and the counts after it."""

    game: str
    seated_as: str | None
    opening: Opening
    waiting_list: bool = False
    """On the game's waiting list: every power is played or promised."""

    @property
    def message(self) -> Msg:
        """What every door tells the player, said in their language where it is shown."""
        if self.seated_as:
            return msg("%(game)s is full and starts now: you play %(power)s.", game=self.game, power=self.seated_as)
        if self.waiting_list:
            return msg("You are on %(game)s's waiting list: you get a power if one comes free.", game=self.game)
        return msg(
            "You signed up to %(game)s; %(count)d more sign-ups fill it.", game=self.game, count=self.opening.needed
        )

    @property
    def text(self) -> str:
        """The message in English, as the JSON API's ``text`` and the command line give it."""
        return str(self.message)


def _joined(o: Opening, person_id: int, wait: bool) -> Joined:
    seated = next((s.seated_as for s in o.signups if s.person_id == person_id and s.seated_as), None)
    mine = [s.person_id for s in o.waiting]
    late = wait and person_id in mine and mine.index(person_id) >= len(o.empty)
    return Joined(o.game, seated, o, waiting_list=late)


def sign_up(
    store: GameStore,
    game: str,
    person_id: int,
    wishes: Sequence[str],
    *,
    now: datetime,
    wait: bool = False,
    despite_block: bool = False,
) -> Joined:
    """Sign ``person_id`` up with ranked wishes; the sign-up that fills the game draws its powers and starts
    it. ``wait``: join the waiting list of a game that is full. Refused where a block or a shared device
    stands in the way (:func:`dippouch.play.blocks.check_join`; ``despite_block``: the person was warned that
    someone they block is in the game and joins all the same)."""
    check_join(store, game, person_id, despite_block=despite_block)
    o = store_openings.sign_up(store, game, person_id, wishes, now=now, wait=wait)
    return _joined(o, person_id, wait)


def quick_play(store: GameStore, person_id: int, filters: Filters = Filters(), *, now: datetime) -> Joined:
    """Sign ``person_id`` up (any power) to the open game these filters let through that will start soonest:
    the fewest sign-ups short of full, then the longest open. Games they are in already, and those asking a
    reliability they do not have, or not for newcomers when they are one, are passed over."""
    score = reliabilities(store, [person_id]).get(person_id)
    record = record_of(store, person_id)
    for found in find_games(store, filters):
        o = found.opening
        if not o.newcomers and is_newcomer(record):
            continue
        fits = meets(score, o.min_reliability, probation=o.newcomers and on_probation(record))
        if o.needed == 0 or any(s.person_id == person_id for s in o.signups) or not fits:
            continue
        if any(person_id == p for p in store_openings.players_in(store, o.game)):
            continue
        try:  # a game a block or a shared device keeps them from is passed over, as a full one is
            check_join(store, o.game, person_id)
        except GameError:
            continue
        return sign_up(store, o.game, person_id, ["any"], now=now)
    raise GameError(
        msg(
            "no open game with these settings has a seat for you now: change the filters, or start one from a "
            "template (/games/new)"
        )
    )


def claim(
    store: GameStore, game: str, power: str, person_id: int, *, now: datetime, despite_block: bool = False
) -> str:
    """Take a seat from the replacement pool (:func:`dippouch.play.seats.claim`), refused as a sign-up is where
    a block or a shared device stands in the way."""
    check_join(store, game, person_id, despite_block=despite_block)
    return seats.claim(store, game, power, person_id, now=now)


def resign_message(got: store_openings.Resigned) -> Msg:
    """What every door tells the person who resigned, said in their language where it is shown."""
    if got.how == "withdrawn":
        return msg("You withdrew from %(game)s.", game=got.game)
    if got.how == "freed":
        return msg(
            "You resigned %(power)s in %(game)s before it started; the power is open to sign-up again.",
            power=str(got.power),
            game=got.game,
        )
    return msg(
        "You resigned %(power)s in %(game)s: the seat is offered to the replacement pool. Until someone takes it "
        "the game goes on without you (your orders, if you send any, still count).",
        power=str(got.power),
        game=got.game,
    )


def resign_text(got: store_openings.Resigned) -> str:
    """:func:`resign_message` in English, as the JSON API's ``text`` gives it."""
    return str(resign_message(got))


def start_when_full(store: GameStore, game: str, *, now: datetime) -> dict[int, str]:
    """After a power was seated by other means than sign-up (a bot, a player the coordinator named), draw an
    automatic game whose empty powers all have someone waiting: it starts as a last sign-up would start it,
    without the coordinator's "Draw now". Person id -> power drawn (empty: nothing to draw)."""
    return store_openings.draw_when_full(store, game, now=now)
