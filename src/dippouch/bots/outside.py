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
anything else is dropped and counted, never sent. A program that answers late, not in JSON, or not at all,
gives no orders for that phase (its units hold), so it never holds a game up; why is recorded in
:attr:`OutsideBot.failures`. ``timeout`` is a deadline for the whole answer line, not for its first byte: a
program that trickles its answer a byte at a time is cut off at the deadline like a silent one, and an
answer line longer than :data:`MAX_LINE` bytes is refused without being kept in memory. A late answer that
arrives after all is skipped, so each request is paired with its own answer. At the end dippouch writes
``{"type": "end", ...}`` and closes the program's input.

The program cannot keep dippouch waiting or busy past ``timeout``: the deadline covers the whole exchange,
writing the request (a program that stops reading its input is ended once a request cannot be written in
time), reading the answer and reading its orders. An answer nested deeper than :data:`MAX_DEPTH`, with more
orders than the power could use (:func:`order_limit`), or with an order longer than :data:`MAX_ORDER_LENGTH`
characters is refused or dropped before any costly reading, so each costs no more than a short scan.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import random
import select
import signal
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
from dippouch.bots.memory import Memory
from dippouch.core.messages import msg

I18N_DOMAIN = "rules"
"""The catalogue of the bots' refusals, said in the reader's language where they are shown (dippouch.saying)."""

__all__ = [
    "MAX_DEPTH",
    "MAX_LINE",
    "MAX_ORDER_LENGTH",
    "PROTOCOL",
    "OutsideBot",
    "OutsideBotError",
    "order_limit",
    "request",
]


def _ready(fd: int, event: int, seconds: float) -> bool:
    """Whether ``fd`` is ready for ``event`` (POLLIN, POLLOUT) within ``seconds``, or closed: poll, not
    select, which refuses a descriptor numbered 1024 or more (a long-running server holds that many)."""
    poller = select.poll()
    poller.register(fd, event)
    return bool(poller.poll(max(0, int(seconds * 1000) + 1)))


PROTOCOL = 1
MAX_LINE = 1_000_000
"""The longest answer line read (bytes); a longer one is refused, not read into memory whole."""
MAX_DEPTH = 32
"""The deepest nesting of lists and objects read in an answer: ``{"orders": [...]}`` is two deep, and room is
left for a program's own notes; deeper nesting only makes the JSON reader recurse (a thousand levels of it
ended the runner with ``RecursionError``)."""
MAX_ORDER_LENGTH = 300
"""Characters in one order read: the longest order written out in full names is under 150 (the same bound as
the adjudication contract's); a longer one is dropped unread, since each misspelt order costs a "did you
mean" search that grows with its length."""
_CHUNK = 65_536
_STEP = [1 if b in b"[{" else -1 if b in b"]}" else 0 for b in range(256)]
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


def order_limit(places: int) -> int:
    """The most orders read from one answer for a power with ``places`` units (or build sites) to order.

    Each unit or site takes one order, so a larger answer is a broken program: twice the count leaves room
    for one that repeats an order in another notation, and ten more for a power with very few units. Without
    a bound, 30,000 misspelt orders (500 KB, under :data:`MAX_LINE`) each cost a "did you mean" search:
    12 s a decision on standard, a minute on W3K."""
    return 2 * places + 10


def _nesting(line: bytes) -> int:
    """How deep lists and objects nest in the JSON ``line``, found without parsing it (short scans of the
    bytes, so a line of a million ``[`` costs tens of milliseconds, not a recursion per level).

    String contents are left out: escaped backslashes and quotes are removed first, so every quote left
    opens or closes a string. On text that is not JSON the figure may be off, but only after the point
    where the JSON reader would stop anyway, so it is never below the depth the reader would reach."""
    unescaped = line.replace(b"\\\\", b"").replace(b'\\"', b"")
    brackets = b"".join(unescaped.split(b'"')[::2]).translate(None, _NOT_BRACKETS)
    return max(itertools.accumulate(map(_STEP.__getitem__, brackets)), default=0)


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


END_GRACE = 1.0
"""Seconds a program and what it started have to stop once asked (SIGTERM) before they are killed."""


def _signal_group(group: int, sig: int) -> bool:
    """Send ``sig`` to each process of the process group ``group`` (0: only ask whether any is left); whether
    any was there to receive it."""
    try:
        os.killpg(group, sig)
    except ProcessLookupError:
        return False
    except PermissionError:  # the group's id taken by a process not ours: none of the program's is left
        return False
    return True


