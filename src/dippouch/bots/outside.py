"""Outside bots: any program that reads and writes JSON lines plays a power (docs/bots.md).

The program is started once and kept running. For each decision dippouch writes one line to its standard
input::

    {"type": "orders", "protocol": 1, "variant": "standard", "power": "France",
     "phase": "Spring 1901 Movement", "kind": "movement",
     "position": {...the adjudication contract's position...},
     "legal": {"par": ["A par H", "A par - bur", ...], ...},
     "centres": ["ank", "bel", ...], "builds": 0}

``legal`` maps each unit (or build site) to its legal orders in canonical notation, the same lists the
web's pick lists show; ``centres`` lists the map's supply centres; ``builds`` is what the variant's adjustment rule allows (positive: builds,
negative: removals owed). The program answers with one line, ``{"orders": ["A par - bur", ...]}``. Each
order must be one of the ``legal`` strings, or read to one of those orders (any notation dippouch reads);
anything else is dropped and counted, never sent. A program that answers late (``timeout``), not in JSON, or
not at all, gives no orders for that phase (its units hold), so it never holds a game up. At the end
dippouch writes ``{"type": "end", ...}`` and closes the program's input.
"""

from __future__ import annotations

import json
import random
import select
import subprocess
import time
from collections.abc import Sequence
from typing import Any

from dippouch.bots.engine import (
    DippouchError,
    Order,
    Position,
    Variant,
    adjustment_delta,
    format_order,
    legal_orders,
    parse_order,
    position_to_json,
)

__all__ = ["PROTOCOL", "OutsideBot", "OutsideBotError", "request"]

PROTOCOL = 1
MAX_LINE = 1_000_000
"""The longest answer line read (characters); a longer one is refused, not read into memory whole."""


class OutsideBotError(DippouchError):
    """The program could not be started."""


def request(variant: Variant, position: Position, power: str) -> tuple[dict[str, Any], dict[str, Order]]:
    """The JSON request for ``power`` in ``position``, and canonical text -> legal order."""
    kind = variant.calendar.kind(position.phase)
    legal = legal_orders(variant, position, power)
    by_text: dict[str, Order] = {}
    listed: dict[str, list[str]] = {}
    for loc, options in legal.items():
        texts = []
        for o in options:
            t = format_order(variant, o, phase_kind=kind)
            by_text[t] = o
            texts.append(t)
        listed[variant.map.locations[loc].abbr] = texts
    message = {
        "type": "orders",
        "protocol": PROTOCOL,
        "variant": variant.name,
        "power": power,
        "phase": variant.calendar.name(position.phase),
        "kind": kind.value,
        "position": position_to_json(variant, position),
        "legal": listed,
        "centres": sorted(variant.map.provinces[c].abbr for c in variant.map.supply_centres),
        "builds": adjustment_delta(variant, position, power) if kind.value == "adjustments" else 0,
    }
    return message, by_text


class OutsideBot:
    """A :class:`~dippouch.bots.base.Bot` played by an outside program speaking JSON lines."""

    name = "outside"

    def __init__(self, command: Sequence[str], *, timeout: float = 10.0) -> None:
        if not command:
            raise OutsideBotError("name the bot's program, e.g. `dippouch bot -- python3 mybot.py`")
        try:
            self.proc = subprocess.Popen(
                list(command),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
                encoding="utf-8",
                bufsize=1,
            )
        except OSError as e:
            raise OutsideBotError(f"cannot start the bot program {command[0]!r}: {e.strerror or e}") from None
        self.timeout = timeout
        self.dropped: list[str] = []
        """Orders the program sent that were not legal (with why), in the order sent."""
        self.silent = 0
        """Decisions the program did not answer in time or in JSON."""

    def orders(self, variant: Variant, position: Position, power: str, rng: random.Random) -> list[Order]:
        message, by_text = request(variant, position, power)
        if not by_text:
            return []
        answer = self._ask(message)
        if answer is None:
            self.silent += 1
            return []
        raw = answer.get("orders")
        if not isinstance(raw, list):
            self.silent += 1
            return []
        kind = variant.calendar.kind(position.phase)
        legal = set(by_text.values())
        chosen: list[Order] = []
        for item in raw:
            text = str(item)
            order = by_text.get(text)
            if order is None:
                try:
                    order = parse_order(variant, text, phase_kind=kind)
                except DippouchError as e:  # the program's mistake: reported, never sent
                    self.dropped.append(f"{text!r}: {e}")
                    continue
            if order not in legal:
                self.dropped.append(f"{text!r}: not a legal order for {power} now")
                continue
            chosen.append(order)
        return chosen

    def _ask(self, message: dict[str, Any]) -> dict[str, Any] | None:
        stdin, stdout = self.proc.stdin, self.proc.stdout
        if stdin is None or stdout is None or self.proc.poll() is not None:
            return None
        try:
            stdin.write(json.dumps(message, separators=(",", ":")) + "\n")
            stdin.flush()
        except (BrokenPipeError, OSError):
            return None
        deadline = time.monotonic() + self.timeout
        ready, _, _ = select.select([stdout], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            return None
        line = stdout.readline(MAX_LINE)
        try:
            data = json.loads(line)
        except ValueError:
            return None
        return data if isinstance(data, dict) else None

    def close(self, summary: dict[str, Any] | None = None) -> None:
        """Tell the program the game is over and let it go (it is ended if it does not stop within a second)."""
        try:
            if self.proc.stdin is not None and self.proc.poll() is None:
                self.proc.stdin.write(json.dumps({"type": "end", **(summary or {})}) + "\n")
                self.proc.stdin.close()
        except (BrokenPipeError, OSError):
            pass
        try:
            self.proc.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
