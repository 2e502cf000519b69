"""Bots in seats of stored games: they send orders like players, as soon as a phase opens.

:func:`play_seats` looks at the games where bots play (:func:`~dippouch.store.bots.games_with_bots`) and, for
every power a bot plays that must act and has sent nothing in the open phase, asks the bot for orders and
submits them through :func:`dippouch.store.submissions.submit` like any player (a version, source ``bot``, marked ready,
checked line by line on arrival), so a bot never holds a phase up. A bot sees what any player of its power
sees: the phase's public position, never anyone's orders; in a fog-of-war game only its power's sight of it
(:func:`dippouch.game.seen_position`), and it remembers and judges others by what it saw, not by the whole
history's orders. A power in civil disorder in a game whose policy
names a bot level is first handed to a bot of that level (the seat's history shows it), which plays it until
a person takes the seat back (``dippouch players replace``).

The worker and the web app's deadline scheduler call :func:`play_seats` before they process due phases;
``dippouch process`` calls :func:`process_with_bots`, which lets the bots act in each phase it opens. Where a
bot thinks is the caller's to say (``think``): here by default (:func:`think_here`); the web sends a "process
now"'s and a seated bot's thinking to its work pool's processes (:func:`think_from_data`, whose arguments travel).

A game bots alone play (:func:`bots_alone`: nobody else plays a power still in it) is nobody's game to wait
for, and its bots would play it to its end in seconds, a CPU's worth for as long as it lasts. Its bots order
a phase only :func:`bot_pace` after it opened (the installation's ``DIPPOUCH_BOT_PACE``, a minute by default;
at the phase's deadline if that is sooner): one phase a minute, whichever process asks, and a "process now"
is refused until then (:func:`pace_wait`). A game a person plays in is not paced: its bots order at once.

A bot's seat is stored as a player named ``bot:LEVEL`` (:mod:`dippouch.store.bots`); which levels there are
is the bots' knowledge, so reading a seat's level and checking a level asked for are here.
"""

from __future__ import annotations

import hashlib
import logging
import random
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, fields
from datetime import datetime, timedelta
from types import MappingProxyType
from typing import Any

from dippouch.bots import LEVEL_WORDS, LEVELS, make_bot, negotiate
from dippouch.bots.base import Bot, settle
from dippouch.bots.engine import Order, PhaseKind, Position, Variant, format_order
from dippouch.bots.memory import Memory, recalled
from dippouch.core.messages import Msg, msg
from dippouch.game import GameError, as_utc, position_from_data, seen_position
from dippouch.press.rules import shown_sender
from dippouch.store import deadlines as store_deadlines
from dippouch.store import games as store_games
from dippouch.store import history as store_history
from dippouch.store import processing as store_processing
from dippouch.store import status as store_status
from dippouch.store import submissions as store_submissions
from dippouch.store.bots import BOT_PREFIX, games_with_bots, save_disorder_bot
from dippouch.store.db import Database
from dippouch.store.repository import GameStore
from dippouch.store.status import PowerStatus, Status

I18N_DOMAIN = "rules"
"""The catalogue of the bots' refusals, said in the reader's language where they are shown (dippouch.saying)."""

__all__ = [
    "PERSONALITY",
    "BotMove",
    "answer_press",
    "bot_level",
    "bot_pace",
    "bot_player",
    "bot_seats",
    "bots_alone",
    "check_level",
    "pace_wait",
    "phase_cost",
    "play_outside",
    "play_seats",
    "player_words",
    "process_with_bots",
    "seat_bot",
    "set_disorder_bot",
    "think_from_data",
    "think_here",
]

log = logging.getLogger("dippouch.bots")

PERSONALITY = negotiate.HONEST
"""The personality of the bots seated in stored games when they negotiate (:mod:`dippouch.bots.negotiate`):
honest, so a person who asks a bot for a support and gets "yes" can count on it."""


def check_level(level: str) -> str:
    """The level's canonical name, or a clear error listing the levels."""
    name = str(level).strip().lower()
    if name.startswith(BOT_PREFIX):
        name = name[len(BOT_PREFIX) :]
    if name not in LEVELS:
        raise GameError(
            msg("unknown bot level %(level)s; the levels are %(levels)s", level=repr(level), levels=", ".join(LEVELS))
        )
    return name


