"""Moving a game between databases: the game file (our JSON) as each reader may have it, and importing one.

``public`` leaves out submissions and addresses, ``coordinator`` seals the open phase's orders, and
``unsealed`` has everything (opening the seal is recorded). An import gets the checks a new game gets
(:func:`dippouch.store.gamefile.check_new_game`) and those only a file can fail
(:func:`dippouch.store.gamefile.check_game_file`) before anything is written.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError

from dippouch.catalog import load_variant, variant_from_data
from dippouch.core.errors import DippouchError
from dippouch.core.messages import Msg, hint, msg
from dippouch.core.variant import content_hash
from dippouch.game import GameError, as_utc
from dippouch.store.db import Database
from dippouch.store.domains import file_records, file_shares
from dippouch.store.gamefile import check_game_file, check_new_game, check_variant_name, shown
from dippouch.store.models import EventRow, GameRow, PhaseRow, PlayerRow, SubmissionRow, VoteRow
from dippouch.store.records import iso_time, phase_to_data, read_time
from dippouch.store.rows import game_row, power_name
from dippouch.store.sealing import is_sealed, record_unsealing, seal_export

I18N_DOMAIN = "rules"
"""The catalogue of the store's refusals, said in the reader's language where they are shown (dippouch.saying)."""

__all__ = ["GAME_FILE_FORMAT", "GAME_FILE_VERSION", "export_game", "game_file", "import_game"]

GAME_FILE_FORMAT = "dippouch-game"
GAME_FILE_VERSION = 1
COORDINATOR_EVENTS = frozenset({"press-report"})
"""Events only the coordinator's files carry: a report of a message is for the coordinator, and the public
file would tell every reader who reported what."""


def game_file(
    db: Database, name: str, *, view: str, now: datetime, who: Msg | str | None = None, reason: str | None = None
) -> dict[str, Any]:
    """The game file as each reader may have it; every front end's export comes from here.

    ``public``: no submission, no player's e-mail address and no report of a press message (anyone who
    may see the game gets it).
    ``coordinator``: everything, but the open phase's submissions sealed until its deadline (who sent
    which version and when, not what). ``unsealed``: everything, to move a running game; while the
    open phase is sealed this opens the seal, which is recorded in the game's event log (``who``, when,
    ``reason``: required) for the players to see, in the same transaction as the file is read.
    """
    now = as_utc(now)
    if view == "public":
        data = export_game(db, name)
        for r in data["players"]:
            r.pop("email", None)
        for key in file_records():
            data.pop(key, None)  # the domains' records (mail: addresses, tokens, photographs): the coordinator's only
        data["events"] = [e for e in data["events"] if e["kind"] not in COORDINATOR_EVENTS]
        for ph in data["phases"]:
            ph["submissions"] = []
        data["sealed"] = "submissions and players' addresses are left out; the coordinator's export has them"
        _with_shares(db, name, data, coordinator=False)
        return data
    if view == "coordinator":
        data = export_game(db, name)
        open_sealed = any(is_sealed(str(p["status"]), read_time(p.get("deadline")), now) for p in data["phases"])
        sealed = {i for i, p in enumerate(data["phases"]) if open_sealed and p["status"] != "processed"}
        for record in file_records().values():
            record.seal(data, sealed)
        _with_shares(db, name, data, coordinator=True)
        if seal_export(data, now):
            data["sealed"] = (
                "the open phase's submissions are sealed until its deadline; an unsealed export (with a "
                "reason, shown to the players) has them"
            )
        return data
    if view != "unsealed":
        raise GameError(
            msg("unknown view of a game file %(view)s; choose public, coordinator or unsealed", view=repr(view))
        )
    by = msg("the game's coordinator") if who is None else who
    record_unsealing(db, name, who=by, reason=reason, now=now, what=msg("an unsealed export"))
    data = export_game(db, name)
    _with_shares(db, name, data, coordinator=True)
    return data


def _with_shares(db: Database, name: str, data: dict[str, Any], *, coordinator: bool) -> None:
    """What each domain lets this reader have (press: what the game's rules open), under the domain's key."""
    for key, share in file_shares().items():
        found = share(db, name, coordinator)
        if found is not None:
            data[key] = found


def export_game(db: Database, name: str) -> dict[str, Any]:
    """The whole game as JSON-ready data: settings, players, every phase with its submissions, votes, log,
    and each domain's record of it under the domain's key (the mail's: store/mail/record.py)."""
    with db.session() as s:
        g = game_row(s, name)
        phases = list(s.scalars(sa.select(PhaseRow).where(PhaseRow.game_id == g.id).order_by(PhaseRow.id)))
        votes = s.scalars(sa.select(VoteRow).where(VoteRow.game_id == g.id).order_by(VoteRow.id))
        events = list(s.scalars(sa.select(EventRow).where(EventRow.game_id == g.id).order_by(EventRow.id)))
        data: dict[str, Any] = {
            "format": GAME_FILE_FORMAT,
            "version": GAME_FILE_VERSION,
            "game": {
                "name": g.name,
                "variant": g.variant,
                "variant_data": g.variant_data,
                "variant_hash": g.variant_hash,
                "options": g.options,
                "settings": g.settings,
                "status": g.status,
                "ending": g.ending,
                "branch": g.branch,
                "paused_remaining": g.paused_remaining,
                "created_at": g.created_at.isoformat(),
            },
            "players": [
                {
                    "power": r.power,
                    "name": r.name,
                    "assigned_at": r.assigned_at.isoformat(),
                    "replaced_at": iso_time(r.replaced_at),
                    "email": r.email,
                }
                for r in g.players
            ],
            "phases": [phase_to_data(p) for p in phases],
            "votes": [{"power": r.power, "draw": r.draw, "at": r.at.isoformat()} for r in votes],
            "events": [{"at": r.at.isoformat(), "kind": r.kind, "detail": r.detail} for r in events],
        }
        for key, record in file_records().items():
            data[key] = record.write(s, g.id, [p.id for p in phases], [r.id for r in events])
        return data


def import_game(db: Database, data: Mapping[str, Any], *, name: str | None = None) -> str:
    """Recreate a game from :func:`export_game`'s data (under ``name`` if given)."""
    if not isinstance(data, Mapping) or data.get("format") != GAME_FILE_FORMAT:
        raise GameError(msg('not a dippouch game file (expected "format": %(format)s)', format=f'"{GAME_FILE_FORMAT}"'))
    version = data.get("version", GAME_FILE_VERSION)
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise GameError(
            msg(
                "game file: version %(version)s is not a game file version (this dippouch writes 1)",
                version=shown(version),
            )
        )
    if version > GAME_FILE_VERSION:
        raise GameError(msg("game file version %(version)s is newer than this dippouch understands", version=version))
    try:
        gd = data.get("game")
        if not isinstance(gd, Mapping):
            raise GameError(msg('game file: no "game" object (name, variant, settings, status)'))
        if gd.get("variant") is None:
            raise GameError(msg("game.variant: missing; a game file names the variant its game plays (like standard)"))
        try:
            named = check_variant_name(gd.get("variant"))
        except GameError as e:
            raise GameError(msg("game.variant: %(reason)s", reason=e.msg)) from None
        options = gd.get("options") or {}
        if not isinstance(options, Mapping):
            raise GameError(msg("game.options: expected an object of variant options"))
        stored = gd.get("variant_data")
        try:
            if stored is not None:
                # The game's own copy travels with it: a game of a user variant imports without the file.
                if not isinstance(stored, Mapping):
                    raise GameError(msg("game.variant_data: expected the variant as an object"))
                if gd.get("variant_hash") is not None and content_hash(stored) != gd["variant_hash"]:
                    raise GameError(
                        msg("game file: its variant data does not match its variant_hash (edited or damaged)")
                    )
                v = variant_from_data(stored, options, source=f"{named} (from the game file)")
            else:
                v = load_variant(named, options)
        except GameError:
            raise
        except DippouchError as e:
            raise GameError(
                msg("game file: its variant %(variant)s does not load: %(reason)s", variant=repr(named), reason=e.msg)
            ) from None
        if v.name != named:
            raise GameError(
                msg(
                    "game.variant: the file says %(variant)s, but its variant data is %(data)s",
                    variant=repr(named),
                    data=repr(v.name),
                )
            )
        # The checks a game created here gets, then what only a file can get wrong; nothing is written
        # before both have passed.
        new_name, settings = check_new_game(name if name is not None else gd.get("name"), v, gd.get("settings", {}))
        check_game_file(data, v)
        with db.session() as s, s.begin():
            if s.scalars(sa.select(GameRow.id).where(GameRow.name == new_name)).first() is not None:
                raise GameError(
                    msg(
                        "a game named %(game)s already exists; %(hint)s",
                        game=repr(new_name),
                        hint=hint("import-name", "import it with --name NEW"),
                    )
                )
            data_v = dict(v.data)
            g = GameRow(
                name=new_name,
                variant=v.name,
                variant_data=data_v,
                variant_hash=content_hash(data_v),
                options=dict(v.options),
                settings=settings.to_data(),
                status=gd["status"],
                ending=gd.get("ending"),
                branch=int(gd.get("branch", 0)),
                paused_remaining=float(gd["paused_remaining"]) if gd.get("paused_remaining") is not None else None,
                created_at=read_time(gd["created_at"]),
            )
            s.add(g)
            s.flush()
            for r in data.get("players", []):
                s.add(
                    PlayerRow(
                        game_id=g.id,
                        power=power_name(v, r["power"]),
                        name=r["name"].strip(),
                        assigned_at=read_time(r["assigned_at"]),
                        replaced_at=read_time(r.get("replaced_at")),
                        email=r.get("email"),
                    )
                )
            new_ids: dict[int, int] = {}  # submission id in the file -> id here (for carried_from)
            new_phases: list[int] = []
            for p in data["phases"]:
                row = PhaseRow(
                    game_id=g.id,
                    branch=int(p["branch"]),
                    seq=int(p["seq"]),
                    name=p["name"],
                    kind=p["kind"],
                    status=p["status"],
                    position=p["position"],
                    opened_at=read_time(p["opened_at"]),
                    deadline=read_time(p.get("deadline")),
                    processed_at=read_time(p.get("processed_at")),
                    orders=p.get("orders"),
                    results=p.get("results"),
                    next_position=p.get("next_position"),
                    missed=p.get("missed"),
                )
                s.add(row)
                s.flush()
                new_phases.append(row.id)
                for sub in p.get("submissions", []):
                    if sub.get("sealed"):
                        raise GameError(
                            msg(
                                "this game file was exported with the open phase's orders sealed; %(hint)s to move a "
                                "running game",
                                hint=hint("export-unsealed", "export it again with `dippouch export --unsealed`"),
                            )
                        )
                    old_from = sub.get("carried_from")
                    copy = SubmissionRow(
                        phase_id=row.id,
                        power=sub["power"],
                        version=int(sub["version"]),
                        submitted_at=read_time(sub["submitted_at"]),
                        text=sub["text"],
                        lines=sub["lines"],
                        ready=bool(sub.get("ready", False)),
                        stands=bool(sub.get("stands", True)),
                        carried_from=new_ids.get(int(old_from)) if old_from is not None else None,
                        source=str(sub.get("source", "cli")),
                        recorded_at=read_time(sub.get("recorded_at")),
                        label=sub.get("label"),
                        reinstates=sub.get("reinstates"),
                    )
                    s.add(copy)
                    if sub.get("id") is not None:
                        s.flush()
                        new_ids[int(sub["id"])] = copy.id
            for r in data.get("votes", []):
                s.add(VoteRow(game_id=g.id, power=r["power"], draw=bool(r["draw"]), at=read_time(r["at"])))
            new_events = [
                EventRow(game_id=g.id, at=read_time(r["at"]), kind=r["kind"], detail=r.get("detail", {}))
                for r in data.get("events", [])
            ]
            s.add_all(new_events)
            s.flush()
            for key, record in file_records().items():
                record.read(s, g.id, data.get(key), new_phases, [e.id for e in new_events], new_ids)
        return new_name
    except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as e:
        raise GameError(
            msg("game file is incomplete or damaged: %(error)s", error=f"{type(e).__name__} {str(e)[:250]}")
        ) from None
    except IntegrityError:
        raise GameError(
            msg(
                "a game named %(game)s already exists; %(hint)s",
                game=repr(new_name),
                hint=hint("import-name", "import it with --name NEW"),
            )
        ) from None
    except sa.exc.SQLAlchemyError as e:
        raise GameError(
            # the database's error, by its class's name (its text may hold the file's values)
            msg("the game file could not be stored (%(reason)s); nothing was imported", reason=type(e).__name__)
        ) from None
