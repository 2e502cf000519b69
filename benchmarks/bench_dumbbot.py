"""Our bots against the field's baseline, David Norman's DumbBot, on the standard map: the DumbBot ladder.

DumbBot is played as MILA's MIT-licensed Python port (``diplomacy_research/players/rulesets/dumbbot_ruleset.py``
in the public repository https://github.com/diplomacy/research). No file of it is part of this repository:
``--dumbbot PATH`` names a checkout of that repository or the one file, fetched by whoever runs the ladder::

    git clone https://github.com/diplomacy/research /tmp/research       # a checkout, or only the file:
    git -C /tmp/research show HEAD:diplomacy_research/players/rulesets/dumbbot_ruleset.py > /tmp/dumbbot_ruleset.py

The port imports one name from the rest of that repository (``build_game_from_state_proto``, which needs
TensorFlow and protocol buffers); this harness puts a stub module in ``sys.modules`` for the import, and hands
``run_ruleset`` a small adapter in place of the state proto. The port decides on a MILA ``diplomacy.Game``
(the ``diplomacy`` package) that is set to our position before every decision, converted by our own interop
code (:mod:`dippouch.interop.mila`); its orders are read back with the same code, checked against our engine's
legal orders (an order that is not legal is counted, printed, and not sent) and adjudicated by our engine with
everyone else's. Our levels play through our engine as in every game (:func:`dippouch.bots.play.play_game`).

Three corrections bring the port back to the original (the C++ ``dumbbot.cpp`` of the DAIDE client), unless
``--as-published``:

- **centres nobody owns.** The port gives an unowned supply centre no attack value (it walks only the centres
  each power owns). The original counts the neutral centres as one more "power" and values each unowned
  centre at that power's size, ``A n^2 + B n + C`` with ``n`` the number of unowned centres (208 at the start),
  so the opening's neutral centres draw units the way another power's centres do.
- **legal retreats.** The port retreats a dislodged unit to any adjacent free province, including the one its
  attacker came from and a province left empty by a standoff (both illegal, so the unit is lost). The original
  picks among the retreat options the server sends; here, among the unit's legal retreats in our engine.
- **supports name provinces.** Turning a hold into a support, the port writes the destination with the coast it
  found among the supporter's neighbours (``F RUM S F CON - BUL/EC``), which a support cannot name; the
  original's supports name the province.

Each game puts one power of one side (the lone seat, the power at place ``g mod 7`` in game ``g``, so each
power takes it in turn) against six of the other side, from a fixed seed, to the end of ``--years`` game years
(20: to 1920) or a solo. Results per pairing as the DipNet paper reports them (Paquette et al. 2019): the lone
power's wins (a solo), draws (no solo and it survives to the end, so it shares the draw), survivals (alive when
another power solos), eliminations, games it ends with the most centres without a solo (the paper's "most
SC", ties included), and its mean centres at the end.

    .venv/bin/python benchmarks/bench_dumbbot.py --dumbbot /tmp/research                 # the full ladder
    nice -n 19 .venv/bin/python benchmarks/bench_dumbbot.py --dumbbot /tmp/dumbbot_ruleset.py --games 2 --years 3

With ``--evaluations`` the search's budget is a count of adjudications, so a seed plays the same games however
busy the machine is, and ``--trace`` plays chosen games of a run again, exactly, with each power's centres every
year: ``--pairings dumbbot:search --evaluations 4000 --seed 17001 --trace 9`` is game 9 of that run. ``--seats
Turkey`` plays only the games with Turkey in the lone seat (``--games`` of them, each as in the full run), where a
change aimed at one corner is measured for a seventh of the full run's time.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import random
import statistics
import sys
import time
import types
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dippouch.bots import make_bot
from dippouch.bots.base import Bot, settle
from dippouch.bots.engine import Order, PhaseKind, Position, Variant, format_order, legal_orders
from dippouch.bots.memory import Memory
from dippouch.bots.play import PlayedGame, play_game
from dippouch.bots.search import SearchBot
from dippouch.catalog import load_variant
from dippouch.interop.mila import MilaFormatError, order_from_mila, phase_to_mila, position_to_mila_state

DUMBBOT = "dumbbot"
OURS = ("heuristic", "search")
PAIRINGS = (("heuristic", DUMBBOT), ("search", DUMBBOT), (DUMBBOT, "heuristic"), (DUMBBOT, "search"))
"""(the lone seat's level, the six others' level). ``dumbbot:dumbbot`` (a DumbBot among DumbBots, the baseline
of its own centres) can be asked for with ``--pairings``."""
PORT_PATH = Path("diplomacy_research/players/rulesets/dumbbot_ruleset.py")
ENV = "DIPPOUCH_DUMBBOT"
CLOCK = time.process_time
"""Decisions are timed, and the search level's budget measured, in CPU time, as in bench_bots.py."""