def bot_player(level: str) -> str:
    """The player name a bot of ``level`` sits under."""
    return BOT_PREFIX + check_level(level)


def bot_level(player: str | None) -> str | None:
    """The level of the bot playing as ``player``, or ``None`` for a person (or nobody)."""
    if player and player.startswith(BOT_PREFIX) and player[len(BOT_PREFIX) :] in LEVELS:
        return player[len(BOT_PREFIX) :]
    return None


def player_words(player: str) -> Msg | str:
    """Who plays a seat, as a sentence names them: their name, or "Bot (standard)" for a bot's seat. The program's
    own name for the seat ("bot:heuristic") tells a person nothing; the tables' "a bot: standard" describes the
    seat, and the sentences that name a player start with the name ("Bot (standard) now plays Austria")."""
    level = bot_level(player)
    return player if level is None else msg("Bot (%(level)s)", level=Msg(LEVEL_WORDS[level]))


def seat_bot(store: GameStore, game: str, power: str, level: str, *, now: datetime, reason: str = "bot") -> str:
    """Seat a bot of ``level`` on ``power`` (replacing whoever plays it, or taking an empty seat). The player it
    replaces loses the seat as at every door (:func:`dippouch.store.games.change_seat`: their links revoked, a
    person told, ``reason`` saying why); the coordinator's doors seat a bot through
    :func:`dippouch.play.seats.seat_bot`, which sits above the bots."""
    return store_games.assign(store, game, power, bot_player(level), now=now, replace=True, reason=reason)


def bot_seats(store: GameStore, game: str) -> dict[str, str]:
    """Power -> level of every power a bot plays now."""
    out: dict[str, str] = {}
    for power, current, _ in store_games.players(store, game):
        level = bot_level(current)
        if level is not None:
            out[power] = level
    return out


def set_disorder_bot(store: GameStore, game: str, level: str | None, *, now: datetime) -> str | None:
    """Set (or with ``None`` clear) the game's policy: a bot of ``level`` takes over powers in civil disorder.
    Returns the level set."""
    chosen = check_level(level) if level is not None else None
    save_disorder_bot(store, game, chosen, now=now)
    return chosen


@dataclass(frozen=True)
class BotMove:
    """One submission a bot made (or the seat it took over)."""

    game: str
    phase: str
    power: str
    level: str
    version: int | None
    """The submission's version; ``None`` when the bot only took the seat (nothing to order yet)."""
    took_seat: bool = False


LAST_PERSON = (
    "{power} fell into civil disorder and every other power still in the game is played by a bot: the game is "
    "paused rather than left to bots alone (seat a player or a bot in its place, or end the game)"
)


def people_besides(powers: Iterable[PowerStatus], power: str) -> list[str]:
    """The powers still in the game, other than ``power``, that a person plays (not a bot, not empty): none
    left means a bot taking ``power`` over would leave the game to bots alone."""
    return [
        ps.power
        for ps in powers
        if ps.power != power and (ps.units or ps.centres) and ps.player and bot_level(ps.player) is None
    ]


def bot_pace() -> timedelta:
    """The least time between two phases of a game bots alone play: the installation's ``DIPPOUCH_BOT_PACE``
    (a minute by default, docs/bots.md)."""
    from dippouch import settings

    return timedelta(seconds=settings.current().bot_pace)


def bots_alone(powers: Iterable[PowerStatus]) -> bool:
    """Whether bots alone play the game now: every power still in it (units or centres) is a bot's. A person
    whose power is out only watches; a practice game's person plays, so it is never a game of bots alone, and
    neither is a game with a power nobody plays yet (its phases wait for their deadlines)."""
    inside = [ps for ps in powers if ps.units or ps.centres]
    return bool(inside) and all(bot_level(ps.player) is not None for ps in inside)


