"""A power's own page: its units, the legal orders of each (for pick lists and click entry), the versions it
sent, its orders drawn on the map for its eyes only; submitting orders and voting for a draw; and the line check
as the page shows it while orders are typed (:func:`check_view`: each line's verdict by the very function a
submission runs on arrival, :func:`dippouch.game.check_orders`, the unit or site each line is about, and what the
orders leave out, in full names).

A stand-in (:data:`~dippouch.store.access.STAND_IN`) opens this page and orders the seat while its player is
away (:func:`require_seat`), and sees what ordering needs from now on: the board, the units and their legal
orders, whether the seat is ready. What the seat's player sealed stays theirs: the versions (their text and
lines), the orders drawn from them, what they leave unordered, and the player's draw vote (which only the player
casts: :func:`vote`)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from urllib.parse import quote

from dippouch.core.calendar import PhaseKind
from dippouch.core.errors import DippouchError
from dippouch.core.legal_orders import legal_orders_given
from dippouch.core.messages import Msg, msg
from dippouch.core.notation import OrderParseError, format_order, format_place, parse_order, parse_unit
from dippouch.core.orders import Move, Order, Retreat
from dippouch.core.position import Dislodged, Position
from dippouch.core.sight import sight_of, veil
from dippouch.core.variant import Variant
from dippouch.game import (
    TYPED,
    GameSettings,
    LineCheck,
    adjustment_delta,
    check_orders,
    position_from_data,
    stored_msg,
    unordered,
)
from dippouch.i18n import translations
from dippouch.names import board_unit, kind_word, place_list
from dippouch.names import order_text as order_words
from dippouch.play import votes
from dippouch.play.orders import send_orders
from dippouch.play.votes import Decided, Voted, describe
from dippouch.saying import say
from dippouch.store import history as store_history
from dippouch.store import openings as store_openings
from dippouch.store import page_cache as store_pages
from dippouch.store import rows as store_rows
from dippouch.store.people import persons as people
from dippouch.store.votes import creator_seated
from dippouch.store.web_queries import game_phase
from dippouch.web.http.deps import OrderingSeat
from dippouch.web.http.security import Forbidden, Viewer
from dippouch.web.http.service import Web
from dippouch.web.views import page_cache
from dippouch.web.views.anonymity import seen_powers, takes_part
from dippouch.web.views.answers.games import LineVerdict
from dippouch.web.views.answers.play import PlayerView, Receipt
from dippouch.web.views.fog import fog_powers, fog_tag, fogged, fogged_record, sight_key
from dippouch.web.views.games import board_url, game_map, game_view, kind_name, phase_map, record
from dippouch.web.views.maps import draft_svg, map_available

__all__ = [
    "ballot",
    "check_lines",
    "check_view",
    "checked_position",
    "checked_view",
    "earlier_turns",
    "last_turn",
    "order_subject",
    "player_model",
    "player_view",
    "proposals_view",
    "propose",
    "require_seat",
    "seat_page",
    "shared_part",
    "submit",
    "vote",
    "withdraw",
]

I18N_DOMAIN = "games"
"""The catalogue of the page's own words for the legal orders' units (a build site, a unit handed over)."""


def require_seat(web: Web, name: str, power: str, viewer: Viewer) -> tuple[Variant, str, bool]:
    """:meth:`Web.require_seat`: the player, or the seat's stand-in while the player is away."""
    return web.require_seat(name, power, viewer)


def player_model(web: Web, name: str, power: str, viewer: Viewer, lang: str = "en") -> PlayerView:
    """:func:`player_view` as the page and the API both read it: the one model, checked whole (a field the view
    gains and the model does not name is refused here, not sent unseen). ``lang`` is the page's language, in
    which the legal orders' units are named (the API's answer names them in English)."""
    return seat_page(web, name, power, viewer, lang)[0]


def seat_page(web: Web, name: str, power: str, viewer: Viewer, lang: str = "en") -> tuple[PlayerView, dict[str, Any]]:
    """:func:`player_model` and the shared part it was made from (:func:`shared_part`), whose people the
    page's press panel names without asking again."""
    shared: dict[str, Any] = {}
    view = player_view(web, name, power, viewer, lang, shared=shared)
    return PlayerView.model_validate(view), shared


