"""The adjudication contract: one phase per JSON request, one JSON response (docs/adjudication-contract.md).

Served by ``dippouch adjudicate`` (JSON Lines through a pipe) and by the web app's ``POST /api/adjudicate``.

Any tool (a test harness, a web service, a bot written in another language) can drive the adjudicator
through a pipe: a request per line in, a response per line out, flushed at once so a conversation works.
A bad request answers ``{"error": "..."}`` on its own line and the stream goes on, because one mistake
in a long batch must not lose the rest.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import replace
from typing import IO, Any

from dippouch.catalog import load_variant, variant_names
from dippouch.core.calendar import PhaseKind
from dippouch.core.errors import DippouchError
from dippouch.core.jsonio import JsonInputError, position_from_json, position_to_json
from dippouch.core.messages import Msg, msg, nmsg, quantity
from dippouch.core.notation import OrderParseError, OrderReader, format_order, parse_order
from dippouch.core.orders import Build, Hold, Order
from dippouch.core.position import Position
from dippouch.core.results import OrderResult
from dippouch.core.variant import Variant

I18N_DOMAIN = "rules"
"""The catalogue of the contract's refusals: the contract's JSON answers keep their English (a program's
interface), other doors say them in their reader's language (dippouch.saying)."""

__all__ = [
    "MAX_ORDER_LENGTH",
    "MAX_ORDER_LINES",
    "MAX_ORDER_TEXT",
    "MAX_REQUEST",
    "MAX_WEB_ORDERS",
    "RequestError",
    "handle_line",
    "handle_request",
    "serve_stream",
]

MAX_REQUEST = 1_000_000
"""Characters in one request line: far above any real phase (a W3K phase with every order is ~10 KB), far
below what would keep the adjudicator busy for seconds."""

MAX_ORDER_LINES = 1_000
"""Orders a power may send in one request (W3K's largest power has a few dozen units)."""

MAX_ORDER_TEXT = 64_000
"""Characters of order text a power may send in one request (the same limit as a game submission)."""

MAX_ORDER_LENGTH = 300
"""Characters in one order: the longest written out in full names is under 150, and a misspelt one costs a
"did you mean" search that grows with its length."""

MAX_WEB_ORDERS = 300
"""Orders in one request over HTTP (``POST /api/adjudicate``), all powers together: every power of W3K with
every unit ordered is well under it; each misspelt order costs milliseconds of searching for what was meant."""


class RequestError(DippouchError):
    """A request that is not in the contract's shape."""


def serve_stream(lines: Iterable[str], out: IO[str]) -> None:
    """Answer each non-blank line as it arrives (the input may be an interactive pipe)."""
    for line in lines:
        if not line.strip():
            continue
        out.write(encode_response(handle_line(line)) + "\n")
        out.flush()