def _paced(st: Status, record: Mapping[str, Any]) -> datetime | None:
    """When the bots of a game bots alone play may order its open phase (``record``: the phase's): a
    :func:`bot_pace` after it opened, or at its deadline if that comes first; ``None`` for any other game, whose
    bots order at once."""
    if st.deadline is None or not bots_alone(st.powers):
        return None
    return min(as_utc(datetime.fromisoformat(str(record["opened_at"]))) + bot_pace(), as_utc(st.deadline))


def pace_wait(store: GameStore, game: str, *, now: datetime) -> timedelta | None:
    """How long before a game bots alone play may be processed again (its bots order its open phase), or
    ``None`` when it may be now (or it is not such a game)."""
    st = store_status.status(store, game, now=now, drift=False, due=False)
    if st.state != "active" or st.phase is None:
        return None
    at = _paced(st, store_history.phase_record(store, game, st.phase, open_ok=True, submissions=False))
    return None if at is None or as_utc(now) >= at else at - as_utc(now)


DECISION = {"hold": 0.0, "random": 0.01, "heuristic": 0.05}
"""CPU seconds a bot of each level takes to order a phase for one power, at most (the standard map's opening:
2 ms is typical for the heuristic level; ``search`` thinks for its budget, ``DIPPOUCH_SEARCH_BUDGET``)."""
ADJUDICATION = 0.2
"""CPU seconds a phase's adjudication and its writes take, at most, on the largest maps shipped."""


def phase_cost(store: GameStore, game: str) -> float:
    """CPU seconds one phase of ``game`` is estimated to cost with its bots' orders: what a "process now" is
    charged before it runs (its real CPU time replaces the estimate once it ends)."""
    from dippouch import settings

    search = settings.current().search_budget
    return ADJUDICATION + sum(DECISION.get(level, search) for level in bot_seats(store, game).values())


Think = Callable[[str, Variant, Position, str, random.Random, Memory | None], list[Order]]
"""Where a bot of a level thinks of a power's orders (:func:`think_here`, or another process)."""


def think_here(
    level: str, variant: Variant, position: Position, power: str, rng: random.Random, memory: Memory | None
) -> list[Order]:
    """The orders the bot of ``level`` gives ``power``, thought in this process."""
    return make_bot(level).orders(variant, position, power, rng, memory)


def memory_data(memory: Memory | None) -> dict[str, Any] | None:
    """``memory`` as data another process can be sent (its read-only tables as dicts)."""
    if memory is None:
        return None
    return {
        f.name: dict(v) if isinstance(v := getattr(memory, f.name), MappingProxyType) else v for f in fields(memory)
    }


def think_from_data(
    level: str, variant: Variant, position: Position, power: str, rng: random.Random, memory: dict[str, Any] | None
) -> list[Order]:
    """:func:`think_here` with the memory as :func:`memory_data` sent it: a job of another process."""
    if memory is None:
        return think_here(level, variant, position, power, rng, None)
    tables: dict[str, Any] = {k: MappingProxyType(v) if isinstance(v, dict) else v for k, v in memory.items()}
    return think_here(level, variant, position, power, rng, Memory(**tables))


def _seed(game: str, phase: str, power: str) -> int:
    """The bot's random numbers depend on the game, phase and power only: a phase replayed gets the same orders."""
    return int.from_bytes(hashlib.sha256(f"{game}|{phase}|{power}".encode()).digest()[:8], "big")


def play_seats(
    store: GameStore, *, now: datetime, games: Iterable[str] | None = None, think: Think = think_here
) -> list[BotMove]:
    """Let every bot that owes orders in an open phase send them, each thinking where ``think`` says; the moves
    made."""
    names = list(games) if games is not None else games_with_bots(store)
    done: list[BotMove] = []
    for name in names:
        try:
            done.extend(_play_game(store, name, now, think))
        except Exception:  # one game's trouble must not keep the bots of others (or the processing) waiting
            log.exception("bots of game %s could not play", name)
    return done