def shared_part(web: Web, name: str, viewer: Viewer, lang: str = "en") -> dict[str, Any]:
    """What every seat's page of the game shows alike (the game's view and board, the last turns' orders and
    results, the proposals with every ballot, who plays which seat, whether the game has an opening), made once
    per state of the game, language and what the reader may see of names, and kept for every web process
    (:mod:`dippouch.web.views.page_cache`): a player's page adds only its own part (its orders, its letters, its
    seat's ballots) on top. Each seat's page was made afresh before: ten milliseconds of CPU and some thirty
    statements a visit, though it changes only when the game does. The seat was checked by the caller."""
    seen = seen_powers(web, name, viewer)
    member = takes_part(viewer, name)
    sight = "all" if seen is None else hashlib.sha256("\n".join(sorted(seen)).encode()).hexdigest()[:16]
    sight = sight_key(sight, fog_powers(web, name, viewer))
    kind = f"play-{'member' if member else 'reader'}-{sight}"
    now = page_cache.required(web, name, kind, lang)

    def make() -> str:
        return json.dumps(_made_shared(web, name, viewer, lang, now.reading), ensure_ascii=False, separators=(",", ":"))

    building = web.page_lock(name)
    waited = page_cache.hold(building)
    try:
        body = page_cache.made(web, name, kind, lang, now, make, waited=waited)
    finally:
        building.release()
    got: dict[str, Any] = json.loads(body)
    if _expired(got.get("proposals"), web.now()):
        # A proposal's time ran out since the part was made, which no event marks: its state is read now.
        got["proposals"] = _public_proposals(web, name, got["game"], lang)
    return got


def _made_shared(web: Web, name: str, viewer: Viewer, lang: str, reading: tuple[str, Any]) -> dict[str, Any]:
    # Made of the game's state as the part's lookup read it (``reading``), under which the part is kept.
    game = game_view(web, name, viewer, None if lang == "en" else lang, reading=reading)
    v = web.variant_of(name)
    # The turns as every seat reads them; each seat's own orders are put first when its page is made.
    sight = fog_powers(web, name, viewer)
    last = last_turn(web, name, v, "", game, sight=sight)
    return {
        "game": game,
        "last_turn": last,
        "earlier_turns": earlier_turns(web, name, v, "", game, last, sight=sight),
        "proposals": _public_proposals(web, name, game, lang),
        "people": people.seat_people(web.read, name),
        "opening": store_openings.opening(web.read, name, scores=False) is not None,
    }


def _for_seat(turn: Mapping[str, Any] | None, power: str, must: list[dict[str, Any]]) -> dict[str, Any] | None:
    """A shared turn as ``power``'s page shows it: its own orders first, and its units that must retreat."""
    if turn is None:
        return None
    return {**turn, "results": sorted(turn["results"], key=lambda r: r["power"] != power), "must_retreat": must}


