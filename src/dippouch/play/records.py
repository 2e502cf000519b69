"""A game's scores and statistics, the use cases every door calls (the web's records page and JSON call,
``dippouch score``): a finished game's facts scored under its own system or any other, and any game's centre
counts over time and key events.

The game's result is the variant's own rule (a solo by its victory test, a draw the players voted, W3K's and
1000 AD's own endings): a scoring system only turns that result and the final board into numbers. A game that
chose no system is shown under :data:`DEFAULT_SYSTEM`. The formulas are :mod:`dippouch.ranking`'s; the stored
record is :func:`dippouch.store.finished.game_record`'s; this module joins them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from dippouch.core.calendar import PhaseKind
from dippouch.core.messages import N_, Msg, msg
from dippouch.core.notation import OrderParseError, parse_order
from dippouch.core.position import Position
from dippouch.core.results import OrderResult, Outcome
from dippouch.game import GameError, position_from_data
from dippouch.ranking.scoring import GameFacts, PowerFacts, ScoringError, ScoringSystem, load_system, systems
from dippouch.ranking.stats import GameEvent, GameHistory, PhaseFacts, centre_series, eliminations, key_events
from dippouch.store.db import Database
from dippouch.store.finished import GameRecord, game_record, save_scoring

I18N_DOMAIN = "rules"
"""The catalogue of this module's refusals, said in the reader's language where they are shown."""

__all__ = [
    "DEFAULT_SYSTEM",
    "NOT_FINISHED",
    "PowerScore",
    "Scored",
    "Statistics",
    "UnknownSystem",
    "choose_scoring",
    "facts_of",
    "find_system",
    "game_system",
    "history_of",
    "score_all",
    "score_game",
    "score_record",
    "statistics",
    "statistics_of",
]

DEFAULT_SYSTEM = "dss"
"""The system a game's scores are shown under when it chose none: draw-size scoring, the result as the
variant's rule decided it and nothing more."""

NOT_FINISHED = N_("the game is not finished: it is scored once it ends")
"""What every door says of an unfinished game's scores."""


class UnknownSystem(GameError):
    """A scoring system's name that is not one of the shipped systems (the message names the closest)."""


def find_system(name: str) -> ScoringSystem:
    """The shipped system ``name``, or :class:`UnknownSystem` with the engine's words (the closest name, and
    every valid one)."""
    try:
        return load_system(name)
    except ScoringError as e:
        raise UnknownSystem(e.msg) from None


def game_system(record: GameRecord) -> ScoringSystem:
    """The system the game chose, or :data:`DEFAULT_SYSTEM`; a stored name no longer shipped falls back to
    the default rather than hiding the scores."""
    if record.scoring:
        found = systems().get(record.scoring.lower())
        if found is not None:
            return found
    return systems()[DEFAULT_SYSTEM]


@dataclass(frozen=True)
class PowerScore:
    """One power's line of a scores table."""

    power: str
    centres: int
    score: float
    player: str | None
    eliminated: bool
    result: str
    """``solo``, ``draw`` (shares the draw), ``eliminated`` or empty."""


@dataclass(frozen=True)
class Scored:
    """A finished game scored under one system."""

    game: str
    system: ScoringSystem
    own: bool
    """Whether ``system`` is the game's own (its choice, or the default)."""
    ending: Msg | None
    """How the game ended, as a message value (said in each reader's language); ``None`` while it runs."""
    rows: tuple[PowerScore, ...]


def _position(record: GameRecord, data: Mapping[str, Any]) -> Position:
    return position_from_data(record.variant, data)


def _final_data(record: GameRecord) -> Mapping[str, Any]:
    """The board as the game stands: after its last processed phase (a solo's board), or at the start of
    its last phase (the open one, or the one a draw ended)."""
    if not record.phases:
        raise GameError(msg("game %(game)s has no phases", game=repr(record.name)))
    last = record.phases[-1]
    return last.next_position if last.status == "processed" and last.next_position else last.position