def _play_game(store: GameStore, name: str, now: datetime, think: Think) -> list[BotMove]:
    st = store_status.status(store, name, now=now, drift=False, due=False)
    if st.state != "active" or st.phase is None or st.game_variant is None:
        return []
    record = None
    if bots_alone(st.powers):
        # Nobody to play against: the game goes on at the installation's pace, not as fast as the bots think.
        record = store_history.phase_record(store, name, st.phase, open_ok=True, submissions=False)
        at = _paced(st, record)
        if at is not None and as_utc(now) < at:
            return []
    variant = st.game_variant
    policy = st.settings.disorder_bot if st.settings.disorder_bot in LEVELS else None
    moves: list[BotMove] = []
    position = None
    memories: dict[str, Memory] | None = None
    for ps in st.powers:
        level = bot_level(ps.player)
        took = False
        if level is None and policy is not None and ps.civil_disorder:
            if not people_besides(st.powers, ps.power):
                # The last person's seat: bots alone would play the game out in seconds, with nobody to play
                # against. The clock stops instead; the coordinator seats someone, ends it, or resumes.
                store_deadlines.pause(store, name, now=now, why=LAST_PERSON.format(power=ps.power))
                log.info("%s: paused rather than hand %s, the last person's seat, to a bot", name, ps.power)
                return moves
            seat_bot(store, name, ps.power, policy, now=now, reason="disorder")
            level, took = policy, True
            log.info("%s: a %s bot takes over %s (civil disorder)", name, policy, ps.power)
        if level is None:
            continue
        if not ps.must_act or ps.version is not None:
            if took:
                moves.append(BotMove(name, st.phase, ps.power, level, None, took_seat=True))
            continue
        if position is None:
            settle(variant)  # once per variant in this process: its tables out of the collector's way
            if record is None:
                record = store_history.phase_record(store, name, st.phase, open_ok=True, submissions=False)
            position = position_from_data(variant, record["position"])
        kind = variant.calendar.kind(position.phase)
        if memories is None and kind is PhaseKind.MOVEMENT:
            memories = _memories(store, name, variant, [p.power for p in st.powers], fog=st.settings.fog)
        memory = (memories or {}).get(ps.power)
        seen = seen_position(variant, position, ps.power, st.settings)
        orders = _orders(store, name, st.phase, variant, seen, ps.power, level, memory, think, fog=st.settings.fog)
        text = "\n".join(format_order(variant, o, phase_kind=kind) for o in orders)
        result = store_submissions.submit(
            store,
            name,
            ps.power,
            text,
            now=now,
            ready=True,
            phase=st.phase,
            source="bot",
            replace_with_nothing=not orders,
        )
        moves.append(BotMove(name, st.phase, ps.power, level, result.version, took_seat=took))
    return moves


def _memories(store: GameStore, name: str, variant: Variant, powers: list[str], *, fog: bool) -> dict[str, Memory]:
    """What the bots' earlier moves came to, read once for every bot of the game (bots/memory.py). None in a
    fog-of-war game: the memory reads every power's orders of the whole history, which a player there never saw."""
    if fog:
        return {}
    kind = PhaseKind.MOVEMENT.value
    done = [h.results or [] for h in store_history.history(store, name) if h.status == "processed" and h.kind == kind]
    return recalled(variant, done, powers)


def _orders(
    store: GameStore,
    name: str,
    phase: str,
    variant: Variant,
    position: Position,
    power: str,
    level: str,
    memory: Memory | None,
    think: Think = think_here,
    *,
    fog: bool = False,
) -> list[Order]:
    """The bot's orders for ``power``: its level's own plan (the same for the same game, phase and power),
    made and changed to keep what it accepted in the game's press (:mod:`dippouch.bots.negotiate`: planned
    with its partners' centres as no targets, then the promised supports ordered; nothing of it where the game
    has no press)."""
    rng = random.Random(_seed(name, phase, power))
    talk = None
    if variant.calendar.kind(position.phase) is PhaseKind.MOVEMENT:
        talk = _talk(store, name, variant, position, phase, power, hostile=False, fog=fog)
        if talk is not None and talk.commitments:
            talk = _talk(store, name, variant, position, phase, power, fog=fog)
    if talk is None or not talk.commitments:
        return think(level, variant, position, power, rng, memory)
    view = negotiate.planning_view(variant, position, power, talk.commitments, talk.hostile)
    orders = think(level, variant, view, power, rng, memory)
    return negotiate.honour(
        variant, position, power, orders, talk.commitments, personality=PERSONALITY, hostile=talk.hostile
    )