PAPER: dict[tuple[str, str], dict[str, float]] = {}
"""The DipNet paper's published DumbBot pairings (Paquette et al. 2019, "No Press Diplomacy: Modeling
Multi-Agent Gameplay", NeurIPS 2019, arXiv:1909.02128), keyed like ``PAIRINGS`` with the paper's agent
names, printed beside ours. Empty: the table's figures could not be read from a source available when this
harness was written, and figures are never typed in from memory (docs/bots.md says where they are)."""


# --- the port ---------------------------------------------------------------------------------------------


def port_file(path: str | Path) -> Path:
    """The port's file from ``path``: the file itself, or a checkout of diplomacy/research holding it."""
    p = Path(path).expanduser()
    if p.is_dir():
        p = p / PORT_PATH
    if not p.is_file():
        raise FileNotFoundError(
            f"no DumbBot port at {p}: give --dumbbot (or {ENV}) a checkout of https://github.com/diplomacy/research "
            f"or its file {PORT_PATH}"
        )
    return p


@contextmanager
def _state_space_stub() -> Iterator[None]:
    """``diplomacy_research.models.state_space`` for the port's one import from the rest of its repository, present
    only while the port is imported: our adapter carries the MILA game, and the stub hands it over."""
    stub = types.ModuleType("diplomacy_research.models.state_space")
    stub.build_game_from_state_proto = lambda proto: proto.game  # type: ignore[attr-defined]
    names = ("diplomacy_research", "diplomacy_research.models", "diplomacy_research.models.state_space")
    saved = {n: sys.modules.get(n) for n in names}
    sys.modules.update({n: types.ModuleType(n) for n in names[:2]})
    sys.modules[names[2]] = stub
    try:
        yield
    finally:
        for n, module in saved.items():
            if module is None:
                sys.modules.pop(n, None)
            else:
                sys.modules[n] = module


def load_port(path: str | Path, *, corrected: bool = True) -> types.ModuleType:
    """The port as a module of its own (a fresh copy each call, so corrections never leak between runs),
    with the two corrections of the module docstring unless ``corrected`` is false."""
    file = port_file(path)
    spec = importlib.util.spec_from_file_location(f"_dumbbot_port_{id(object())}", file)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {file}")
    module = importlib.util.module_from_spec(spec)
    with _state_space_stub():
        spec.loader.exec_module(module)
    for name in (
        "run_ruleset",
        "calculate_attack_defense",
        "generate_retreat_orders",
        "check_wasted_holds",
        "get_next_item",
    ):
        if not hasattr(module, name):
            raise ImportError(f"{file} is not the DumbBot port this harness knows: it has no {name}()")
    if corrected:
        _correct_neutral_centres(module)
        _correct_retreats(module)
        _correct_support_destinations(module)
    setattr(module, "DIPPOUCH_CORRECTED", corrected)  # noqa: B010
    return module


def _correct_neutral_centres(port: types.ModuleType) -> None:
    """The original's attack value for centres nobody owns (see the module docstring)."""
    published = port.calculate_attack_defense

    def calculate_attack_defense(game: Any, power_name: str) -> tuple[dict[str, float], dict[str, float]]:
        attack_map, defense_map = published(game, power_name)
        owned = {c.upper() for power in game.powers.values() for c in power.centers}
        neutral = [c.upper() for c in game.map.scs if c.upper() not in owned]
        n = len(neutral)
        size = port.SIZE_SQUARE_COEFFICIENT * n**2 + port.SIZE_COEFFICIENT * n + port.SIZE_CONSTANT
        for centre in neutral:
            attack_map[centre] = size
        return attack_map, defense_map

    setattr(port, "calculate_attack_defense", calculate_attack_defense)  # noqa: B010 (setattr: mypy knows no names of a module loaded by path)