_UNREAD = frozenset({Outcome.ILLEGAL.value, Outcome.INVALID.value})
"""Results the statistics never read (an order thrown out attacked and supported nothing): not parsed."""


def _results(record: GameRecord, rows: Sequence[Mapping[str, Any]] | None, kind: PhaseKind) -> tuple[OrderResult, ...]:
    """A movement phase's stored results as the core's values, as far as the statistics read them: the orders
    players gave and the adjudicator judged (not the holds it added for unordered units, nor orders it threw
    out, which parsing would only slow: a long game has tens of thousands). An order the map no longer reads
    is left out."""
    if kind is not PhaseKind.MOVEMENT:
        return ()
    out = []
    for r in rows or []:
        if r.get("automatic") or r.get("result") in _UNREAD:
            continue
        try:
            order = parse_order(record.variant, str(r["order"]), phase_kind=kind)
            outcome = Outcome(r["result"])
        except (OrderParseError, ValueError, KeyError):
            continue
        out.append(
            OrderResult(
                str(r["power"]),
                order,
                outcome,
                bool(r.get("dislodged")),
                bool(r.get("destroyed")),
                bool(r.get("automatic")),
                str(r.get("reason") or ""),
                r.get("index"),
            )
        )
    return tuple(out)


def _phase_facts(record: GameRecord, name: str, pos: Position, results: tuple[OrderResult, ...]) -> PhaseFacts:
    v = record.variant
    return PhaseFacts(
        name=name,
        year=pos.phase.year,
        season=v.calendar.season(pos.phase),
        kind=v.calendar.kind(pos.phase).value,
        centres={p: frozenset(pos.centres_of(p)) for p in v.power_names},
        units={p: tuple(u.loc for u in pos.units_of(p)) for p in v.power_names},
        results=results,
    )


def history_of(record: GameRecord) -> tuple[GameHistory, tuple[int | None, ...]]:
    """The game's line of play as the statistics read it, and each phase's stored id (None for the board
    after a game's last processed phase, which no phase opened on)."""
    v = record.variant
    phases: list[PhaseFacts] = []
    ids: list[int | None] = []
    for ph in record.phases:
        pos = _position(record, ph.position)
        kind = v.calendar.kind(pos.phase)
        phases.append(_phase_facts(record, ph.name, pos, _results(record, ph.results, kind)))
        ids.append(ph.id)
    last = record.phases[-1] if record.phases else None
    if last is not None and last.status == "processed" and last.next_position:
        pos = _position(record, last.next_position)
        phases.append(_phase_facts(record, v.calendar.name(pos.phase), pos, ()))
        ids.append(None)
    coasts = {loc.id: loc.province for loc in v.map.locations if loc.id != loc.province}
    return GameHistory(tuple(phases), coasts), tuple(ids)


def facts_of(record: GameRecord, history: GameHistory | None = None) -> GameFacts:
    """A finished game's facts for the scoring engine: the final board, the result the variant's rule gave
    (a victory is a solo, an agreed draw names its powers, any other ending has no result), and the year each
    eliminated power fell (from ``history``, :func:`history_of`'s, read again when not given)."""
    v = record.variant
    final = _position(record, _final_data(record))
    if history is None:
        history, _ = history_of(record)
    years = {e.power: int(_year(history, e.phase)) for e in eliminations(history)}
    powers = []
    for p in v.power_names:
        centres = len(final.centres_of(p))
        gone = not centres and not final.units_of(p)
        powers.append(PowerFacts(p, centres, gone, years.get(p) if gone else None))
    ending = record.ending
    solo = ending.powers[0] if ending is not None and ending.kind == "victory" and ending.powers else None
    draw = frozenset(ending.powers) if ending is not None and ending.kind == "draw" else frozenset()
    board = len([pr for pr in v.map.provinces if pr.supply_centre])
    need = v.victory.get("centres")
    victory = int(need) if need else board // 2 + 1
    try:
        return GameFacts(tuple(powers), victory, solo=solo, draw=draw, total_centres=board)
    except ScoringError as e:
        raise GameError(
            msg("game %(game)s cannot be scored: %(reason)s", game=repr(record.name), reason=e.msg)
        ) from None