@dataclass(frozen=True)
class _Talk:
    commitments: list[negotiate.Commitment]
    hostile: set[str]


def _talk(
    store: GameStore,
    name: str,
    variant: Variant,
    position: Position,
    phase: str,
    power: str,
    *,
    hostile: bool = True,
    fog: bool = False,
) -> _Talk | None:
    """What ``power``'s bot accepted in the press (read back from its own messages) and, with ``hostile``, who
    is at war with it; ``None`` in a game without press between powers."""
    import dippouch.store.press.messages as store_press  # press's tables are mapped only when a bot talks

    rules = store_press.press_rules(store, name)
    if rules.kind == "none":
        return None
    said = [(m.phase, m.text) for m in store_press.messages_since(store, name, power, 0) if m.mine]
    war = _hostile(store, name, variant, position, power, fog=fog) if hostile else set()
    return _Talk(negotiate.accepted(variant, said, phase), war)


def _hostile(store: GameStore, name: str, variant: Variant, position: Position, power: str, *, fog: bool) -> set[str]:
    """The powers at war with ``power``: the board, and the orders of the last two movement phases (in a
    fog-of-war game the board it sees alone: the orders of the phases are everyone's, most of them unseen)."""
    if fog:
        return negotiate.at_war(variant, position, power, [])
    kind = PhaseKind.MOVEMENT.value
    done = [h.results or [] for h in store_history.history(store, name) if h.status == "processed" and h.kind == kind][
        -2:
    ]
    recent = [o for results in done for o in negotiate.recent_orders(variant, results)]
    return negotiate.at_war(variant, position, power, recent)


def answer_press(
    store: Database,
    game: str,
    sender: str,
    text: str,
    channel: int,
    *,
    now: datetime,
    send: Callable[[str, str], int | None],
) -> list[int]:
    """The bots seated in ``channel`` answer ``sender``'s message (``text``), each in the same channel through
    the press rules like anyone's message (a reply the rules refuse is not sent: the bot says nothing); a bot
    that accepted a support for this phase orders it at once (its orders sent earlier are replaced). Returns
    the ids of the replies sent. ``send(bot, reply)`` sends a reply through the press use case that called
    this one (the bots sit below the use cases) and gives its id, or ``None`` when the rules refuse it.

    Silent: in a game without press, under postal press (the request reaches the bot with the phase's results,
    after the phase it is about), to another bot (no two bots talk on without a person), and in a public or
    group channel to what does not name the bot's power or ask it for a support only it can give."""
    if not isinstance(store, GameStore):
        return []
    seats = bot_seats(store, game)
    if not seats or sender in seats:
        return []
    import dippouch.store.press.messages as store_press

    rules = store_press.press_rules(store, game)
    if rules.kind in ("none", "postal"):
        return []
    st = store_status.status(store, game, now=now, drift=False, due=False)
    if st.state != "active" or st.phase is None or st.game_variant is None:
        return []
    variant = st.game_variant
    thread = store_press.channel_page(store, game, channel, power=sender, limit=1).thread
    bots = [p for p in thread.members if p in seats and p != sender]
    if not bots:
        return []
    record = store_history.phase_record(store, game, st.phase, open_ok=True, submissions=False)
    board = position_from_data(variant, record["position"])
    proposals = negotiate.parse_request(variant, text)
    fog = st.settings.fog
    memories = _memories(store, game, variant, bots, fog=fog) if proposals else {}
    sent: list[int] = []
    for bot in bots:
        position = seen_position(variant, board, bot, st.settings)
        asker = shown_sender(rules, sender, reader=bot, finished=False)
        talk = _talk(store, game, variant, position, st.phase, bot, fog=fog)
        hostile = talk.hostile if talk is not None else set()
        commitments = talk.commitments if talk is not None else []
        promised = negotiate.promised_units(variant, position, bot, commitments)
        # The bot's own plan for the phase, as it would order now: a support is weighed against it.
        plan = (
            _orders(store, game, st.phase, variant, position, bot, seats[bot], memories.get(bot), fog=fog)
            if proposals
            else []
        )
        answers = [
            negotiate.decide(
                variant,
                position,
                bot,
                asker if asker in variant.power_names else None,
                p,
                personality=PERSONALITY,
                hostile=hostile,
                promised=promised,
                plan=plan,
            )
            for p in proposals
        ]
        if thread.kind != "private" and not _addressed(variant, position, bot, text, answers):
            continue
        reply = negotiate.reply_text(
            variant, answers, partner=asker if asker in variant.power_names else None, lang=st.settings.language
        )
        got = send(bot, reply)
        if got is None:
            continue
        sent.append(got)
        if any(a.yes and a.proposal.kind == "support" for a in answers):
            _reorder(store, game, st.phase, variant, position, bot, seats[bot], now, fog=fog)
    return sent


