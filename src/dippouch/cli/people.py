"""``dippouch people block``, ``unblock`` and ``blocks``: a person's blocks, and ``dippouch reports`` and
``reports resolve``: the moderators' queue, from the command line, through the same use cases as the pages
and the JSON API (:mod:`dippouch.play.blocks`, :mod:`dippouch.play.moderation`).

Whoever runs these holds the installation's database, as its coordinator does: the command line is the
installation's moderators' door, and a block made here is made for the person named (a person asking by mail,
or a test). A person is named by their number or their e-mail address.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from dippouch.cli import app, command_group
from dippouch.cli.game import DbOption, NowOption, _now, _store, friendly, out
from dippouch.cli.words import tell
from dippouch.core.messages import Arg, Msg, PhaseName, msg

I18N_DOMAIN = "cli"
"""The catalogue of the command line's own words (its refusals, said in the locale's language)."""

people_app = command_group(help="A person's blocks: block, unblock, list.")
app.add_typer(people_app, name="people")
reports_app = command_group(
    help="The moderators' queue of reports: list the open ones; resolve one.", invoke_without_command=True
)
app.add_typer(reports_app, name="reports")

if TYPE_CHECKING:
    from dippouch.store.db import Database
    from dippouch.store.moderation.stored import Report

_BY = typer.Option("the command line", "--by", help="Who acts, as the moderation log names them.")


def _person_id(db: Database, who: str) -> int:
    """A person by number or e-mail address; a clear refusal when there is none."""
    from dippouch.game import GameError
    from dippouch.numbers import number_or_none
    from dippouch.store.people.persons import person, person_by_email

    text = who.strip()
    n = number_or_none(text)
    found = person(db, n) if n is not None else person_by_email(db, text) if "@" in text else None
    if found is None or found.deleted:
        raise GameError(msg("no person %(person)s: name one by their number or their e-mail address", person=repr(who)))
    return found.id


def _print_blocks(db: Database, person_id: int) -> None:
    from dippouch.play.blocks import blocked_people

    got = blocked_people(db, person_id)
    if not got:
        tell(out, msg("Blocks nobody."))
    for b in got:
        since = f"{b.at:%Y-%m-%d %H:%M}"
        tell(out, msg("%(id)s  %(name)s  since %(since)s UTC", id=b.person_id, name=b.name, since=since))


@people_app.command("block")
@friendly
def block(
    person: str = typer.Argument(..., help="Who blocks: a number or an e-mail address."),
    other: str = typer.Argument(..., help="Whom they block."),
    db: str | None = DbOption,
    now: str | None = NowOption,
) -> None:
    """PERSON blocks OTHER in every game: no press between them, neither joins a new game the other is in."""
    from dippouch.play.blocks import block as make

    store = _store(db)
    me = _person_id(store, person)
    make(store, me, _person_id(store, other), now=_now(now))
    _print_blocks(store, me)


@people_app.command("unblock")
@friendly
def unblock(
    person: str = typer.Argument(..., help="Who lifts the block."),
    other: str = typer.Argument(..., help="Whom they blocked."),
    db: str | None = DbOption,
) -> None:
    """PERSON lifts their block of OTHER (nothing happens when there was none)."""
    from dippouch.play.blocks import unblock as lift

    store = _store(db)
    me = _person_id(store, person)
    if not lift(store, me, _person_id(store, other)):
        tell(out, msg("There was no such block."))
    _print_blocks(store, me)


@people_app.command("blocks")
@friendly
def blocks(person: str = typer.Argument(..., help="Whose blocks."), db: str | None = DbOption) -> None:
    """The people PERSON blocks (their number, name and since when)."""
    store = _store(db)
    _print_blocks(store, _person_id(store, person))


@reports_app.callback()
@friendly
def reports(ctx: typer.Context, db: str | None = DbOption) -> None:
    """The open reports, oldest first, with their evidence (``reports list`` says the same)."""
    if ctx.invoked_subcommand is None:
        _print_reports(db)


@reports_app.command("list")
@friendly
def list_reports(db: str | None = DbOption) -> None:
    """The open reports, oldest first, with their evidence."""
    _print_reports(db)


def _print_reports(db: str | None) -> None:
    from dippouch.play.moderation import reports as queue

    got = queue(_store(db))
    if not got:
        tell(out, msg("No open reports."))
    for r in got:
        tell(out, _report_line(r))
        tell(out, msg("why: %(reason)s", reason=r.reason), indent="    ")


def _report_line(r: Report) -> Msg:
    """A report's first line: its number, when, who made it, and what it is about (a whole sentence for each
    kind, since the words around the names differ by language)."""
    head: dict[str, Arg] = {
        "id": r.id,
        "at": f"{r.at:%Y-%m-%d %H:%M}",
        "reporter": r.reporter,
        "reporter_id": r.reporter_id,
    }
    if r.kind == "person":
        return msg(
            "#%(id)s %(at)s UTC, by %(reporter)s (%(reporter_id)s): person %(person_id)s (%(person)s)",
            **head,
            person_id=r.person_id if r.person_id is not None else "-",
            person=r.person or "-",
        )
    if r.kind == "game":
        return msg("#%(id)s %(at)s UTC, by %(reporter)s (%(reporter_id)s): game %(game)s", **head, game=r.game or "-")
    return msg(
        "#%(id)s %(at)s UTC, by %(reporter)s (%(reporter_id)s): a message of %(sender)s in %(game)s, %(phase)s: "
        "%(message)s",
        **head,
        sender=r.sender or "-",
        game=r.game or "-",
        phase=PhaseName(r.phase) if r.phase else "-",
        message=repr(r.message),
    )


@reports_app.command("resolve")
@friendly
def resolve(
    report: int = typer.Argument(..., help="The report's number (reports list)."),
    action: str = typer.Argument(..., help="dismiss, warn, mute (press stopped) or ban (from signing in)."),
    note: str = typer.Option("", "--note", help="Why (the warning's words, the ban's reason)."),
    by: str = _BY,
    db: str | None = DbOption,
    now: str | None = NowOption,
) -> None:
    """Close REPORT with ACTION; logged with who (--by)."""
    from dippouch.play.moderation import act_on_report

    got = act_on_report(_store(db), report, action.strip().lower(), note, now=_now(now), by=by)
    tell(out, msg("Report #%(id)s: %(status)s; logged.", id=got.id, status=got.status))