class OutsideBot:
    """A :class:`~dippouch.bots.base.Bot` played by an outside program speaking JSON lines."""

    name = "outside"

    def __init__(self, command: Sequence[str], *, timeout: float = 10.0) -> None:
        if not command:
            raise OutsideBotError("name the bot's program, e.g. `dippouch bot -- python3 mybot.py`")
        try:
            # In a session (and so a process group) of its own: what the program starts is ended with it.
            self.proc = subprocess.Popen(
                list(command),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                start_new_session=True,
            )
        except OSError as e:
            raise OutsideBotError(
                msg(
                    "cannot start the bot program %(program)s: %(why)s",
                    program=repr(command[0]),
                    why=str(e.strerror or e),
                )
            ) from None
        if self.proc.stdin is not None:
            # Requests are written a piece at a time as the pipe takes them, so that a program that stops
            # reading cannot block the write past the deadline (the buffered writer is never written to).
            os.set_blocking(self.proc.stdin.fileno(), False)
        self.timeout = timeout
        self.label = " ".join(os.path.basename(a) if os.sep in a else a for a in command)[:80]
        """The program as named in :attr:`failures` (paths shortened to their last part)."""
        self.dropped: list[str] = []
        """Orders the program sent that were not legal (with why), in the order sent."""
        self.silent = 0
        """Decisions the program did not answer in time or in JSON."""
        self.failures: list[str] = []
        """Why each of those decisions had no answer, in order ("bot X answered too slowly: ...")."""
        self._buffer = b""
        """Bytes read from the program that no answer has taken yet."""
        self._owed = 0
        """Answer lines still to come for requests already given up on: skipped, not taken as answers."""
        self._ended = ""
        """Why dippouch ended the program, if it did (named in each later decision's failure)."""

    def orders(
        self, variant: Variant, position: Position, power: str, rng: random.Random, memory: Memory | None = None
    ) -> list[Order]:
        message, by_text = request(variant, position, power)
        if not by_text:
            return []
        deadline = time.monotonic() + self.timeout
        answer = self._ask(message, deadline)
        if isinstance(answer, str):
            return self._failed(answer)
        raw = answer.get("orders")
        if not isinstance(raw, list):
            return self._failed(f'bot {self.label} answered without an "orders" list')
        limit = order_limit(len(message["legal"]))
        if len(raw) > limit:
            return self._failed(
                f"bot {self.label} answered with {len(raw):,} orders; at most {limit} are read for "
                f"{power}'s {len(message['legal'])} units or sites"
            )
        kind = variant.calendar.kind(position.phase)
        legal = set(by_text.values())
        chosen: list[Order] = []
        for n, item in enumerate(raw):
            text = str(item)
            if len(text) > MAX_ORDER_LENGTH:
                self.dropped.append(
                    f"{text[:40]!r}...: {len(text):,} characters; an order has at most {MAX_ORDER_LENGTH}"
                )
                continue
            order = by_text.get(text)
            if order is None:
                # Only an order not in the legal lists costs time (a misspelt one, a "did you mean" search),
                # so only then can reading the answer overrun the deadline, which holds for the whole exchange.
                if time.monotonic() > deadline:
                    return self._failed(
                        f"bot {self.label} answered too slowly: its orders were not all read within the limit "
                        f"of {self.timeout:g} s ({n} of {len(raw)} read)"
                    )
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

    def _failed(self, why: str) -> list[Order]:
        """No orders this decision (the power's units hold), and why, recorded."""
        self.silent += 1
        self.failures.append(why)
        return []

    def _ask(self, message: dict[str, Any], deadline: float) -> dict[str, Any] | str:
        """The program's answer to ``message`` as a JSON object, or why there is none by ``deadline``."""
        stdin, stdout = self.proc.stdin, self.proc.stdout
        if stdin is None or stdout is None or self.proc.poll() is not None:
            return self._stopped()
        started = time.monotonic()
        try:
            sent = self._send(json.dumps(message, separators=(",", ":")).encode("utf-8") + b"\n", deadline)
        except OSError:  # a closed pipe: the program has stopped or closed its input
            return f"bot {self.label} has stopped reading its requests"
        if not sent:
            # The program has not read the requests before this one (the pipe is full), or this one is half
            # written: either way the next request could not be read cleanly, so the program is ended.
            self._ended = f"it did not take a request within {self.timeout:g} s"
            self._end()
            return (
                f"bot {self.label} did not take its request within {self.timeout:g} s (it is not reading its "
                "input), so it was ended"
            )
        line = self._answer_line(stdout.fileno(), started, deadline)
        if isinstance(line, str):
            return line
        depth = _nesting(line)
        if depth > MAX_DEPTH:
            return f"bot {self.label} answered with JSON nested {depth:,} levels deep; at most {MAX_DEPTH} are read"
        try:
            data = json.loads(line)
        except (ValueError, RecursionError):  # RecursionError: a guard, should the scan ever undercount
            data = None
        if not isinstance(data, dict):
            shown = line[:60].decode("utf-8", "replace")
            return f"bot {self.label} answered with something other than a JSON object: {shown!r}"
        return data

    def _send(self, data: bytes, deadline: float) -> bool:
        """Write ``data`` to the program's input as the pipe takes it; ``False`` when not all of it is written
        by ``deadline``. A closed pipe raises :class:`OSError`."""
        assert self.proc.stdin is not None
        fd = self.proc.stdin.fileno()
        rest = memoryview(data)
        while rest:
            left = deadline - time.monotonic()
            if left <= 0 or not _ready(fd, select.POLLOUT, left):
                return False
            try:
                rest = rest[os.write(fd, rest) :]
            except BlockingIOError:  # room for less than this piece, which the pipe takes whole or not at all
                time.sleep(min(0.01, left))
        return True

    def _end(self) -> None:
        """End the program and every process it started (its process group): asked to stop (SIGTERM), then
        killed (SIGKILL) if any is still there after :data:`END_GRACE` seconds. A program that exited still
        leaves its children running (a ``sleep 90 &``), so this runs after it too; a group with nobody left in it
        is over at once."""
        group = self.proc.pid
        if not _signal_group(group, signal.SIGTERM):
            self.proc.wait()
            return
        until = time.monotonic() + END_GRACE
        while time.monotonic() < until:
            self.proc.poll()  # the program itself is reaped here; its children by whoever inherited them
            if not _signal_group(group, 0):
                break
            time.sleep(0.02)
        else:
            _signal_group(group, signal.SIGKILL)
        self.proc.wait()

    def _too_long(self) -> str:
        return f"bot {self.label} answered with a line longer than {MAX_LINE:,} bytes"

    def _stopped(self) -> str:
        if self._ended:
            return f"bot {self.label} was ended earlier: {self._ended}"
        code = self.proc.poll()
        return f"bot {self.label} has stopped" + (f" (exit code {code})" if code is not None else "")

    def _answer_line(self, fd: int, started: float, deadline: float) -> bytes | str:
        """The next answer line (without its newline), or why there is none by ``deadline``.

        The deadline is for the whole line: the program's output is read as it comes, never waiting past the
        deadline for the rest of a line. A request given up on still owes its line; that line is skipped
        when it comes, so that the next request is not answered by the one before."""
        while True:
            end = self._buffer.find(b"\n")
            while end >= 0:
                line, self._buffer = self._buffer[:end], self._buffer[end + 1 :]
                if not self._owed:
                    return line if len(line) <= MAX_LINE else self._too_long()
                self._owed -= 1
                end = self._buffer.find(b"\n")
            if self._owed:
                self._buffer = b""  # the rest of a late answer: not kept
            elif len(self._buffer) > MAX_LINE:
                self._buffer = b""
                self._owed += 1  # the rest of this line, when it comes
                return self._too_long()
            left = deadline - time.monotonic()
            ready = [fd] if left > 0 and _ready(fd, select.POLLIN, left) else []
            if not ready:
                waited = time.monotonic() - started
                had = len(self._buffer) if not self._owed else 0
                self._owed += 1
                return (
                    f"bot {self.label} answered too slowly: {waited:.1f} s, limit {self.timeout:g} s "
                    f"({had:,} bytes of its answer had come)"
                )
            chunk = os.read(fd, _CHUNK)
            if not chunk:
                return self._stopped()
            self._buffer += chunk

    def close(self, summary: dict[str, Any] | None = None) -> None:
        """Tell the program the game is over and let it go (it is ended if it does not stop within a second,
        or cannot take the last message within one); what it started and left running is ended with it."""
        try:
            if self.proc.stdin is not None and self.proc.poll() is None:
                end = json.dumps({"type": "end", **(summary or {})}).encode("utf-8") + b"\n"
                self._send(end, time.monotonic() + 1.0)
        except OSError:
            pass
        try:
            if self.proc.stdin is not None:
                self.proc.stdin.close()
        except OSError:
            pass
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=1.0)
        self._end()