def _addressed(variant: Variant, position: Position, bot: str, text: str, answers: list[negotiate.Decision]) -> bool:
    """Whether a message to several powers is for this bot: it names the bot's power, or asks for a support
    this bot can give."""
    if not answers:
        return False
    if re.search(rf"\b{re.escape(bot)}\b", text, re.I):
        return True
    return any(a.proposal.kind == "support" and a.why not in ("cannot", "not yours") for a in answers)


def _reorder(
    store: GameStore,
    game: str,
    phase: str,
    variant: Variant,
    position: Position,
    power: str,
    level: str,
    now: datetime,
    *,
    fog: bool,
) -> None:
    """Send the bot's orders again, now with what it accepted (a person's request came after its orders);
    ``position`` is what the bot sees."""
    memories = _memories(store, game, variant, [power], fog=fog)
    orders = _orders(store, game, phase, variant, position, power, level, memories.get(power), fog=fog)
    kind = variant.calendar.kind(position.phase)
    text = "\n".join(format_order(variant, o, phase_kind=kind) for o in orders)
    store_submissions.submit(
        store, game, power, text, now=now, ready=True, phase=phase, source="bot", replace_with_nothing=not orders
    )


def process_with_bots(
    store: GameStore, game: str, *, now: datetime, force: bool = False, limit: int = 1000, think: Think = think_here
) -> list[str]:
    """:func:`dippouch.store.processing.process` one phase at a time, the bots sending their orders in each phase it opens
    (``force`` processes the first phase even before its deadline, as ``dippouch process --force``), at most
    ``limit`` phases a call, each bot thinking where ``think`` says. A game bots alone play stops at the first
    phase its bots wait to order (:func:`bot_pace`): one phase a call, however often it is asked."""
    done: list[str] = []
    first = True
    while len(done) < limit:
        play_seats(store, now=now, games=[game], think=think)
        step = store_processing.process(store, game, now=now, force=force and first, limit=1)
        first = False
        if not step:
            return done
        done.extend(step)
    return done


def play_outside(store: GameStore, game: str, power: str, bot: Bot, *, now: datetime) -> BotMove | None:
    """Let ``bot`` (an outside program) send ``power``'s orders for the open phase of a stored game, like a
    player (source ``bot``, ready); ``None`` when the power has nothing to order now."""
    st = store_status.status(store, game, now=now, drift=False, due=False)
    if st.phase is None or st.game_variant is None:
        raise GameError(msg("game %(game)s has no open phase", game=repr(game)))
    variant = st.game_variant
    row = next((ps for ps in st.powers if ps.power == variant.power(power).name), None)
    if row is None or not row.must_act:
        return None
    record = store_history.phase_record(store, game, st.phase, open_ok=True, submissions=False)
    position = seen_position(variant, position_from_data(variant, record["position"]), row.power, st.settings)
    kind = variant.calendar.kind(position.phase)
    orders = bot.orders(variant, position, row.power, random.Random(_seed(game, st.phase, row.power)))
    text = "\n".join(format_order(variant, o, phase_kind=kind) for o in orders)
    result = store_submissions.submit(
        store, game, row.power, text, now=now, ready=True, phase=st.phase, source="bot", replace_with_nothing=not orders
    )
    return BotMove(game, st.phase, row.power, "outside", result.version)