def player_view(
    web: Web, name: str, power: str, viewer: Viewer, lang: str = "en", *, shared: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The seat's page as data: the shared part (:func:`shared_part`) and the seat's own on top. ``shared``,
    when given, is filled with the shared part, for the caller to show more of it (the press panel's people)."""
    v, power, stand_in = require_seat(web, name, power, viewer)
    part = shared_part(web, name, viewer, lang)
    if shared is not None:
        shared.update(part)
    # The board in words and the phases' names in the page's language (the API's answer keeps the English).
    game = part["game"]
    out: dict[str, Any] = {"game": game, "power": power, "variant": v.name}
    me = next(p for p in game["powers"] if p["power"] == power)
    if game.get("draw") and game["draw"]["secret"] and not stand_in:
        # The voter sees their own ballot on the open draw, as it stands now (the game page shows others' as
        # processed); a ballot on a draw that lapsed with its phase is no vote now.
        public = part["proposals"]
        draw = next((e for e in (public["entries"] if public else ()) if _open_draw_of_all(e)), None)
        me = {**me, "draw_vote": bool(draw is not None and draw["ballots"].get(power) is True)}
    out["me"] = me
    # Leaving is the seat's person's, not a stand-in's or a key's: offered where they play, as the opening page
    # offers it (the players' trial found it nowhere once the game ran).
    # A game its coordinator runs has no replacement pool: its coordinator hands a seat on (the desk's Replace).
    out["resignable"] = (
        not stand_in
        and viewer.person_id is not None
        and game.get("state") not in ("finished", None)
        and part["opening"]
        and any(s.game == name and s.power == power for s in people.seats_of(web.read, viewer.person_id))
    )
    out["proposals"] = _seat_proposals(part["proposals"], power, stand_in)
    out["colour"] = me["colour"]
    out["power_index"] = v.power_names.index(power)
    # The page carries its picture inline (click entry and the keyboard find provinces and units in the page),
    # drawing the board's fixed parts by reference to the board's file, which the browser keeps: each visit
    # sends the phase's colours, units and orders only.
    board = board_url(web, name) if game["map_url"] is not None else None
    if game["phase_id"] is None:
        out["last_turn"] = _for_seat(part["last_turn"], power, [])
        out["earlier_turns"] = [_for_seat(t, power, []) for t in part["earlier_turns"]]
        out["game"] = {**game, "map_svg": game_map(web, name, viewer, board, lang)}
        out.update(
            open=False,
            units=[],
            legal=[],
            versions=[],
            latest_text="",
            must_act=False,
            example="",
            unordered=no_left_out(),
        )
        return out
    pid, _, pos, pname, kind = web.open_phase_position(name)
    if shared is not None:
        # The open phase's board as the page's press panel reads it (who is out of the game), from the position
        # read here: the panel does not ask for the open phase again.
        out_of_game = sorted(p for p in v.power_names if not pos.units_of(p) and not pos.centres_of(p))
        shared["open_board"] = {"kind": kind, "out": out_of_game}
    must = (
        _dislodged(v, (d for d in pos.dislodged.values() if d.unit.power == power))
        if kind == PhaseKind.RETREATS.value and part["last_turn"] is not None
        else []
    )
    out["last_turn"] = _for_seat(part["last_turn"], power, must)
    out["earlier_turns"] = [_for_seat(t, power, []) for t in part["earlier_turns"]]
    m = v.map
    units = _units_of(v, pos, power, kind)
    legal: list[dict[str, Any]] = []
    example: list[str] = []
    # The seat's own versions in one query; a variant whose powers order each other's units reads every seat's.
    if v.rules.get("proxy_orders"):
        rec = store_history.phase_record(web.read, name, phase_id=pid)
        subs, stored_position = rec["submissions"], rec["position"]
    else:
        subs, stored_position = store_pages.seat_submissions(web.read, pid, power)
    if me["must_act"]:
        # Where the rules let a power order another's unit (W3K's proxy orders), the lists count what the other
        # powers have sent so far: a unit handed to this power is offered with its orders. Only this power's
        # own legal orders come out of it; the others' orders are not shown.
        sent = _sent_by_others(v, subs, power, kind) if v.rules.get("proxy_orders") else {}
        table = legal_orders_given(v, pos, power, sent)
        fog = fog_powers(web, name, viewer)
        if fog is not None:
            table = _within_sight(v, pos, fog, table)
        example = _example_orders(v, table, kind)
        for loc, orders in sorted(table.items(), key=lambda kv: m.locations[kv[0]].abbr):
            label = _unit_label(v, pos, power, loc, kind, lang)
            legal.append(
                {
                    "loc": m.locations[loc].abbr,
                    "province": m.provinces[m.province_of(loc)].abbr,
                    "label": label,
                    "orders": [_order_entry(v, o, kind, format_order) for o in orders],
                }
            )
    mine = [sub for sub in subs if sub["power"] == power]
    # The version a new one would be typed over, the stand-in's too (whose page shows none of the player's).
    latest_version = max((int(sub["version"]) for sub in mine), default=0)
    standing = [sub for sub in mine if sub.get("stands", True) and not sub["late"]]
    for sub in mine:
        sub["counts"] = bool(standing) and sub is standing[-1]
    ready = bool(standing and standing[-1]["ready"])
    if stand_in:
        # No version's text, lines or map: the seal is the player's, and the stand-in's own versions are not
        # told apart from theirs (a submission does not record who sent it). That the seat has sent orders,
        # and whether they are ready, the game page shows anyone.
        mine, standing = [], []
    # The player's own standing orders drawn on the map (theirs only: the others' stay sealed).
    own = standing[-1] if standing else None
    drafts = [ln["order"] for ln in own["lines"] if ln.get("order") and not ln.get("error")] if own else []
    # Never cached where another viewer could be served it: the draft's key names the power and version, and
    # only this page asks for it.
    svg: str | None = None
    if drafts and own is not None:
        fog = fog_powers(web, name, viewer)
        ph_rec = fogged_record(
            web, name, {"game": name, "name": pname, "status": "open", "position": stored_position}, fog
        )
        key = (name, pid, "draft", power, own["version"], fog_tag(fog))
        svg = web.maps.phase_svg(v, key, ph_rec, draft={power: drafts}, board=board, lang=lang)
    if svg is None and game["map_url"] is not None:
        svg = phase_map(web, name, game["map_phase"][0], game["map_phase"][1], viewer, board, lang)
    out["game"] = game = {**game, "map_svg": svg}
    out.update(
        open=True,
        phase_id=pid,
        phase=pname,
        kind=kind,
        units=units,
        legal=legal,
        versions=[{**sub, "lines": lines_said(sub["lines"], lang)} for sub in reversed(mine)],
        latest_text=((standing[-1] if standing else mine[-1])["text"] or "") if mine else "",
        latest_version=latest_version,
        ready=ready,
        must_act=me["must_act"],
        example="\n".join(example),
        unordered=left_out(v, pos, power, own["lines"] if own else [], lang)
        if me["must_act"] and not stand_in
        else no_left_out(),
        # Builds (positive) or removals owed: a Winter's task, which the map alone does not tell.
        adjust=adjustment_delta(v, pos, power) if kind == PhaseKind.ADJUSTMENTS.value else 0,
    )
    return out


def _within_sight(v: Variant, pos: Position, powers: frozenset[str], table: Mapping[int, Any]) -> dict[int, Any]:
    """Legal orders without those that name a unit the fog hides (a support or convoy of a unit out of sight
    would tell the player it is there)."""
    seen = sight_of(v, pos, powers).provinces
    m = v.map

    def shown(o: Any) -> bool:
        target = getattr(o, "target", None)
        return not isinstance(target, int) or m.province_of(target) in seen

    return {loc: [o for o in orders if shown(o)] for loc, orders in table.items()}


@dataclass
class _Turns:
    """The last turns drawn up so far (per app: :meth:`Web.kept`): the same for every seat of a game, read
    on each visit of a player's page until the next phase is processed."""

    turns: dict[tuple[Any, ...], dict[str, Any]] = field(default_factory=dict)


def last_turn(
    web: Web,
    name: str,
    v: Variant,
    power: str,
    game: Mapping[str, Any],
    retreating: Position | None = None,
    *,
    sight: frozenset[str] | None = None,
) -> dict[str, Any] | None:
    """The game's latest processed phase for ``power``'s page (None before one is): every power's orders with
    their results, the units dislodged, and the map's and the report's addresses. Exactly what the phase's
    public page shows (orders are public once processed, and no player is named), so a stand-in and an
    anonymous game's player read it alike. ``retreating``: the open phase's position when it is a retreat
    phase, whose dislodged units of ``power`` must retreat now."""
    pid = game.get("last_processed_id")
    if pid is None:
        return None
    processed_at = next((h["processed_at"] for h in game.get("history", []) if h["id"] == pid), None)
    # The game's view changes with every phase processed or rolled back: the phase and when it was processed
    # name one turn for good.
    key = (name, pid, processed_at, v.name, fog_tag(sight))
    kept = web.kept(__name__, _Turns).turns
    turn = kept.get(key)
    if turn is None:
        turn = _turn(web, name, v, pid, sight)
        if turn is None:
            return None
        with web.lock:
            if len(kept) > 2000:
                kept.clear()
            kept[key] = turn
    # The seat's own orders first (the rest as the phase's page sorts them): what a player looks for first.
    results = sorted(turn["results"], key=lambda r: r["power"] != power)
    must = []
    if retreating is not None:
        must = _dislodged(v, (d for d in retreating.dislodged.values() if d.unit.power == power))
    return {**turn, "results": results, "must_retreat": must}


def earlier_turns(
    web: Web,
    name: str,
    v: Variant,
    power: str,
    game: Mapping[str, Any],
    latest: Mapping[str, Any] | None,
    *,
    sight: frozenset[str] | None = None,
) -> list[dict[str, Any]]:
    """The phases of the game's last turn processed before ``latest`` (:func:`last_turn`'s), newest first: back
    to the turn's movement phase, whose orders the player gave (the players' trial: a practice year ended on
    "Last turn: Winter 1908 Adjustments" without the Fall's moves and retreats). Each as :func:`last_turn` gives
    it, the seat's own orders first; none when the latest is itself a movement phase."""
    if latest is None or latest["kind"] == PhaseKind.MOVEMENT.value:
        return []
    processed = [h for h in game.get("history", []) if h.get("status") == "processed" and h["id"] != latest["phase_id"]]
    out: list[dict[str, Any]] = []
    kept = web.kept(__name__, _Turns).turns
    for h in reversed(processed):
        key = (name, h["id"], h["processed_at"], v.name, fog_tag(sight))
        turn = kept.get(key)
        if turn is None:
            turn = _turn(web, name, v, h["id"], sight)
            if turn is None:
                break
            with web.lock:
                if len(kept) > 2000:
                    kept.clear()
                kept[key] = turn
        out.append({**turn, "results": sorted(turn["results"], key=lambda r: r["power"] != power), "must_retreat": []})
        if turn["kind"] == PhaseKind.MOVEMENT.value or len(out) >= 3:
            break
    return out


def _turn(web: Web, name: str, v: Variant, pid: int, sight: frozenset[str] | None = None) -> dict[str, Any] | None:
    """A processed phase's orders and results as a seat's page shows them; under fog of war (``sight``: the
    reader's powers) only what they saw of it (:mod:`dippouch.render.fog`)."""
    h = game_phase(web.read, name, pid)
    if h is None or h.next_position is None:  # rolled back since the game's view was read
        return None
    kind = h.kind
    seen = fogged_record(web, name, record(name, h), sight)
    results = []
    for r in sorted(seen["results"] or [], key=lambda r: str(r.get("power", ""))):
        text = r.get("order")
        results.append(
            {
                "power": str(r.get("power", "")),
                # An order that could not be read is kept as the player wrote it (the phase's page shows it so).
                "order": order_words(v, str(text), kind) if text else str(r.get("input") or ""),
                "result": str(r.get("result", "")),
                "dislodged": bool(r.get("dislodged")),
                "destroyed": bool(r.get("destroyed")),
                "automatic": bool(r.get("automatic")),
                **_reason_said(stored_msg(r.get("why"), r.get("reason")), "en"),
            }
        )
    after = position_from_data(v, seen["next_position"])
    base = f"/games/{quote(name, safe='')}/phases/{h.id}"
    return {
        "phase_id": h.id,
        "phase": h.name,
        "kind": kind,
        "processed_at": h.processed_at.isoformat() if h.processed_at else None,
        "report_url": base,
        "map_url": (f"{base}/map-orders.svg" + (f"?sight={fog_tag(sight)}" if sight is not None else ""))
        if map_available(v)
        else None,
        "results": results,
        # Units dislodged by a movement phase wait in the next position with where they may go.
        "dislodged": _dislodged(v, after.dislodged.values()) if kind == PhaseKind.MOVEMENT.value else [],
    }


def _dislodged(v: Variant, units: Iterable[Dislodged]) -> list[dict[str, Any]]:
    m = v.map
    return [
        {
            "power": d.unit.power,
            "unit": f"{kind_name(d.unit.kind)} {m.locations[d.unit.loc].name}",
            "loc": m.locations[d.unit.loc].abbr,
            "retreats": place_list(v, sorted(d.retreats)),
        }
        for d in sorted(units, key=lambda d: (d.unit.power, m.locations[d.unit.loc].name))
    ]


def submit(
    web: Web,
    seat: OrderingSeat,
    text: str,
    ready: bool,
    *,
    phase: str | None = None,
    based_on: int | None = None,
    lang: str = "en",
) -> Receipt:
    """``phase``: the phase the orders were written for; processed meanwhile, they are refused (GameError
    saying so and naming the open phase), never moved to the next phase unseen. The seat was checked by
    :data:`~dippouch.web.http.deps.SeatDep`: its player or its stand-in orders it. ``based_on``: the version the
    orders were typed over (the page's :attr:`PlayerView.latest_version`), refused if another came since. The receipt's words (the lines'
    verdicts, what is left without an order, why it is not ready) in ``lang``: the page's, English for the API."""
    # The arrival time is the store's, read once this submission holds the power's lock (a time read
    # here, before queueing for it, could make a later version older than an earlier one).
    given = web.now() if web.clock_given else None
    sent = send_orders(
        web.store,
        seat.game,
        seat.power,
        text,
        now=given,
        ready=ready,
        source="web",
        phase=phase or None,
        based_on=based_on,
        bounds=TYPED,
    )
    res = sent.receipt
    web.touched(seat.game, structural=bool(sent.processed))
    # What the standing version leaves without an order, as the store's receipt counts it: not told to a
    # stand-in whose version did not replace the player's (it would describe the player's sealed orders).
    left = left_out_of(res.game_variant or seat.variant, res.unordered if res.stands or not seat.stand_in else [], lang)
    return Receipt(
        phase=res.phase,
        power=res.power,
        version=res.version,
        late=res.late,
        ready=res.ready,
        lines=[LineVerdict.model_validate(ln) for ln in lines_said([ln.to_data() for ln in res.lines], lang)],
        stands=res.stands,
        standing=res.standing,
        ready_refused=say(res.ready_refused, lang) if res.ready_refused else None,
        accepted=sent.accepted,
        rejected=sent.rejected,
        processed=sent.processed,
        **left,
    )


def vote(web: Web, name: str, power: str, draw: bool, viewer: Viewer) -> Voted:
    """A draw vote is the player's own: a stand-in orders the seat but does not end the game for them."""
    _, power, stand_in = require_seat(web, name, power, viewer)
    if stand_in:
        raise Forbidden(
            msg(
                "a draw vote is %(power)s's player's own: as their stand-in you order the seat while they are away, "
                "but do not vote for them",
                power=power,
            )
        )
    voted = votes.vote(web.store, name, power, draw, now=web.now())
    web.touched(name, structural=voted.ending is not None)
    return voted


def _sent_by_others(v: Variant, submissions: list[dict[str, Any]], power: str, kind: str) -> dict[str, list[Order]]:
    """Each other power's standing orders of the open phase (the accepted lines of its last version that
    stands, in the order of the record's submissions, oldest first)."""
    out: dict[str, list[Order]] = {}
    for sub in submissions:
        if sub["power"] == power or not sub.get("stands", True) or sub["late"]:
            continue
        orders: list[Order] = []
        for ln in sub["lines"]:
            if ln.get("order") and not ln.get("error"):
                try:
                    orders.append(parse_order(v, ln["order"], phase_kind=kind))
                except DippouchError:
                    continue  # a line the store accepted reads again; one that does not decides nothing
        out[sub["power"]] = orders
    return out


def _unit_label(v: Variant, pos: Position, power: str, loc: int, kind: str, lang: str = "en") -> str:
    """What a unit's (or a build site's) pick list is called, and click entry calls it: ``Fleet Brest``, ``Build
    site Paris``, a unit another power hands over ``Army London (Crown's, handed to Montrose this season)``, in
    ``lang`` (the place and power names as the variant writes them)."""
    m = v.map
    _ = translations(lang).gettext
    prov = m.province_of(loc)
    if kind == PhaseKind.ADJUSTMENTS.value and prov not in pos.units:
        return _("Build site %(place)s") % {"place": m.provinces[prov].name}
    unit = (
        pos.dislodged[prov].unit if kind == PhaseKind.RETREATS.value and prov in pos.dislodged else pos.units.get(prov)
    )
    if unit is None:
        return m.locations[loc].name
    if lang == "en":
        label = f"{kind_name(unit.kind)} {m.locations[unit.loc].name}"
    else:
        label = board_unit(v, unit.kind, unit.loc, lang)
    if unit.power != power:
        return _("%(unit)s (%(owner)s's, handed to %(power)s this season)") % {
            "unit": label,
            "owner": unit.power,
            "power": power,
        }
    return label


def _order_entry(v: Variant, o: Any, kind: str, fmt: Callable[..., str]) -> dict[str, Any]:
    """A legal order as the click-entry script needs it: its text, kind, and the provinces it names."""
    m = v.map

    def prov(loc: int | None) -> str | None:
        return None if loc is None else m.provinces[m.province_of(loc)].abbr

    entry: dict[str, Any] = {
        "text": fmt(v, o, phase_kind=kind),
        "type": type(o).__name__.lower(),
        "subject": order_subject(v, o),
        "dest": prov(getattr(o, "dest", None)),
        "target": prov(getattr(o, "target", None)),
        "via": bool(getattr(o, "via_convoy", False)),
    }
    if isinstance(o, Move | Retreat) and m.locations[o.dest].coast is not None:
        # A click on a province cannot say which coast: the page offers the coasts by these names.
        entry["coast"] = m.locations[o.dest].name
    return entry


_EXAMPLE_KINDS = {
    PhaseKind.MOVEMENT.value: ("Move", "Support", "Hold"),
    PhaseKind.RETREATS.value: ("Retreat", "Disband"),
    PhaseKind.ADJUSTMENTS.value: ("Build", "Disband", "Waive"),
}


def _example_orders(v: Variant, table: Mapping[int, Any], kind: str, most: int = 3) -> list[str]:
    """A few real orders of this power now, for the order box's example: one per unit or site (the first
    legal order of the kind that phase is about: a move, a retreat, a build or a removal), in full names."""
    prefer = _EXAMPLE_KINDS.get(kind, ())
    out: list[str] = []
    # Each example goes somewhere of its own: two units sent to one province would bounce (the players' trial:
    # England's example sent Edinburgh's fleet and Liverpool's army both to Clyde).
    aimed: set[int] = set()

    def aim(o: Any) -> int | None:
        dest = getattr(o, "dest", None)
        return None if dest is None else v.map.province_of(dest)

    for _, orders in sorted(table.items(), key=lambda kv: v.map.locations[kv[0]].abbr):
        plain = [o for o in orders if not getattr(o, "via_convoy", False)]
        for wanted in prefer:
            got = next((o for o in plain if type(o).__name__ == wanted and aim(o) not in aimed), None)
            if got is not None:
                if (target := aim(got)) is not None:
                    aimed.add(target)
                out.append(format_order(v, got, phase_kind=kind, full=True))
                break
        if len(out) >= most:
            break
    return out


def _units_of(v: Variant, pos: Position, power: str, kind: str) -> list[dict[str, str]]:
    m = v.map
    units = pos.units_of(power)
    out = [
        {
            "unit": f"{u.kind} {m.locations[u.loc].abbr}",
            "name": f"{kind_name(u.kind)} {m.locations[u.loc].name}",
            "loc": m.locations[u.loc].abbr,
        }
        for u in sorted(units, key=lambda u: m.locations[u.loc].abbr)
    ]
    if kind == PhaseKind.RETREATS.value:
        for d in pos.dislodged.values():
            if d.unit.power == power:
                u = d.unit
                out.append(
                    {
                        "unit": f"{u.kind} {m.locations[u.loc].abbr}",
                        "name": f"{kind_name(u.kind)} {m.locations[u.loc].name} (dislodged)",
                        "loc": m.locations[u.loc].abbr,
                    }
                )
    return out


# The line check while orders are typed


def check_lines(web: Web, name: str, power: str, text: str, viewer: Viewer) -> list[LineCheck]:
    """The arrival check, without recording anything: the very verdicts a submission would get (for the seat's
    player or its stand-in, who both may order it)."""
    _, power, _ = web.require_seat(name, power, viewer)
    _, v, pos, _, _ = web.open_phase_position(name)
    return check_orders(v, checked_position(web, name, v, pos, power), power, text, TYPED)


def check_view(web: Web, name: str, power: str, text: str, viewer: Viewer, lang: str = "en") -> dict[str, Any]:
    """The line check as the order page shows it: each line's verdict (and note) with its subject (see
    :func:`order_subject`), and what happens to what the orders leave out (units without an order); the
    verdicts, notes and units in ``lang`` (the page's language: the API's answer is in English unless the page
    asks for its own)."""
    _, power, _ = web.require_seat(name, power, viewer)
    _, v, pos, _, _ = web.open_phase_position(name)
    return checked_view(v, checked_position(web, name, v, pos, power), power, text, lang)


def checked_position(web: Web, name: str, v: Variant, pos: Position, power: str) -> Position:
    """The position the arrival check reads, as the submission's own check does (:func:`seen_position`): in a
    running fog-of-war game, only what ``power`` sees."""
    if not fogged(web, name):
        return pos
    return veil(pos, sight_of(v, pos, (power,)))


def checked_view(v: Variant, pos: Position, power: str, text: str, lang: str = "en") -> dict[str, Any]:
    """:func:`check_view` once the seat and its board are known: a pure function of them, which the web runs in
    its work pool's processes (dippouch.web.http.pool)."""
    kind = v.calendar.kind(pos.phase)
    lines = check_orders(v, pos, power, text, TYPED)
    out = []
    for ln in lines:
        data = ln.to_data()
        # The canonical text parses back to the order (the arrival check wrote it); a line that could
        # not be read has none, and no subject.
        data["subject"] = None if ln.order is None else order_subject(v, parse_order(v, ln.order, phase_kind=kind))
        # The order as the map draws it, for the page to show while it is typed (the page only places it).
        data["draft"] = None if ln.order is None or ln.error else draft_svg(v, pos, power, ln.order)
        out.append(data)
    # ``unordered``: the power's units these lines give no order (full names); ``unordered_notes``: what
    # happens to them, and builds or removals not ordered.
    return {"lines": lines_said(out, lang), **left_out_of(v, unordered(v, pos, power, lines), lang)}


def lines_said(lines: list[dict[str, Any]], lang: str) -> list[dict[str, Any]]:
    """Line checks as data (:meth:`dippouch.game.LineCheck.to_data`) with their refusals and notes said in
    ``lang``, and the refusal's message id and values (``code``, ``params``) for programs."""
    out = []
    for ln in lines:
        error = stored_msg(ln.get("error_msg"), ln.get("error"))
        note = stored_msg(ln.get("note_msg"), ln.get("note"))
        said = {
            **ln,
            "error": None if error is None else say(error, lang),
            "note": None if note is None else say(note, lang),
            "code": None if error is None else error.code,
            "params": None if error is None else error.to_data().get("args", {}),
        }
        if note is None:
            said.pop("note")
        out.append(said)
    return out


def _reason_said(why: Msg | None, lang: str) -> dict[str, Any]:
    """A result's reason in ``lang``, with its message id and values for programs."""
    if why is None:
        return {"reason": "", "code": None, "params": None}
    return {"reason": say(why, lang), "code": why.code, "params": why.to_data().get("args", {})}


def order_subject(v: Variant, order: Order) -> str | None:
    """What an order is *about*, the key by which a newly picked order replaces a line in the order box: the
    province of the unit it orders (or of the site it builds on), as the adjudicator matches units by
    province; ``None`` for orders about no unit or site (waive, W3K supply transfers), which each stand alone.
    The pick lists and the line check both answer with it, so the page never guesses it from the text."""
    loc = order.unit_loc
    return None if loc is None else v.map.provinces[v.map.province_of(loc)].abbr


def _full_unit(v: Variant, text: str, lang: str = "en") -> str:
    """``A par`` -> ``Army Paris`` (a variant's own kinds by their name: ``Defensive army ...``), the kind in
    ``lang`` (``Armee Paris``)."""
    try:
        kind, loc = parse_unit(v, text)
    except OrderParseError:
        return text
    if not kind:
        return text
    return f"{kind_word(v, kind, lang).capitalize()} {format_place(v, loc, full=True)}"


def no_left_out() -> dict[str, Any]:
    return {"units": [], "notes": []}


def left_out_of(v: Variant, pairs: Any, lang: str = "en") -> dict[str, Any]:
    """The game layer's ``unordered`` pairs (units in canonical text, what happens to them) for people:
    ``unordered``, the units by full name, and ``unordered_notes``, one sentence per group, in ``lang``."""
    _ = translations(lang).gettext
    units: list[str] = []
    notes: list[str] = []
    for group, what in pairs or []:
        names = [_full_unit(v, u, lang) for u in group]
        what = say(what, lang)
        units += names
        if names:
            notes.append(_("%(units)s: %(what)s") % {"units": ", ".join(names), "what": what})
        else:
            notes.append(what[0].upper() + what[1:])
    return {"unordered": units, "unordered_notes": notes}


def left_out(v: Variant, pos: Position, power: str, lines: Any, lang: str = "en") -> dict[str, Any]:
    """What ``lines`` (line checks as data) leave without an order, by :func:`dippouch.game.unordered`:
    ``{"units": [...], "notes": [...]}``, in ``lang``."""
    got = left_out_of(v, unordered(v, pos, power, [LineCheck.from_data(d) for d in lines]), lang)
    return {"units": got["unordered"], "notes": got["unordered_notes"]}


# --------------------------------------------------------------------------------------------------
# The table's proposals (templates/_proposals.html; issue 56)

_ALWAYS_KINDS = ("pause", "extend", "draw", "concede", "cancel")
_PLAYER_RUN_KINDS = ("process", "rollback", "replace", "unseal")


def proposals_view(
    web: Web, name: str, power: str, stand_in: bool, game: Mapping[str, Any], lang: str = "en"
) -> dict[str, Any] | None:
    """The proposals part of the player's page (``_proposals.html``) and of the API's player view: the game's
    rule, what this seat may propose, and the open and recent proposals with the ballots as the game shows
    them: by power in an open game; as counts in a secret-ballot or anonymous one (the seat's own ballot
    always shown to it). A stand-in sees them and may not vote: the vote is the player's own."""
    return _seat_proposals(_public_proposals(web, name, game, lang), power, stand_in)


def _public_proposals(web: Web, name: str, game: Mapping[str, Any], lang: str) -> dict[str, Any] | None:
    """The proposals as the shared part keeps them (:func:`shared_part`): every ballot by power, which no page
    shows as it is (:func:`_seat_proposals` makes each seat's view of them); None where none can be made."""
    if game.get("state") in ("finished", None) or game.get("phase_id") is None:
        return None
    # Read where pages read (no write lock): the proposals' read is pure (store.votes.proposals).
    found = votes.proposals(web.read, name, now=web.now())
    with web.read.session() as s:
        g = store_rows.game_row(s, name)
        settings = GameSettings.from_data(g.settings)
        run_by_players = creator_seated(s, g)
    entries = [
        {
            "id": p.id,
            "kind": p.kind,
            "values": p.values,
            "what": say(describe(p), lang),
            "proposer": p.proposer,
            "status": p.status,
            "yes": p.yes,
            "no": p.no,
            "needed": p.needed,
            "voters": list(p.voters),
            "ballots": dict(p.ballots),
            "expires_at": p.expires_at.isoformat() if p.expires_at else None,
        }
        for p in found
    ]
    return {
        "rule": settings.vote_rule,
        "kinds": [*_ALWAYS_KINDS, *(_PLAYER_RUN_KINDS if run_by_players else ())],
        "secret": settings.secret_ballot or settings.anonymous,
        # The survivors; a count hidden by the fog (None) is of a power still in the game (views/fog.py).
        "powers": [p["power"] for p in game["powers"] if p.get("centres") != 0 or p.get("units") != 0],
        "entries": entries,
    }


def _open_draw_of_all(e: Mapping[str, Any]) -> bool:
    """The open draw of every survivor: the draw box's one tally (a draw of some is voted on by its number)."""
    return bool(e["kind"] == "draw" and e["status"] == "open" and not e["values"].get("powers"))


def _expired(public: Mapping[str, Any] | None, now: datetime) -> bool:
    """Whether an open proposal of the shared part has run out of time since it was made."""
    if public is None:
        return False
    return any(
        e["status"] == "open" and e["expires_at"] is not None and datetime.fromisoformat(e["expires_at"]) <= now
        for e in public["entries"]
    )


def _seat_proposals(public: Mapping[str, Any] | None, power: str, stand_in: bool) -> dict[str, Any] | None:
    """The shared proposals as ``power``'s page shows them: by power in an open game, as counts under a secret
    ballot (the seat's own ballot always shown to it, and its own proposals named as its own)."""
    if public is None:
        return None
    secret = public["secret"]
    entries = []
    for e in public["entries"]:
        ballots: dict[str, bool] = e["ballots"]
        open_ = e["status"] == "open" and not stand_in
        entries.append(
            {
                **e,
                "proposer": None if secret and e["proposer"] != power else e["proposer"],
                "ballots": None if secret else {q: ballots[q] for q in e["voters"] if q in ballots},
                "mine": ballots.get(power),
                "may_vote": open_ and power in e["voters"],
                "may_withdraw": open_ and e["proposer"] == power,
            }
        )
    return {
        "rule": public["rule"],
        "kinds": [] if stand_in else public["kinds"],
        "secret": secret,
        "powers": public["powers"],
        "entries": entries,
    }


def _own_vote(web: Web, name: str, power: str, viewer: Viewer) -> str:
    """A proposal or a ballot is the player's own, as a draw vote is: a stand-in orders the seat, no more."""
    _, power, stand_in = require_seat(web, name, power, viewer)
    if stand_in:
        raise Forbidden(
            msg(
                "a vote of the table is %(power)s's player's own: as their stand-in you order the seat while they "
                "are away, but do not vote for them",
                power=power,
            )
        )
    return power


def propose(web: Web, name: str, power: str, kind: str, viewer: Viewer, **values: Any) -> Decided:
    """:func:`dippouch.play.votes.propose` for the seat's player."""
    power = _own_vote(web, name, power, viewer)
    got = votes.propose(web.store, name, power, kind, now=web.now(), **values)
    web.touched(name, structural=True)
    return got


def ballot(web: Web, name: str, power: str, proposal: int, yes: bool, viewer: Viewer) -> Decided:
    """:func:`dippouch.play.votes.ballot` for the seat's player."""
    power = _own_vote(web, name, power, viewer)
    got = votes.ballot(web.store, name, proposal, power, yes, now=web.now())
    web.touched(name, structural=True)
    return got


def withdraw(web: Web, name: str, power: str, proposal: int, viewer: Viewer) -> Decided:
    """:func:`dippouch.play.votes.withdraw` for the proposal's proposer."""
    power = _own_vote(web, name, power, viewer)
    got = votes.withdraw(web.store, name, proposal, power, now=web.now())
    web.touched(name, structural=True)
    return got