def _year(history: GameHistory, phase: str) -> int:
    return next(p.year for p in history.phases if p.name == phase)


def score_record(record: GameRecord, system: ScoringSystem, history: GameHistory | None = None) -> Scored:
    """``record`` (a finished game) scored under ``system``; an unfinished game is refused (:data:`NOT_FINISHED`).
    ``history``: :func:`history_of`'s, when the caller has it already."""
    if not record.finished:
        raise GameError(
            msg("game %(game)s: the game is not finished: it is scored once it ends", game=repr(record.name))
        )
    facts = facts_of(record, history)
    try:
        scores = system.score(facts)
    except ScoringError as e:
        raise GameError(
            msg(
                "game %(game)s cannot be scored under %(system)s: %(reason)s",
                game=repr(record.name),
                system=system.name,
                reason=e.msg,
            )
        ) from None
    players = {s.power: s.player for s in record.seats}
    shares = facts.draw if facts.draw else frozenset()
    rows = tuple(
        PowerScore(
            power=p.power,
            centres=p.centres,
            score=scores[p.power],
            player=players.get(p.power),
            eliminated=p.eliminated,
            result="solo"
            if p.power == facts.solo
            else "draw"
            if p.power in shares
            else "eliminated"
            if p.eliminated
            else "",
        )
        for p in facts.powers
    )
    ending = record.ending.message if record.ending is not None else None
    return Scored(record.name, system, system.name == game_system(record).name, ending, rows)


def score_game(db: Database, game: str, system: str | None = None) -> Scored:
    """The finished ``game`` scored under ``system`` (a shipped system's name; None: the game's own). An
    unknown name is refused naming the closest before the game is read."""
    chosen = find_system(system) if system else None
    record = game_record(db, game)
    return score_record(record, chosen or game_system(record))


def score_all(db: Database, game: str) -> list[Scored]:
    """The finished ``game`` scored under every shipped system, the game's own first."""
    record = game_record(db, game)
    own = game_system(record)
    history = history_of(record)[0] if record.finished else None
    return [score_record(record, s, history) for s in (own, *(s for s in systems().values() if s.name != own.name))]


def choose_scoring(db: Database, game: str, system: str | None, *, now: datetime) -> ScoringSystem:
    """Make ``system`` the game's scoring system (None or empty: back to :data:`DEFAULT_SYSTEM`); an unknown
    name is refused naming the closest. Returns the system now in force."""
    chosen = find_system(system) if system else None
    save_scoring(db, game, chosen.name if chosen else None, now=now)
    return chosen or systems()[DEFAULT_SYSTEM]


@dataclass(frozen=True)
class Statistics:
    """A game's centre counts over time and its key events."""

    game: str
    phases: tuple[str, ...]
    phase_ids: tuple[int | None, ...]
    """Each phase's stored id (for links), None for the board after the last processed phase."""
    series: Mapping[str, tuple[int, ...]]
    """Power -> its centre count at the start of each phase of :attr:`phases` (every power of the variant)."""
    events: tuple[GameEvent, ...]
    place_names: Mapping[int, str]
    """Province id -> its full name, for the events' provinces."""
    history: GameHistory
    """What they were computed from (:func:`history_of`), for scoring the same record without reading it again."""


def statistics_of(record: GameRecord) -> Statistics:
    """``record``'s centre series and key events (:mod:`dippouch.ranking.stats`)."""
    history, ids = history_of(record)
    series = centre_series(history)
    full = {p: series.get(p, (0,) * len(history.phases)) for p in record.variant.power_names}
    events = tuple(key_events(history))
    provinces = record.variant.map.provinces
    names = {e.province: provinces[e.province].name for e in events if e.province is not None}
    return Statistics(record.name, tuple(p.name for p in history.phases), ids, full, events, names, history)


def statistics(db: Database, game: str) -> Statistics:
    """The game ``game``'s centre series and key events, finished or not."""
    return statistics_of(game_record(db, game))