def _correct_retreats(port: types.ModuleType) -> None:
    """The original's retreats: among the unit's legal retreats only (see the module docstring). The rest is the
    port's own procedure: units in random order, the best destination with the port's chance of taking the next
    best (``get_next_item``), never two units to one province, disband when nothing is left."""

    def generate_retreat_orders(game: Any, power_name: str, dest_unit_value: dict[str, float]) -> list[str]:
        power = game.get_power(power_name)
        units = list(power.retreats)
        random.shuffle(units)
        taken: set[str] = set()
        orders: list[str] = []
        for unit in units:
            options = [f"{unit[0]} {loc.upper()}" for loc in power.retreats.get(unit, [])]
            options = sorted(
                (u for u in options if u in dest_unit_value), key=lambda u: dest_unit_value[u], reverse=True
            )
            chosen = None
            while options:
                pick = port.get_next_item(options, dest_unit_value)
                if pick[2:5] not in taken:
                    chosen = pick
                    break
                options.remove(pick)
            if chosen is None:
                orders.append(f"{unit} D")
            else:
                taken.add(chosen[2:5])
                orders.append(f"{unit} R {chosen[2:]}")
        return orders

    setattr(port, "generate_retreat_orders", generate_retreat_orders)  # noqa: B010


def _correct_support_destinations(port: types.ModuleType) -> None:
    """The original's supports name the province a move goes to. When the port turns a hold into a support
    (``check_wasted_holds``), it writes the destination as it found it among the supporter's neighbours, coast and
    all (``F RUM S F CON - BUL/EC``), which names a coast a support cannot name (and often not the one the move
    goes to); the original's ``set_support_to_move_order`` takes the province. The coast is dropped here."""
    published = port.check_wasted_holds

    def check_wasted_holds(*args: Any, **kwargs: Any) -> dict[str, str]:
        orders: dict[str, str] = published(*args, **kwargs)
        for province, text in orders.items():
            words = text.split()
            if len(words) == 7 and words[2] == "S" and words[5] == "-" and "/" in words[6]:
                orders[province] = " ".join([*words[:6], words[6].split("/")[0]])
        return orders

    setattr(port, "check_wasted_holds", check_wasted_holds)  # noqa: B010


@dataclass
class _Listing:
    value: list[str]


class StateAdapter:
    """What ``run_ruleset`` reads of a state proto (``units[power].value``, ``centers[power].value``), plus the MILA
    game the stub module hands to the port in place of building one from the proto."""

    def __init__(self, game: Any) -> None:
        self.game = game
        self.units = {name: _Listing(list(power.units)) for name, power in game.powers.items()}
        self.centers = {name: _Listing(list(power.centers)) for name, power in game.powers.items()}


def mila_game(variant: Variant, position: Position, game: Any = None) -> Any:
    """A MILA ``diplomacy.Game`` set to ``position`` (our interop's state; ``game`` reused when given)."""
    if game is None:
        from diplomacy import Game

        game = Game()
    state = position_to_mila_state(variant, position)
    state.update({"timestamp": 0, "zobrist_hash": "0", "note": ""})
    game.set_state(state)
    return game


class DumbBotSeat:
    """A seat played by the port, as a :class:`~dippouch.bots.base.Bot`: each decision sets the seat's MILA game to
    our position, asks ``run_ruleset`` (the port's randomness seeded from the game's own generator, Python's
    global ``random`` restored afterwards) and reads the orders back into ours.

    ``illegal`` lists every order it sent that our engine would not take (unreadable, or not among the legal
    orders), for the report; such orders are never sent (the unit holds)."""

    name = DUMBBOT

    def __init__(self, port: types.ModuleType, seen: dict[tuple[Any, str], list[Order]] | None = None) -> None:
        self.port = port
        self.seen = seen
        """Where the movement orders sent are kept by (phase, power), when the lone seat's foresight is counted."""
        self.illegal: list[str] = []
        self.orders_sent = 0
        self._game: Any = None
        self._position: Position | None = None

    def orders(
        self, variant: Variant, position: Position, power: str, rng: random.Random, memory: Memory | None = None
    ) -> list[Order]:
        if position is not self._position:
            self._game = mila_game(variant, position, self._game)
            self._position = position
        saved = random.getstate()
        random.seed(rng.getrandbits(64))
        try:
            texts = list(self.port.run_ruleset(StateAdapter(self._game), power.upper()))
        finally:
            random.setstate(saved)
        kind = variant.calendar.kind(position.phase)
        allowed = {o for options in legal_orders(variant, position, power).values() for o in options}
        out: list[Order] = []
        where = f"{phase_to_mila(variant, position.phase)} {power}"
        for text in texts:
            self.orders_sent += 1
            try:
                order = order_from_mila(variant, kind, text)
            except MilaFormatError as e:
                self.illegal.append(f"{where}: {text!r} unreadable ({e})")
                continue
            if order not in allowed:
                self.illegal.append(f"{where}: {text!r} ({format_order(variant, order)}) is not a legal order")
                continue
            out.append(order)
        if self.seen is not None and kind is PhaseKind.MOVEMENT:
            self.seen[(position.phase, power)] = out
        return out