def encode_response(response: dict[str, Any]) -> str:
    """One response as one line of JSON that can always be written as UTF-8.

    Responses echo the caller's text, which may hold a lone surrogate (``"\\ud800"`` in the request's JSON):
    such a line is written with every non-ASCII character escaped, still the same JSON value.
    """
    text = json.dumps(response, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(response, ensure_ascii=True)
    return text


def handle_line(line: str, *, max_orders: int | None = None) -> dict[str, Any]:
    """One request line -> one response object; never raises. ``max_orders``: at most this many orders, all
    powers together (the web's bound; the command line has only :data:`MAX_ORDER_LINES` per power)."""
    if len(line) > MAX_REQUEST:
        return {"error": f"request of {len(line):,} characters; the limit is {MAX_REQUEST:,} (one phase per line)"}
    try:
        request = json.loads(line)
    except json.JSONDecodeError as e:
        return {"error": f"not valid JSON at column {e.colno}: {e.msg}"}
    except RecursionError:
        return {"error": "not accepted: JSON nested too deeply"}
    except ValueError:  # Python refuses integers of more than 4,300 digits
        return {"error": "not accepted: a number in the request has more than 4,300 digits"}
    try:
        return handle_request(request, max_orders=max_orders)
    except (DippouchError, KeyError, ValueError) as e:
        message = e.args[0] if isinstance(e, KeyError) and e.args else str(e)
        return {"error": str(message)}
    except RecursionError:
        return {"error": "not accepted: the request is nested too deeply"}
    except Exception as e:  # the stream must go on whatever happens
        return {"error": f"internal error ({type(e).__name__}); please report this request"}


def handle_request(request: Any, *, max_orders: int | None = None) -> dict[str, Any]:
    """Adjudicate one request object (the contract's shape) and build the response object."""
    if not isinstance(request, Mapping):
        raise RequestError(msg("a request must be a JSON object, not %(found)s", found=type(request).__name__))
    unknown = sorted(set(request) - _KEYS)
    if unknown:
        raise RequestError(
            nmsg(
                "unknown key %(keys)s; a request has %(known)s",
                "unknown keys %(keys)s; a request has %(known)s",
                len(unknown),
                keys=", ".join(map(repr, unknown)),
                known=", ".join(sorted(_KEYS)),
            )
        )
    name = request.get("variant")
    if not isinstance(name, str):
        raise RequestError(msg('a request names its variant: {"variant": "standard", ...}'))
    options = request.get("options") or {}
    if not isinstance(options, Mapping):
        raise RequestError(msg('"options" must be an object of option values'))
    variant = load_variant(known_variant(name), checked_options(options))
    position = position_from_json(variant, request)
    kind = variant.calendar.kind(position.phase)

    submitted = list(_orders(variant, request.get("orders"), kind))
    total = sum(len(texts) for _, texts in submitted)
    if max_orders is not None and total > max_orders:
        raise RequestError(
            msg(
                "%(total)s orders in one request; the limit here is %(most)s (all powers together)",
                total=quantity(total),
                most=quantity(max_orders),
            )
        )
    parsed: dict[str, list[Order]] = {}
    # (power, index in the adjudicator's list or None, input text, parse error)
    slots: list[tuple[str, int | None, str, OrderParseError | None]] = []
    for power, texts in submitted:
        mine = parsed.setdefault(power, [])
        for text in texts:
            try:
                order = parse_order(variant, text, phase_kind=kind)
            except OrderParseError as e:
                slots.append((power, None, text, e))
                continue
            slots.append((power, len(mine), text, None))
            mine.append(order)

    from dippouch.core.adjudicator import adjudicate as run_adjudicator  # the core's heaviest import, on demand

    resolution = run_adjudicator(variant, position, parsed)
    by_index: dict[tuple[str, int], OrderResult] = {}
    automatic: list[OrderResult] = []
    for r in resolution.results:
        if r.index is None or r.automatic:
            automatic.append(r)
        else:
            by_index[(r.power, r.index)] = r

    results: list[dict[str, Any]] = []
    for power, index, text, error in slots:
        if error is not None:
            entry = _unparsed(variant, position, power, text, error)
            # The unit holds: fold the adjudicator's automatic hold for it into this entry.
            for r in automatic:
                if entry["unit"] is not None and r.power == power and _same_unit(variant, position, kind, r, entry):
                    entry["dislodged"], entry["destroyed"] = r.dislodged, r.destroyed
                    automatic.remove(r)
                    break
            results.append(entry)
            continue
        assert index is not None
        got = by_index.pop((power, index), None)
        if got is None:  # the adjudicator gave no result: say so rather than drop the order
            results.append(
                {
                    **_unparsed(variant, position, power, text, None),
                    "order": format_order(variant, parsed[power][index], phase_kind=kind),
                    "reason": "no result from the adjudicator",
                }
            )
            continue
        results.append(_result(variant, position, kind, got, text))
    for r in [*by_index.values(), *automatic]:
        results.append(_result(variant, position, kind, r, None))

    nxt = position_to_json(variant, resolution.next)
    return {"results": results, "next": {"variant": name, **({"options": dict(options)} if options else {}), **nxt}}


def known_variant(name: str) -> str:
    """``name`` if it is a variant this installation lists, else a :class:`RequestError`.

    Checked before anything is opened: a request names a variant, never a file, so no path (absolute, or
    climbing out of the variant folders) reaches the file system, and the answer to an unknown name is the
    same whether or not some file of that name exists somewhere.
    """
    known = variant_names()
    if name in known:
        return name
    if name.lower() in known:
        return name.lower()
    shown = name if len(name) <= 40 else name[:40] + "..."
    close = difflib.get_close_matches(name.lower()[:40], known, n=1)
    if close:
        raise RequestError(
            msg(
                "no variant %(name)s; did you mean %(close)s? Known variants: %(known)s",
                name=repr(shown),
                close=repr(close[0]),
                known=", ".join(known),
            )
        )
    raise RequestError(msg("no variant %(name)s. Known variants: %(known)s", name=repr(shown), known=", ".join(known)))


def checked_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """Option values as the variant files define them: true/false, a number or a short text."""
    out: dict[str, Any] = {}
    for key, value in options.items():
        if not isinstance(value, bool | int | float | str) or (isinstance(value, str) and len(value) > 100):
            raise RequestError(msg("options.%(key)s: must be true/false, a number or a short text", key=str(key)[:40]))
        out[str(key)] = value
    return out


_COMMENT = re.compile(r"(#|//).*$")
_KEYS = frozenset(
    {"variant", "options", "phase", "units", "dislodged", "supply_centers", "home_centers", "state", "orders"}
)


def _orders(variant: Variant, value: Any, kind: PhaseKind) -> Iterator[tuple[str, list[str]]]:
    """``{"England": ["F lon - nth", ...]}``; a power's orders may also be one pasted block of lines."""
    if value is None:
        return
    if not isinstance(value, Mapping):
        raise RequestError(msg('"orders" must be an object: {"England": ["F lon - nth"], ...}'))
    for name, texts in value.items():
        try:
            power = variant.power(str(name)).name
        except KeyError as e:
            said: Msg | str = e.msg if isinstance(e, DippouchError) else str(e.args[0])
            # The name is the client's: a long one is not echoed whole.
            raise JsonInputError(
                f"orders.{str(name)[:40]}", message=said if len(str(said)) <= 300 else str(said)[:300]
            ) from None
        size = len(texts) if isinstance(texts, str) else sum(len(t) for t in texts if isinstance(t, str))
        if size > MAX_ORDER_TEXT or (isinstance(texts, list) and len(texts) > MAX_ORDER_LINES):
            raise JsonInputError(
                f"orders.{name}",
                message=msg(
                    "%(size)s characters of orders; the limit is %(most)s characters and %(lines)d orders",
                    size=quantity(size),
                    most=quantity(MAX_ORDER_TEXT),
                    lines=MAX_ORDER_LINES,
                ),
            )
        if isinstance(texts, str):
            # A pasted block: one order a line; blank lines and # or // comments are skipped.
            texts = [t for t in (_COMMENT.sub("", line).strip() for line in texts.splitlines()) if t]
        if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
            raise JsonInputError(f"orders.{name}", message=msg("must be a list of order texts"))
        for i, t in enumerate(texts):
            if len(t) > MAX_ORDER_LENGTH:
                raise JsonInputError(
                    f"orders.{name}[{i}]",
                    message=msg(
                        "an order of %(size)s characters; the limit is %(most)d (one order an entry)",
                        size=quantity(len(t)),
                        most=MAX_ORDER_LENGTH,
                    ),
                )
        yield power, texts


def _unit_json(variant: Variant, position: Position, kind: PhaseKind, order: Order) -> dict[str, str] | None:
    """The unit an order is about: the unit actually there if any (coast and type as on the board)."""
    loc = order.unit_loc
    if loc is None:
        return None
    gmap = variant.map
    if isinstance(order, Build):
        return {"type": order.kind, "location": gmap.locations[order.loc].abbr}
    prov = gmap.province_of(loc)
    board = position.dislodged if kind == PhaseKind.RETREATS else None
    unit = board[prov].unit if board is not None and prov in board else position.units.get(prov)
    if unit is not None:
        return {"type": unit.kind, "location": gmap.locations[unit.loc].abbr}
    written = getattr(order, "kind", None)
    return {"type": written or "?", "location": gmap.locations[loc].abbr}


def _same_unit(variant: Variant, position: Position, kind: PhaseKind, r: OrderResult, entry: dict[str, Any]) -> bool:
    return isinstance(r.order, Hold) and _unit_json(variant, position, kind, r.order) == entry["unit"]


def _with_kind(order: Order, unit: dict[str, str] | None) -> Order:
    """Fill in a unit type the player left out, so the canonical order reads ``A par - bur``."""
    if unit is not None and getattr(order, "kind", "") is None and unit["type"] != "?":
        try:
            return replace(order, kind=unit["type"])  # type: ignore[type-var]
        except TypeError:
            return order
    return order


def _result(variant: Variant, position: Position, kind: PhaseKind, r: OrderResult, text: str | None) -> dict[str, Any]:
    unit = _unit_json(variant, position, kind, r.order)
    return {
        "power": r.power,
        "input": text,
        "order": format_order(variant, _with_kind(r.order, unit), phase_kind=kind),
        "unit": unit,
        "result": str(r.result),
        "dislodged": r.dislodged,
        "destroyed": r.destroyed,
        "automatic": r.automatic,
        "reason": r.reason,
    }


def _unparsed(
    variant: Variant, position: Position, power: str, text: str, error: OrderParseError | None
) -> dict[str, Any]:
    """An order that could not be read: illegal, with the reading error; the unit (if any) holds."""
    unit: dict[str, str] | None = None
    try:
        reader = OrderReader(variant, text, None)
        reader.accept(("remove", "disband", "build"))
        _kind, loc = reader.unit()
        found = position.units.get(variant.map.province_of(loc))
        if found is not None:
            unit = {"type": found.kind, "location": variant.map.locations[found.loc].abbr}
    except OrderParseError:
        pass
    return {
        "power": power,
        "input": text,
        "order": None,
        "unit": unit,
        "result": "illegal",
        "dislodged": False,
        "destroyed": False,
        "automatic": False,
        "reason": str(error) if error is not None else "",
    }