class Watched:
    """The lone search seat, keeping the replies each of its movement decisions was weighed against."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self.name = bot.name
        self.replies: dict[Any, list[dict[str, list[Order]]]] = {}

    def orders(
        self, variant: Variant, position: Position, power: str, rng: random.Random, memory: Memory | None = None
    ) -> list[Order]:
        chosen = self.bot.orders(variant, position, power, rng, memory)
        replies = getattr(self.bot, "last_replies", None)
        if replies and variant.calendar.kind(position.phase) is PhaseKind.MOVEMENT:
            self.replies[position.phase] = replies
        return chosen


def foresight(seen: dict[tuple[Any, str], list[Order]], watched: Watched) -> tuple[int, int, int]:
    """(DumbBot's movement orders in the phases the lone search power decided, those its first reply (the
    heuristic's own) foresaw, those any of its replies foresaw)."""
    total = first = any_ = 0
    for (phase, power), sent in seen.items():
        replies = watched.replies.get(phase)
        if not replies:
            continue
        firsts = set(replies[0].get(power, ()))
        every = {o for reply in replies for o in reply.get(power, ())}
        total += len(sent)
        first += sum(1 for o in sent if o in firsts)
        any_ += sum(1 for o in sent if o in every)
    return total, first, any_


# --- the ladder -------------------------------------------------------------------------------------------


@dataclass
class PairingFigures:
    """The lone seat's results over one pairing's games."""

    lone: str
    others: str
    games: int = 0
    wins: int = 0
    draws: int = 0
    survivals: int = 0
    eliminations: int = 0
    most_centres: int = 0
    centres: list[int] = field(default_factory=list)
    illegal: int = 0
    seconds: dict[str, list[float]] = field(default_factory=dict)
    dumbbot_orders: int = 0
    examples: list[str] = field(default_factory=list)
    foreseen: list[int] = field(default_factory=lambda: [0, 0, 0])
    """DumbBot's movement orders, those the lone search power's first reply foresaw, those any reply did."""


def lone_seat(powers: tuple[str, ...], game: int) -> str:
    """The power alone against the six in game ``game``: each power in turn."""
    return powers[game % len(powers)]


def seats_for(powers: tuple[str, ...], lone: str, field_level: str, game: int) -> tuple[str, dict[str, str]]:
    """The lone power of game ``game`` (:func:`lone_seat`) and every power's level."""
    alone = lone_seat(powers, game)
    return alone, {p: lone if p == alone else field_level for p in powers}


def games_of(powers: tuple[str, ...], games: int, seats: Sequence[str]) -> list[int]:
    """The first ``games`` games (by index) whose lone seat is one of ``seats``; all of the first ``games`` without.

    A seat's games alone are its games in the full run with the same seed (game ``g`` always plays from seed
    ``seed + g``), so a change aimed at one corner is measured on that corner's games for a seventh of the cost."""
    if not seats:
        return list(range(games))
    if not set(seats) & set(powers):
        raise ValueError(f"no power {', '.join(seats)} among {', '.join(powers)}")
    chosen: list[int] = []
    g = 0
    while len(chosen) < games:
        if lone_seat(powers, g) in seats:
            chosen.append(g)
        g += 1
    return chosen


def classify(record: PlayedGame, power: str) -> str:
    """The lone power's result: ``win``, ``draw``, ``survive`` or ``eliminated`` (see the module docstring)."""
    alive = record.centres.get(power, 0) > 0 or (
        record.final is not None and any(u.power == power for u in record.final.units.values())
    )
    if record.winner == power:
        return "win"
    if not alive:
        return "eliminated"
    return "survive" if record.winner is not None else "draw"


@dataclass
class GameResult:
    """One game of a pairing, as :func:`run_pairing` counts it (picklable: games may be played in other
    processes)."""

    game: int
    alone: str
    outcome: str
    centres: int
    most: bool
    illegal: int
    dropped: int
    dumbbot_orders: int
    examples: list[str]
    seconds: dict[str, list[float]]
    foreseen: tuple[int, int, int]
    line: str
    yearly: list[tuple[int, dict[str, int]]]


def play_one(
    variant: Variant,
    lone: str,
    field_level: str,
    g: int,
    years: int,
    budget: float,
    seed: int,
    port: types.ModuleType | None,
    evaluations: int = 0,
) -> GameResult:
    """Game ``g`` of the pairing: the lone power (each power in turn) against six of ``field_level``; the search
    level's budget is ``evaluations`` adjudications a decision where given, else ``budget`` seconds of CPU."""
    alone, levels = seats_for(variant.power_names, lone, field_level, g)
    bots: dict[str, Bot] = {}
    dumbbots: list[DumbBotSeat] = []
    seen: dict[tuple[Any, str], list[Order]] = {}
    watched: Watched | None = None
    for level in set(levels.values()):
        if level == DUMBBOT:
            if port is None:
                raise ValueError("a DumbBot pairing needs the port (--dumbbot)")
            seat = DumbBotSeat(port, seen if lone == "search" else None)
            dumbbots.append(seat)
            bots[level] = seat
        else:
            bots[level] = bot = make_bot(level, budget=budget, clock=CLOCK)
            if evaluations and isinstance(bot, SearchBot):
                bot.count_evaluations(evaluations)
            if level == "search" and lone == "search" and field_level == DUMBBOT:
                bots[level] = watched = Watched(bots[level])
    record = play_game(variant, {p: bots[lv] for p, lv in levels.items()}, seed + g, max_years=years, clock=CLOCK)
    outcome = classify(record, alone)
    top = max(record.centres.values())
    # The seats drop what our engine would not take, so the game's own count sees only the adjudicator's.
    dropped = sum(len(seat.illegal) for seat in dumbbots)
    return GameResult(
        g,
        alone,
        outcome,
        record.centres[alone],
        record.winner is None and record.centres[alone] == top > 0,
        record.illegal,
        dropped,
        sum(seat.orders_sent for seat in dumbbots),
        [line for seat in dumbbots for line in seat.illegal][:10],
        dict(record.move_seconds),
        foresight(seen, watched) if watched is not None else (0, 0, 0),
        f"{alone} ({lone}) {outcome}, {record.centres[alone]} centres "
        f"({record.years} years, {record.ending}; illegal {record.illegal + dropped})",
        record.yearly,
    )


_WORKER: dict[str, Any] = {}


def _start_worker(port_path: str | None, corrected: bool) -> None:
    """A pool process's own variant and port (modules do not travel between processes)."""
    variant = load_variant("standard")
    settle(variant)
    _WORKER["variant"] = variant
    _WORKER["port"] = load_port(port_path, corrected=corrected) if port_path else None


def _play_in_worker(
    lone: str, field_level: str, g: int, years: int, budget: float, seed: int, evaluations: int
) -> GameResult:
    return play_one(_WORKER["variant"], lone, field_level, g, years, budget, seed, _WORKER["port"], evaluations)


def run_pairing(
    variant: Variant,
    lone: str,
    field_level: str,
    games: int,
    years: int,
    budget: float,
    seed: int,
    port: types.ModuleType | None,
    progress: Callable[[str], None] | None = None,
    pool: Executor | None = None,
    evaluations: int = 0,
    only: Sequence[int] = (),
    seats: Sequence[str] = (),
) -> PairingFigures:
    """The pairing's figures over ``games`` games, played here or, given a ``pool`` (whose processes were
    started by :func:`_start_worker`), in its processes; a game's figures never depend on where it ran.
    ``only``: these games alone (by index), each traced in ``progress``: every power's centres every year.
    ``seats``: ``games`` games with one of these powers in the lone seat (:func:`games_of`)."""
    figures = PairingFigures(lone, field_level)
    chosen = list(only) if only else games_of(variant.power_names, games, seats)
    games = len(chosen)
    if pool is None:
        played: Iterator[GameResult] = (
            play_one(variant, lone, field_level, g, years, budget, seed, port, evaluations) for g in chosen
        )
    else:
        futures = [pool.submit(_play_in_worker, lone, field_level, g, years, budget, seed, evaluations) for g in chosen]
        played = (f.result() for f in as_completed(futures))
    for done, result in enumerate(played, 1):
        figures.games += 1
        figures.wins += result.outcome == "win"
        figures.draws += result.outcome == "draw"
        figures.survivals += result.outcome == "survive"
        figures.eliminations += result.outcome == "eliminated"
        figures.most_centres += result.most
        figures.centres.append(result.centres)
        figures.illegal += result.illegal + result.dropped
        figures.dumbbot_orders += result.dumbbot_orders
        figures.examples += result.examples[: max(0, 10 - len(figures.examples))]
        for level, secs in result.seconds.items():
            figures.seconds.setdefault(level, []).extend(secs)
        figures.foreseen = [a + b for a, b in zip(figures.foreseen, result.foreseen, strict=True)]
        if progress is not None:
            progress(f"  game {result.game + 1} ({done}/{games} done): {result.line}")
            if only:
                for year, centres in result.yearly:
                    progress(f"    {year}: " + ", ".join(f"{p} {n}" for p, n in centres.items()))
    return figures


def _pct(n: int, of: int) -> str:
    return f"{100 * n / of:.0f}%" if of else "-"


def table_lines(all_figures: list[PairingFigures], years: int) -> list[str]:
    """The ladder as a Markdown table, with the paper's row for a pairing beside ours when it is known."""
    lines = [
        f"| lone power (1) | the others (6) | games | win (solo) | draw | survive | eliminated | most centres "
        f"| mean centres in {1900 + years} | illegal orders |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for f in all_figures:
        n = f.games
        mean = statistics.fmean(f.centres) if f.centres else 0.0
        lines.append(
            f"| `{f.lone}` | `{f.others}` | {n} | {f.wins} ({_pct(f.wins, n)}) | {f.draws} ({_pct(f.draws, n)}) "
            f"| {f.survivals} ({_pct(f.survivals, n)}) | {f.eliminations} ({_pct(f.eliminations, n)}) "
            f"| {f.most_centres} ({_pct(f.most_centres, n)}) | {mean:.2f} | {f.illegal} |"
        )
        paper = PAPER.get((f.lone, f.others))
        if paper:
            lines.append(
                f"| paper: {paper.get('label', f.lone)} | {paper.get('field', f.others)} | {paper['games']:.0f} "
                f"| {paper['win']:.1f}% | - | {paper['survived']:.1f}% | {paper['defeated']:.1f}% "
                f"| {paper['most_sc']:.1f}% | - | - |"
            )
    return lines


def _ms(values: list[float]) -> str:
    if not values:
        return "-"
    ordered = sorted(values)
    p95 = ordered[max(0, -(-95 * len(ordered) // 100) - 1)]
    return f"{1000 * statistics.fmean(values):.1f} / {1000 * p95:.1f} / {1000 * max(values):.0f} ms"


def parse_pairings(text: str) -> list[tuple[str, str]]:
    """``heuristic:dumbbot,dumbbot:search`` -> pairs; each pair has a DumbBot side and levels we know."""
    known = (*OURS, DUMBBOT)
    out: list[tuple[str, str]] = []
    for part in (p.strip() for p in text.split(",") if p.strip()):
        lone, sep, other = part.partition(":")
        if not sep or lone not in known or other not in known or DUMBBOT not in (lone, other):
            raise ValueError(
                f"pairing {part!r}: write LONE:FIELD, one side {DUMBBOT}, the other one of {', '.join(OURS)} "
                f"(or {DUMBBOT}:{DUMBBOT}), e.g. heuristic:{DUMBBOT}"
            )
        out.append((lone, other))
    if not out:
        raise ValueError("no pairing given")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dumbbot", metavar="PATH", default=os.environ.get(ENV), help=f"the port (default ${ENV})")
    ap.add_argument("--games", type=int, default=28, help="games per pairing (7 gives every power the lone seat once)")
    ap.add_argument("--years", type=int, default=20, help="game years before a game is stopped (20: to 1920)")
    ap.add_argument("--budget", type=float, default=0.5, help="search level's CPU seconds per movement decision")
    ap.add_argument(
        "--evaluations", type=int, default=0, metavar="N",
        help="the search's budget in adjudications a decision instead: a seed then plays the same games every run",
    )  # fmt: skip
    ap.add_argument(
        "--trace", default="", metavar="N,N",
        help="only these games of each pairing (as the lines number them), with each power's centres every year",
    )  # fmt: skip
    ap.add_argument(
        "--seats", default="", metavar="POWER,POWER",
        help="only games with one of these powers in the lone seat, --games of them (the same games as in a full run)",
    )  # fmt: skip
    ap.add_argument("--pairings", default=",".join(f"{a}:{b}" for a, b in PAIRINGS), help="LONE:FIELD,...")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--as-published", action="store_true", help="the port without the two corrections")
    ap.add_argument("--quiet", action="store_true", help="no line per game")
    ap.add_argument("--jobs", type=int, default=1, help="games played at once, each in a process of its own")
    args = ap.parse_args(argv)
    try:
        pairings = parse_pairings(args.pairings)
    except ValueError as e:
        ap.error(str(e))
    try:
        only = sorted({int(n) - 1 for n in args.trace.split(",") if n.strip()})
    except ValueError:
        ap.error(f"--trace takes game numbers separated by commas, as 3,10; not {args.trace!r}")
    if any(g < 0 for g in only):
        ap.error("--trace counts games from 1")
    variant = load_variant("standard")
    seats = [p.strip() for p in args.seats.split(",") if p.strip()]
    unknown = [p for p in seats if p not in variant.power_names]
    if unknown:
        ap.error(
            f"--seats: no power {', '.join(unknown)} on the standard map; the powers: {', '.join(variant.power_names)}"
        )
    if seats and only:
        ap.error("--trace names its games itself: give --trace with game numbers, or --seats with --games, not both")
    if args.games < 1 or args.years < 1 or args.budget <= 0 or args.jobs < 1 or args.evaluations < 0:
        ap.error("--games, --years and --jobs must be at least 1, --budget above 0 and --evaluations not below 0")
    if not args.dumbbot:
        ap.error(f"no DumbBot port: give --dumbbot PATH or set {ENV} (see this script's docstring for how to fetch it)")
    try:
        port = load_port(args.dumbbot, corrected=not args.as_published)
    except (OSError, ImportError) as e:
        ap.error(str(e))
    settle(variant)
    started = time.perf_counter()
    what = (
        "as published"
        if args.as_published
        else "corrected: neutral centres valued, legal retreats, supports to provinces"
    )
    print(f"DumbBot: {port_file(args.dumbbot)} ({what})")
    spent = f"{args.evaluations} adjudications" if args.evaluations else f"{args.budget} s CPU"
    seated = f" with {' or '.join(seats)} in the lone seat" if seats else ""
    print(
        f"{args.games} game(s) a pairing{seated}, {args.years} year(s), seed {args.seed}, search budget {spent} a decision"
    )
    results: list[PairingFigures] = []
    pool = (
        ProcessPoolExecutor(args.jobs, initializer=_start_worker, initargs=(args.dumbbot, not args.as_published))
        if args.jobs > 1
        else None
    )
    for lone, other in pairings:
        print(f"\n== one {lone} against six {other}", flush=True)
        figures = run_pairing(
            variant, lone, other, args.games, args.years, args.budget, args.seed, port,
            None if args.quiet else lambda line: print(line, flush=True), pool, args.evaluations, only, seats,
        )  # fmt: skip
        results.append(figures)
        for line in figures.examples:
            print(f"  illegal: {line}")
        times = ", ".join(f"{lv} {_ms(s)}" for lv, s in sorted(figures.seconds.items()))
        print(f"  CPU per movement decision (mean / p95 / worst): {times}")
        total, first, any_ = figures.foreseen
        if total:
            print(
                f"  the search's replies foresaw {_pct(any_, total)} of DumbBot's {total} movement orders "
                f"(its first reply, the heuristic's own: {_pct(first, total)})"
            )
    if pool is not None:
        pool.shutdown()
    print()
    print("\n".join(table_lines(results, args.years)))
    total = sum(f.illegal for f in results)
    sent = sum(f.dumbbot_orders for f in results)
    print(f"\nillegal orders: {total} (DumbBot sent {sent} orders); {time.perf_counter() - started:.0f} s in all")
    if not PAPER:
        print("the paper's figures: not in this harness (see docs/bots.md, 'DumbBot ladder')")
    return 0 if total == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
