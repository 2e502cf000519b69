"""The coordinator's commands: create a game, seat players, take orders, process, report, repair.

Each command opens the database named by ``--db`` (or ``DIPPOUCH_DATABASE_URL``, else ``./dippouch.db``),
does one thing in one transaction, and prints what happened. Commands that depend on the time take
``--now`` (ISO 8601) so a coordinator can process "as of" a moment and tests are deterministic; without it
they use the current time. Every mistake a user can make ends with a one-line ``error:`` message and exit
status 2, never a traceback.
"""

from __future__ import annotations

import functools
import json
import os
import sys
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from dippouch.cli import app, command_group
from dippouch.cli.errors import user_problem
from dippouch.cli.words import said, tell
from dippouch.core.messages import Arg, Msg, PhaseName, msg, nmsg, pmsg, quantity

I18N_DOMAIN = "cli"
"""The catalogue of the command line's own words (its refusals, said in the locale's language)."""

if TYPE_CHECKING:
    from dippouch.game import GameSettings
    from dippouch.store import GameStore
    from dippouch.store.status import PowerStatus

out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)

F = TypeVar("F", bound=Callable[..., Any])

DbOption = typer.Option(None, "--db", help="Database URL (default: $DIPPOUCH_DATABASE_URL or sqlite:///dippouch.db).")
NowOption = typer.Option(None, "--now", help="Act as of this time (ISO 8601, UTC unless an offset is given).")
AbbrevOption = typer.Option(False, "--abbrev", help="Write places by the map's abbreviations instead of full names.")


def friendly(fn: F) -> F:
    """Turn user errors into a message and exit status 2 (also under typer's test runner)."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except (typer.Exit, typer.Abort):
            raise
        except Exception as e:
            problem = user_problem(e)
            if problem is None:
                raise
            err.print(f"[red]error:[/red] {escape(problem)}")
            raise typer.Exit(2) from None

    return wrapper  # type: ignore[return-value]


def _now(text: str | None) -> datetime:
    from dippouch.game import parse_time

    return parse_time(text) if text else datetime.now(UTC)


def _store(db: str | None) -> GameStore:
    from dippouch.store import GameStore

    return GameStore(db)


def _when(settings: GameSettings, dt: datetime | None) -> str:
    return settings.describe(dt) if dt is not None else "-"


def _phase(name: str | None) -> Arg:
    """A phase's name as a message's value: said with the reader's season and phase words ("-" for none)."""
    return PhaseName(name) if name else "-"


def _phase_said(name: str | None) -> str:
    """A phase's name in the locale's words, for a table's cell or a list (where no message holds it)."""
    from dippouch.cli.errors import cli_language
    from dippouch.i18n import phase_words

    return phase_words(name, cli_language()) if name else "-"


_GAME_STATES: dict[str, Msg] = {
    "active": pmsg("game state", "active"),
    "paused": pmsg("game state", "paused"),
    "finished": pmsg("game state", "finished"),
}
"""A game's state as people read it; the stored word is what programs read (--json, the API)."""

_PHASE_STATUSES: dict[str, Msg] = {
    "open": pmsg("phase status", "open"),
    "processed": pmsg("phase status", "processed"),
    "abandoned": pmsg("phase status", "abandoned"),
}
"""A phase's status as people read it (a status this list does not know is shown as stored)."""


def _worded(words: dict[str, Msg], word: str) -> Msg | str:
    return words.get(word, word)


def _read_json(path: str) -> Any:
    """A JSON file, or one clear error: not JSON, nested too deeply, or a number too long to read."""
    from dippouch.game import GameError

    text = _read_text(path)
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise GameError(msg("%(path)s: not valid JSON (%(error)s)", path=path, error=str(e))) from None
    except RecursionError:
        raise GameError(msg("%(path)s: not accepted: JSON nested too deeply", path=path)) from None
    except ValueError as e:  # a number of more than 4,300 digits
        raise GameError(msg("%(path)s: not accepted: %(error)s", path=path, error=str(e))) from None


def _read_text(path: str | None) -> str:
    from dippouch.game import GameError

    if path is None or path == "-":
        return sys.stdin.read()
    p = Path(path)
    if not p.is_file():
        raise GameError(msg("no file %(path)s", path=repr(path)))
    try:
        return p.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise GameError(
            msg(
                "%(path)s is not UTF-8 text (byte %(byte)s); save it as plain text and try again",
                path=path,
                byte=e.start,
            )
        ) from None


# --------------------------------------------------------------------------------------------------


@app.command()
@friendly
def new(
    name: str = typer.Argument(..., help="A short name for the game, used by every other command."),
    variant: str = typer.Option("standard", "--variant", "-v", help="Variant to play (see `dippouch variants`)."),
    option: list[str] | None = typer.Option(None, "--option", "-o", help="Variant option KEY=VALUE (repeatable)."),  # noqa: B008
    movement: str = typer.Option("12d", help="Time for a movement phase (12d, 36h, 1d12h, ...)."),
    retreats: str = typer.Option("2d", help="Time for a retreat phase."),
    adjustments: str = typer.Option("2d", help="Time for an adjustment phase."),
    timezone: str = typer.Option("UTC", "--timezone", "--tz", help="Time zone of the deadlines (IANA name)."),
    time_of_day: str | None = typer.Option(None, "--at", help="Round deadlines up to this local time, e.g. 07:00."),
    missed: int = typer.Option(2, help="Movement phases missed in a row before civil disorder (0: never)."),
    draws: bool = typer.Option(True, "--draws/--no-draws", help="Allow draws by unanimous vote."),
    anonymous: bool = typer.Option(
        False, "--anonymous", help="Hide players' names from all but you and each player until the game ends."
    ),
    newcomers: bool = typer.Option(
        True,
        "--newcomers/--no-newcomers",
        help="Whether newcomers (fewer than 3 seats played) may sign up; --no-newcomers keeps them out.",
    ),
    position: str | None = typer.Option(
        None,
        help="Start from this position instead of the variant's: a JSON file in the adjudication contract's "
        "request shape; what it omits comes from the variant (docs/coordinator.md).",
    ),
    scoring: str | None = typer.Option(
        None,
        "--scoring",
        help="The scoring system its end is scored under (dss: draw-size, sos, carnage, tribute, opentribute, "
        "centres); the variant's own victory rule still decides the result.",
    ),
    language: str = typer.Option(
        "en",
        "--language",
        help="The language of the game's own mail to everyone (results, reminders, notices): en, de or fr.",
    ),
    visibility: str = typer.Option(
        "public", "--visibility", help="public (listed), unlisted (anyone with its address) or private."
    ),
    secret_ballot: bool = typer.Option(
        False, "--secret-ballot", help="Draw votes are secret: only the result is shown, as the desk's option."
    ),
    vote_rule: str = typer.Option(
        "unanimous", "--vote-rule", help="How the table's proposals pass: unanimous, majority or unconcerned."
    ),
    fog: bool = typer.Option(
        False,
        "--fog",
        help="Fog of war: each power sees only what its units and centres see until the game ends.",
    ),
    db: str | None = DbOption,
    now: str | None = NowOption,
) -> None:
    """Create a game; its first phase opens now, with its deadline (the same options as the desk's form)."""
    from dippouch.game import GameError, GameSettings
    from dippouch.play import games
    from dippouch.play.records import find_system
    from dippouch.store import status as store_status
    from dippouch.store import variant_copy

    options: dict[str, Any] = {}
    for o in option or []:
        key, eq, value = o.partition("=")
        if not eq or not key.strip():
            raise GameError(msg("option %(option)s must read KEY=VALUE (e.g. -o english_channel=true)", option=repr(o)))
        options[key.strip()] = _option_value(value.strip())
    settings = GameSettings(
        deadlines={"movement": movement, "retreats": retreats, "adjustments": adjustments},
        timezone=timezone,
        time_of_day=time_of_day,
        missed_limit=missed,
        draws=draws,
        anonymous=anonymous,
        scoring=find_system(scoring).name if scoring else None,
        language=language.strip().lower(),
        secret_ballot=secret_ballot,
        vote_rule=vote_rule,
        newcomers=newcomers,
        fog=fog,
    )
    start = None
    if position is not None:
        start = _read_json(position)
    store = _store(db)
    games.create(
        store, name, variant, now=_now(now), options=options, settings=settings, visibility=visibility, position=start
    )
    st = store_status.status(store, name, now=_now(now))
    tell(
        out, msg("Created game %(game)s (%(variant)s).", game=name, variant=variant_copy.variant_of(store, name).title)
    )
    tell(
        out,
        msg("%(phase)s: orders due by %(deadline)s.", phase=_phase(st.phase), deadline=_when(st.settings, st.deadline)),
    )
    if settings.scoring:
        tell(out, msg("Scored at its end under %(system)s.", system=find_system(settings.scoring).title))
    if not settings.newcomers:
        tell(out, msg("Not for newcomers: only players with at least 3 seats played may sign up."))


def _option_value(text: str) -> Any:
    low = text.lower()
    if low in ("true", "yes", "on"):
        return True
    if low in ("false", "no", "off"):
        return False
    try:
        return int(text)
    except ValueError:
        return text


@app.command("upgrade-variant")
@friendly
def upgrade_variant(
    game: str,
    check: bool = typer.Option(False, "--check", help="Only say whether the game's position fits the file now."),
    db: str | None = DbOption,
    now: str | None = NowOption,
) -> None:
    """Switch a game to its variant file as it is now (a game keeps the copy it was created with)."""
    from dippouch.play import games

    store = _store(db)
    drift, problems = games.upgrade_variant(store, game, now=_now(now), check_only=check)
    short = str(drift.file_hash)[:12]
    if drift.stored_hash is not None and not drift.changed and not problems:
        tell(
            out,
            msg(
                "Game %(game)s already plays the variant file as it is (%(hash)s); nothing to do.",
                game=game,
                hash=short,
            ),
        )
        return
    if problems:
        unfit = msg("the position of %(game)s does not fit the variant file as it is now:", game=game)
        err.print(f"[red]error:[/red] {escape(said(unfit))}", markup=True)
        for p in problems:
            err.print(f"  - {escape(said(p))}")
        tell(err, msg("Nothing was changed; fix the file (or the game) and try again."))
        raise typer.Exit(1)
    if check:
        tell(
            out,
            msg(
                "The position of %(game)s fits the variant file as it is now; run without --check to switch.", game=game
            ),
        )
        return
    tell(
        out,
        msg(
            "Game %(game)s now plays the variant file as it is (%(hash)s); the old copy is in its log.",
            game=game,
            hash=short,
        ),
    )


@app.command()
@friendly
def games(db: str | None = DbOption) -> None:
    """List the games in the database."""
    from dippouch.store import games as store_games

    rows = store_games.games(_store(db))
    if not rows:
        tell(out, msg("No games yet: create one with `dippouch new NAME --variant standard`."))
        return
    table = Table(
        said(pmsg("table heading", "game")),
        said(pmsg("table heading", "variant")),
        said(pmsg("table heading", "state")),
        said(pmsg("table heading", "current phase")),
    )
    for name, variant, state, phase in rows:
        table.add_row(name, variant, said(_worded(_GAME_STATES, state)), _phase_said(phase))
    out.print(table)


players_app = command_group(help="Who plays which power: list, assign, replace.", no_args_is_help=True)
app.add_typer(players_app, name="players")


@players_app.command("list")
@friendly
def players_list(game: str, db: str | None = DbOption) -> None:
    """Show each power's player and who played it before."""
    from dippouch.store import games as store_games

    table = Table(
        said(pmsg("table heading", "power")),
        said(pmsg("table heading", "player")),
        said(pmsg("table heading", "history")),
    )
    for power, current, hist in store_games.players(_store(db), game):
        past = "; ".join(f"{n} {a:%Y-%m-%d}-{r:%Y-%m-%d}" for n, a, r in hist if r is not None)
        table.add_row(power, current or said(msg("(nobody)")), past)
    out.print(table)


EmailOption = typer.Option(
    None,
    "--email",
    help="The player's e-mail address (orders by mail come only from it; a person's address makes the seat theirs).",
)
LinkOption = typer.Option(
    False, "--link", help="Make the player's link to their page and print it (shown only now), as the desk does."
)


@players_app.command("assign")
@friendly
def players_assign(
    game: str,
    power: str,
    player: str,
    email: str | None = EmailOption,
    link: bool = LinkOption,
    db: str | None = DbOption,
    now: str | None = NowOption,
) -> None:
    """Seat PLAYER as POWER (which must have nobody yet)."""
    _seat(game, power, player, email=email, link=link, replace=False, db=db, now=now)


@players_app.command("replace")
@friendly
def players_replace(
    game: str,
    power: str,
    player: str,
    email: str | None = EmailOption,
    link: bool = LinkOption,
    db: str | None = DbOption,
    now: str | None = NowOption,
) -> None:
    """Hand POWER over to PLAYER (ends civil disorder: the missed-phase count starts again). The player replaced
    loses the power at once: their links stop working, and a person is told."""
    _seat(game, power, player, email=email, link=link, replace=True, db=db, now=now)


def _seat(
    game: str, power: str, player: str, *, email: str | None, link: bool, replace: bool, db: str | None, now: str | None
) -> None:
    """Seat a player through the use case every door calls (:func:`dippouch.play.seats.seat`)."""
    from dippouch.play.seats import seat
    from dippouch.settings import site

    got = seat(_store(db), game, power, player, now=_now(now), replace=replace, email=email, link=link)
    by_mail = msg("Orders by mail come from %(address)s.", address=email.strip()) if email else None
    out.print(said(got.said) + (" " + said(by_mail) if by_mail else ""), markup=False)
    if got.secret is not None:
        here = site()
        link_is = msg(
            "%(power)s's link (shown only now): %(link)s", power=got.power, link=here.link(f"/k/{got.secret}")
        )
        tell(out, link_is)
        if not here.configured:
            # This process cannot know where `dippouch serve` listens (its --port, its host): the link names the
            # embedded default, which is wrong for a server on another port, and the key is shown only once.
            unset = msg(
                "DIPPOUCH_PUBLIC_URL is not set, so the link names the default address %(address)s: if dippouch "
                "serve listens elsewhere (another --port or host), open the same /k/... path there, and set "
                "DIPPOUCH_PUBLIC_URL to the address players open so every link names it.",
                address=here.public_url,
            )
            tell(out, unset)


@players_app.command("email")
@friendly
def players_email(
    game: str,
    power: str,
    address: str = typer.Argument(..., help="The address, or 'none' to remove it."),
    db: str | None = DbOption,
    now: str | None = NowOption,
) -> None:
    """Set the e-mail address of POWER's player: results go there, and mail intake takes orders only from it."""
    from dippouch.play import games
    from dippouch.store import games as store_games

    store = _store(db)
    p = games.set_email(store, game, power, None if address.lower() == "none" else address, now=_now(now))
    player, addr = store_games.emails(store, game)[p]
    if addr:
        said_to = msg(
            "%(player)s (%(power)s) in %(game)s: mail to %(address)s.", player=player, power=p, game=game, address=addr
        )
    else:
        said_to = msg("%(player)s (%(power)s) in %(game)s: no e-mail address.", player=player, power=p, game=game)
    tell(out, said_to)


@app.command()
@friendly
def submit(
    game: str,
    power: str,
    file: str | None = typer.Argument(None, help="File with the orders; '-' or nothing reads standard input."),
    ready: bool = typer.Option(False, "--ready", help="Mark the power ready: process early once everyone is."),
    source: str = typer.Option("cli", "--source", help="Where it came from: cli (typed), post, mail, photo, web."),
    received: str | None = typer.Option(
        None, "--received", help="When it was received (post: the day the letter came), if earlier than now."
    ),
    stands: int | None = typer.Option(
        None, "--stands", help="A version instruction: this earlier version stands (no orders in FILE then)."
    ),
    replace_with_nothing: bool = typer.Option(
        False,
        "--replace-with-nothing",
        help="Let a submission with no accepted order replace the earlier orders (the same as a line 'no orders').",
    ),
    abbrev: bool = AbbrevOption,
    db: str | None = DbOption,
    now: str | None = NowOption,
) -> None:
    """Submit POWER's orders for the current phase (a new version each time; the one received last counts).

    A submission with at least one accepted order replaces the earlier one in full. One with none (chat, an
    empty file, only refused lines) is kept but replaces nothing, unless it says 'no orders' or
    --replace-with-nothing is given. Version lines in the text are understood: "Version 2" (the player's own
    number) and "Version 2 stands" (an earlier version counts instead).
    """
    from dippouch.catalog import load_variant
    from dippouch.game import GameError, parse_time
    from dippouch.names import order_text, unit_text
    from dippouch.play.orders import send_orders

    text = "" if stands is not None and file is None else _read_text(file)
    heading: list[str] = []
    if source in ("post", "photo") and text.strip():
        # A letter's heading (Annexe 3: name, position, game, "Autumn 1642 Movement Orders") is not orders.
        from dippouch.play.mail_intake import strip_letter_heading

        text, heading = strip_letter_heading(_store(db), game, power, text)
    typed = _now(now)
    when = parse_time(received) if received else typed
    if when > typed:
        raise GameError(
            msg(
                "--received %(received)s is later than now (%(now)s UTC)",
                received=str(received),
                now=typed.strftime("%Y-%m-%d %H:%M"),
            )
        )
    sent = send_orders(
        _store(db),
        game,
        power,
        text,
        # Without --now or --received the store stamps the arrival itself, under the power's lock.
        now=typed if now else None,
        received=when if received else None,
        ready=ready,
        source=source,
        recorded_at=typed if received else None,
        reinstates=stands,
        replace_with_nothing=replace_with_nothing,
    )
    r = sent.receipt
    v = r.game_variant if r.game_variant is not None else load_variant(r.variant, r.options)
    kind = v.calendar.kind(v.calendar.parse(r.phase))
    full = not abbrev
    # The asides of the receipt's line (the player's own number, when it came, ready) are each said whole,
    # in parentheses or after a comma, so no language needs them inside its sentence.
    label = msg(" (the player's v%(label)s)", label=r.label) if r.label and r.label != str(r.version) else ""
    got = msg(", received %(when)s UTC", when=when.strftime("%Y-%m-%d %H:%M")) if received else ""
    tell(
        out,
        msg(
            "%(power)s, %(phase)s: %(source)s submission version %(version)s%(label)s recorded%(received)s%(ready)s.",
            power=r.power,
            phase=_phase(r.phase),
            source=source,
            version=r.version,
            label=label,
            received=got,
            ready=msg(" (ready)") if r.ready else "",
        ),
    )
    if heading:
        tell(out, msg("Heading lines taken off (not orders): %(lines)s", lines="; ".join(heading)))
    if r.reinstates is not None:
        tell(out, msg("Version instruction: version %(version)s stands.", version=r.reinstates))
    for line in r.lines:
        number = f"{line.line:>2}"  # the verdicts line up under each other
        if line.said_no_orders:
            noted = msg("line %(line)s noted     %(text)s: %(note)s", line=number, text=line.text, note=line.note or "")
            tell(out, noted, indent="  ")
        elif line.accepted:
            order = order_text(v, line.order or "", kind, full=full)
            tell(out, msg("line %(line)s accepted  %(order)s", line=number, order=order), indent="  ")
            if line.note:
                tell(out, msg("note: %(note)s", note=line.note), indent="             ")
        else:
            refused = msg(
                "line %(line)s REJECTED  %(text)s: %(error)s", line=number, text=line.text, error=line.error or ""
            )
            tell(out, refused, indent="  ")
    tell(
        out,
        nmsg(
            "%(num)d order accepted, %(rejected)s rejected.",
            "%(num)d orders accepted, %(rejected)s rejected.",
            sent.accepted,
            rejected=sent.rejected,
        ),
    )
    if not r.stands:
        why = msg("all its lines were refused") if sent.rejected else msg("it has no order line")
        if r.standing is not None:
            label_is, said_why = (
                msg("NOT REPLACED:"),
                nmsg(
                    "%(why)s, so version %(version)s still stands (%(num)d order). To replace it with no orders, "
                    "send a line 'no orders' (or submit with --replace-with-nothing).",
                    "%(why)s, so version %(version)s still stands (%(num)d orders). To replace it with no orders, "
                    "send a line 'no orders' (or submit with --replace-with-nothing).",
                    len(r.standing_orders),
                    why=why,
                    version=r.standing,
                ),
            )
        else:
            label_is, said_why = (
                msg("NOTHING STANDS:"),
                msg(
                    "%(why)s; %(power)s has no orders for %(phase)s yet.", why=why, power=r.power, phase=_phase(r.phase)
                ),
            )
        out.print(f"[bold red]{escape(said(label_is))}[/bold red] {escape(said(said_why))}")
    elif r.standing is not None:
        tell(
            out,
            nmsg(
                "Now standing: version %(version)s, %(num)d order.",
                "Now standing: version %(version)s, %(num)d orders.",
                len(r.standing_orders),
                version=r.standing,
            ),
        )
    for units, what in r.unordered:
        listed = ", ".join(unit_text(v, u, full=full) for u in units)
        out.print(
            "  " + (said(msg("%(units)s: %(what)s", units=listed, what=what)) if listed else said(what)), markup=False
        )
    if r.late:
        late = msg("This submission arrived after the deadline: it does not count unless the deadline is extended.")
        out.print(f"[yellow]{escape(said(late))}[/yellow]")
    if sent.processed:
        phases = ", ".join(_phase_said(name) for name in sent.processed)
        tell(out, msg("Every power was ready: processed %(phases)s.", phases=phases))
    if r.ready_refused:
        err.print(f"[red]error:[/red] {escape(said(r.ready_refused))}")
        raise typer.Exit(2)


@app.command()
@friendly
def vote(
    game: str,
    power: str,
    draw: bool = typer.Option(True, "--draw/--no-draw", help="Vote for (or withdraw a vote for) a draw."),
    db: str | None = DbOption,
    now: str | None = NowOption,
) -> None:
    """Record POWER's draw vote; the game ends in a draw when every surviving power votes for it."""
    from dippouch.play.votes import vote as cast

    voted = cast(_store(db), game, power, draw, now=_now(now))
    tell(out, msg("Recorded: %(vote)s", vote=voted.said))


@app.command()
@friendly
def status(game: str, db: str | None = DbOption, now: str | None = NowOption) -> None:
    """The current phase, its deadline, and who has submitted."""
    from dippouch.game import format_duration, parse_duration
    from dippouch.store import status as store_status
    from dippouch.store import variant_copy

    store = _store(db)
    st = store_status.status(store, game, now=_now(now))
    if st.ending is not None:
        tell(
            out,
            msg(
                "Game %(game)s (%(variant)s) is over: %(ending)s",
                game=st.game,
                variant=st.variant,
                ending=st.ending.message,
            ),
        )
        return
    state = _worded(_GAME_STATES, st.state)
    tell(
        out,
        msg(
            "Game %(game)s (%(variant)s), %(phase)s, %(state)s.",
            game=st.game,
            variant=st.variant,
            phase=_phase(st.phase),
            state=state,
        ),
    )
    if st.variant_note:
        out.print(f"[yellow]note:[/yellow] {escape(said(st.variant_note))}", markup=True)
    if st.state == "paused":
        left_on_clock = format_duration(st.paused_remaining or parse_duration("0s"))
        tell(out, msg("Paused with %(left)s left on the clock.", left=left_on_clock))
    else:
        deadline = _when(st.settings, st.deadline)
        if not st.due:
            due = msg("Deadline: %(deadline)s.", deadline=deadline)
        elif st.due_why == "ready":
            due = msg(
                "Deadline: %(deadline)s (every power is ready: it is processed at the next `dippouch process`, "
                "before the deadline).",
                deadline=deadline,
            )
        elif st.due_why == "nobody":
            due = msg(
                "Deadline: %(deadline)s (nobody has anything to decide: it is processed at the next "
                "`dippouch process`).",
                deadline=deadline,
            )
        else:
            due = msg("Deadline: %(deadline)s (due now).", deadline=deadline)
        tell(out, due)
    from dippouch.store.mail.review import review_state

    review = review_state(store, game, now=_now(now))
    if review.held and review.deadline is not None and _now(now) >= review.deadline:
        awaiting = nmsg(
            "AWAITING REVIEW: %(num)d photograph or held message waits for the coordinator; the phase is "
            "processed once it is settled: `dippouch mail review %(game)s`.",
            "AWAITING REVIEW: %(num)d photographs or held messages wait for the coordinator; the phase is "
            "processed once they are settled: `dippouch mail review %(game)s`.",
            len(review.items),
            game=game,
        )
        tell(out, awaiting)
    table = Table(
        said(pmsg("table heading", "power")),
        said(pmsg("table heading", "player")),
        said(pmsg("table heading", "units")),
        said(pmsg("table heading", "centres")),
        said(pmsg("table heading", "orders")),
        said(pmsg("table heading", "ready")),
        said(pmsg("table heading", "notes")),
    )
    for p in st.powers:
        photos = [i for i in review.items if i.kind == "photo" and i.power == p.power]
        table.add_row(
            p.power,
            p.player or said(msg("(nobody)")),
            str(p.units),
            str(p.centres),
            said(_orders_cell(p, bool(photos))),
            said(_ready_cell(p.ready, p.must_act)),
            ", ".join(said(note) for note in _notes(p, bool(photos))),
        )
    out.print(table)
    waiting = [i for i in review.items if i.kind == "photo"]
    if waiting:
        sealed = review.deadline is None or _now(now) < review.deadline
        received = "; ".join(
            said(msg("%(power)s received %(when)s UTC", power=str(i.power), when=i.received.strftime("%Y-%m-%d %H:%M")))
            for i in waiting
        )
        if sealed:
            photographed = msg(
                "Photographed orders to be reviewed by the coordinator after the deadline (sealed until then): "
                "%(received)s.",
                received=received,
            )
        else:
            photographed = msg(
                "Photographed orders to be reviewed by the coordinator now (`dippouch mail review`): %(received)s.",
                received=received,
            )
        tell(out, photographed)
    if any(p.borrowed for p in st.powers):
        tell(out, msg("borrowed: orders for another power's units; they count only if that power hands them over."))
    left = [(p.power, p.unordered) for p in st.powers if p.unordered]
    if left:
        from dippouch.names import unit_text

        v = st.game_variant or variant_copy.variant_of(store, game)
        if st.kind == "movement":
            tell(out, msg("Units without orders in the standing versions (they hold):"))
        else:
            tell(out, msg("Units without orders in the standing versions (they are disbanded):"))
        for power, units in left:
            out.print(f"  {power}: {', '.join(unit_text(v, u) for u in units)}", markup=False)


def _orders_cell(p: PowerStatus, photos: bool) -> Msg | str:
    """What a power sent, in the status table: its latest version's accepted (own and borrowed) and refused."""
    if p.version is None and photos:
        return pmsg("orders sent", "photo")
    if p.version is None:
        # A power that need not act may still have sent orders (W3K builds for supply it may be sent).
        return msg("none yet") if p.must_act else "-"
    own = p.accepted - p.borrowed
    if p.borrowed and p.rejected:
        return msg(
            "v%(version)s: %(ok)s ok + %(borrowed)s borrowed, %(rejected)s rejected",
            version=p.version,
            ok=own,
            borrowed=p.borrowed,
            rejected=p.rejected,
        )
    if p.borrowed:
        return msg("v%(version)s: %(ok)s ok + %(borrowed)s borrowed", version=p.version, ok=own, borrowed=p.borrowed)
    if p.rejected:
        return msg("v%(version)s: %(ok)s ok, %(rejected)s rejected", version=p.version, ok=own, rejected=p.rejected)
    return msg("v%(version)s: %(ok)s ok", version=p.version, ok=own)


def _ready_cell(ready: bool, must_act: bool) -> Msg | str:
    if ready:
        return pmsg("ready", "yes")
    return pmsg("ready", "no") if must_act else "-"


def _notes(p: PowerStatus, photos: bool) -> list[Msg]:
    """What the status table notes about a power, each said alone (they are listed, not a sentence)."""
    notes = []
    if p.civil_disorder:
        notes.append(msg("CIVIL DISORDER"))
    elif p.missed_in_a_row:
        notes.append(nmsg("missed %(num)d in a row", "missed %(num)d in a row", p.missed_in_a_row))
    if p.late:
        notes.append(msg("latest is late"))
    if p.draw_vote:
        notes.append(msg("votes draw"))
    if photos and p.version is not None:
        notes.append(pmsg("orders sent", "photo"))
    return notes


@app.command()
@friendly
def process(
    game: str | None = typer.Argument(None, help="The game (default with --all: every game in the database)."),
    all_games: bool = typer.Option(False, "--all", help="Process every game that has a phase due (for cron)."),
    force: bool = typer.Option(False, "--force", help="Process the current phase now, even before its deadline."),
    abbrev: bool = AbbrevOption,
    db: str | None = DbOption,
    now: str | None = NowOption,
) -> None:
    """Process every phase that is due (deadline passed, or every power ready), then report."""
    from dippouch.game import GameError
    from dippouch.store import games as store_games

    store = _store(db)
    if game is None:
        if not all_games:
            raise GameError(msg("name a game, or pass --all to process every game that is due"))
        if force:
            raise GameError(msg("--force processes one named game; it cannot be combined with --all"))
        games = [name for name, _, state, _ in store_games.games(store) if state == "active"]
        total = 0
        for name in games:
            total += _process_one(store, name, now, force=False, quiet=True, full=not abbrev)
        # Two counts, each choosing its own form: the games are a message of their own inside the sentence.
        tell(
            out,
            nmsg(
                "Processed %(num)d phase in %(games)s.",
                "Processed %(num)d phases in %(games)s.",
                total,
                games=nmsg("%(num)d active game", "%(num)d active games", len(games)),
            ),
        )
        for name in games:
            _say_awaiting_review(store, name, now)
        return
    _process_one(store, game, now, force=force, quiet=False, full=not abbrev)


def _process_one(store: GameStore, game: str, now: str | None, *, force: bool, quiet: bool, full: bool = True) -> int:
    from dippouch.play import clock
    from dippouch.play.fairness import INSTALLATION
    from dippouch.play.processing import process_now
    from dippouch.play.reports import stored_report
    from dippouch.store import history as store_history
    from dippouch.store import status as store_status

    if force:
        done = clock.process(store, game, by=INSTALLATION, now=_now(now), limit=1000).phases
    else:
        done = process_now(store, game, now=_now(now), limit=1000).phases
    if not done:
        if quiet:
            return 0
        st = store_status.status(store, game, now=_now(now))
        if st.state == "paused":
            paused = msg(
                "Nothing to process: %(game)s is paused (%(phase)s); `dippouch resume %(game)s` restarts the clock.",
                game=game,
                phase=_phase(st.phase),
            )
            tell(out, paused)
        elif _say_awaiting_review(store, game, now):
            pass
        else:
            due = msg(
                "Nothing to process: %(phase)s is due %(deadline)s.",
                phase=_phase(st.phase),
                deadline=_when(st.settings, st.deadline),
            )
            tell(out, due)
        return 0
    by_name = {row.name: row.id for row in store_history.history(store, game) if row.status == "processed"}
    for name in done:
        out.print(stored_report(store, game, phase_id=by_name[name], full=full), end="", markup=False)
        out.print()
    return len(done)


def _say_awaiting_review(store: GameStore, game: str, now: str | None) -> bool:
    """Say so if the game's phase waits for the coordinator's review (photographs or held mail)."""
    from dippouch.store.mail.review import review_state

    review = review_state(store, game, now=_now(now))
    if not review.held or review.deadline is None or _now(now) < review.deadline:
        return False
    awaits = nmsg(
        "%(game)s: %(phase)s AWAITS REVIEW (%(num)d photograph or held message): `dippouch mail review %(game)s`.",
        "%(game)s: %(phase)s AWAITS REVIEW (%(num)d photographs or held messages): `dippouch mail review %(game)s`.",
        len(review.items),
        game=game,
        phase=_phase(review.phase),
    )
    tell(out, awaits)
    return True


@app.command()
@friendly
def report(
    game: str,
    phase: str | None = typer.Argument(None, help="Phase name, e.g. 'Fall 1901 Movement' (default: the latest)."),
    phase_id: int | None = typer.Option(None, "--id", help="Phase id from `dippouch history` (abandoned phases too)."),
    abbrev: bool = AbbrevOption,
    pdf: str | None = typer.Option(
        None,
        "--pdf",
        help="Write a printable PDF instead: the map as an atlas (overview, regional sheets), then the results text.",
    ),
    paper: str = typer.Option("a4", "--paper", help="Paper for --pdf: a4, a3 or letter."),
    db: str | None = DbOption,
) -> None:
    """A phase's results in the Judge's plain-text layout (places by their full names; --abbrev for short)."""
    from dippouch.play.reports import stored_report
    from dippouch.store import history as store_history
    from dippouch.store import variant_copy

    store = _store(db)
    text = stored_report(store, game, phase, phase_id, full=not abbrev)
    if pdf is None:
        out.print(text, end="", markup=False)
        return
    if paper.lower() not in ("a4", "a3", "letter"):
        raise typer.BadParameter(f"use a4, a3 or letter, not {paper!r}", param_hint="--paper")
    try:
        from dippouch.render import render_phase_svg, results_pdf

        rec = store_history.phase_record(store, game, phase, phase_id)
        variant = variant_copy.variant_of(store, game)
        try:
            svg: str | None = render_phase_svg(variant, rec, orders=rec.get("status") != "open")
        except FileNotFoundError as e:  # the variant's map was never built: the results still print
            err.print(
                "note: " + said(msg("%(error)s; the PDF holds the results text only", error=str(e))), markup=False
            )
            svg = None
        data = results_pdf(svg, f"{rec['game']}: {rec['name']}", text, paper=paper, variant=variant)
    except ImportError as e:
        err.print(f"[red]error:[/red] {escape(str(e))}")
        raise typer.Exit(2) from None
    Path(pdf).write_bytes(data)
    tell(out, msg("wrote %(file)s (%(size)s bytes)", file=pdf, size=quantity(len(data))))


@app.command()
@friendly
def show(
    game: str,
    phase: str | None = typer.Argument(
        None, help="Phase name (default: the latest processed; on a new game, the open one)."
    ),
    phase_id: int | None = typer.Option(None, "--id", help="Phase id from `dippouch history`."),
    as_json: bool = typer.Option(False, "--json", help="Print the whole phase record as JSON."),
    abbrev: bool = AbbrevOption,
    db: str | None = DbOption,
    now: str | None = NowOption,
) -> None:
    """A phase in full: its position and every submission (each version, with time and lines).

    Before the deadline the open phase's orders are sealed: who sent which version and when, not what."""
    from dippouch.game import stored_msg
    from dippouch.names import order_text, place_list, unit_text
    from dippouch.store import history as store_history
    from dippouch.store import variant_copy

    store = _store(db)
    # Without a phase named, the latest processed one; on a new game, the open one.
    rec = store_history.phase_record(
        store, game, phase, phase_id, sealed_at=_now(now), open_ok=phase is None and phase_id is None
    )
    if as_json:
        out.print_json(data=rec)
        return
    v = variant_copy.variant_of(store, game)  # the game's own copy: a user variant's file may be out of reach
    full = not abbrev
    kind = rec["kind"]
    status = _worded(_PHASE_STATUSES, str(rec["status"]))
    tell(out, msg("%(phase)s (id %(id)s, %(status)s)", phase=_phase(rec["name"]), id=rec["id"], status=status))
    units: dict[str, list[str]] = {}
    for u in rec["position"]["units"]:
        units.setdefault(u["power"], []).append(unit_text(v, u["unit"], full=full))
    centres = rec["position"].get("supply_centers", {})
    for power in sorted(set(units) | set(centres)):
        owned = len(centres.get(power, []))
        if units.get(power):
            holds = nmsg(
                "%(power)s: %(units)s; %(num)d centre",
                "%(power)s: %(units)s; %(num)d centres",
                owned,
                power=power,
                units=", ".join(units[power]),
            )
        else:
            holds = nmsg(
                "%(power)s: no units; %(num)d centre", "%(power)s: no units; %(num)d centres", owned, power=power
            )
        tell(out, holds, indent="  ")
    for d in rec["position"].get("dislodged", []):
        unit = unit_text(v, d["unit"], full=full)
        places = ", ".join(place_list(v, d["retreats"], full=full))
        if places:
            dislodged = msg(
                "%(power)s: %(unit)s dislodged; may retreat to %(places)s", power=d["power"], unit=unit, places=places
            )
        else:
            dislodged = msg("%(power)s: %(unit)s dislodged; may retreat to nowhere", power=d["power"], unit=unit)
        tell(out, dislodged, indent="  ")
    if rec["submissions"]:
        tell(out, msg("Submissions:"))
    if rec.get("sealed"):
        tell(out, msg("(sealed until the deadline: who sent which version and when, not what)"), indent="  ")
    for sub in rec["submissions"]:
        marks: tuple[tuple[Msg | str, bool], ...] = (
            (pmsg("submission", "ready"), sub["ready"]),
            (pmsg("submission", "LATE"), sub["late"]),
            (msg("replaced nothing"), not sub.get("stands", True)),
            (msg("carried forward by a rollback"), sub.get("carried_from") is not None),
            (str(sub.get("source", "cli")), True),  # the --source word, as it is typed
        )
        flags = ", ".join(said(f) for f, on in marks if on)
        head = {"power": sub["power"], "version": sub["version"], "when": sub["submitted_at"]}
        if flags:
            sent = msg("%(power)s v%(version)s at %(when)s (%(flags)s)", **head, flags=flags)
        else:
            sent = msg("%(power)s v%(version)s at %(when)s", **head)
        tell(out, sent, indent="  ")
        if sub.get("reinstates"):
            tell(out, msg("version %(version)s stands", version=sub["reinstates"]), indent="      ")
        for ln in sub["lines"] or []:
            # A stored line's refusal and note are message values (their English beside them in older records),
            # said in the locale's language.
            error = stored_msg(ln.get("error_msg"), ln["error"])
            note = stored_msg(ln.get("note_msg"), ln.get("note"))
            if error is not None:
                verdict = said(msg("REJECTED: %(error)s", error=error))
            elif ln["order"] is None:
                verdict = said(note or msg("noted"))
            else:
                verdict = order_text(v, ln["order"], kind, full=full)
            out.print(f"      {ln['text']}  ->  {verdict}", markup=False)
            if error is None and ln["order"] is not None and note:
                tell(out, msg("note: %(note)s", note=note), indent="          ")


@app.command()
@friendly
def replay(
    game: str,
    phase: str | None = typer.Argument(None, help="Phase name (default: the latest processed)."),
    phase_id: int | None = typer.Option(None, "--id", help="Phase id from `dippouch history`."),
    db: str | None = DbOption,
) -> None:
    """Adjudicate a processed phase again from its stored position and orders; say if anything differs."""
    from dippouch.store.history import replay as replayed  # the store only when the command runs (--help maps none)

    same, diffs = replayed(_store(db), game, phase, phase_id)
    if same:
        tell(out, msg("Replayed: identical results and next position."))
    else:
        tell(out, msg("Replayed: %(diffs)s.", diffs=", ".join(said(d) for d in diffs)))
        raise typer.Exit(1)


@app.command()
@friendly
def history(game: str, db: str | None = DbOption) -> None:
    """Every phase ever opened, including those abandoned by a rollback."""
    from dippouch.store import history as store_history
    from dippouch.store import variant_copy

    store = _store(db)
    v = variant_copy.variant_of(store, game)
    letters = {p.name: p.letter for p in v.powers}
    table = Table(
        said(pmsg("table heading", "id")),
        said(pmsg("table heading", "phase")),
        said(pmsg("table heading", "status")),
        said(pmsg("table heading", "deadline (UTC)")),
        said(pmsg("table heading", "processed (UTC)")),
        said(pmsg("table heading", "subs")),
        said(pmsg("table heading", "missed")),
    )
    for row in store_history.history(store, game):
        table.add_row(
            str(row.id),
            _phase_said(row.name),
            said(_worded(_PHASE_STATUSES, row.status)),
            f"{row.deadline:%Y-%m-%d %H:%M}" if row.deadline else "-",
            f"{row.processed_at:%Y-%m-%d %H:%M}" if row.processed_at else "-",
            str(row.versions),
            " ".join(letters.get(p, p) for p in row.missed or []),
        )
    out.print(table)


@app.command()
@friendly
def extend(
    game: str,
    by: str = typer.Argument(..., help="How much longer: 2d, 12h, ..."),
    db: str | None = DbOption,
    now: str | None = NowOption,
) -> None:
    """Push the current deadline back."""
    from dippouch.game import format_duration, parse_duration
    from dippouch.play import clock
    from dippouch.play.fairness import INSTALLATION
    from dippouch.store import status as store_status

    store = _store(db)
    result = clock.extend(store, game, parse_duration(by), by=INSTALLATION, now=_now(now))
    st = store_status.status(store, game, now=_now(now))
    if result.deadline is not None:
        extended = msg(
            "%(phase)s: deadline extended to %(deadline)s.",
            phase=_phase(st.phase),
            deadline=_when(st.settings, result.deadline),
        )
    else:
        extended = msg(
            "%(phase)s: paused with %(left)s left on the clock.",
            phase=_phase(st.phase),
            left=format_duration(result.left or timedelta(0)),
        )
    tell(out, extended)


@app.command()
@friendly
def pause(game: str, db: str | None = DbOption, now: str | None = NowOption) -> None:
    """Stop the clock (nothing is processed while paused)."""
    from dippouch.game import format_duration
    from dippouch.play import clock
    from dippouch.play.fairness import INSTALLATION

    left = clock.pause(_store(db), game, by=INSTALLATION, now=_now(now)).left
    tell(out, msg("Paused %(game)s with %(left)s left on the clock.", game=game, left=format_duration(left)))


@app.command()
@friendly
def resume(game: str, db: str | None = DbOption, now: str | None = NowOption) -> None:
    """Restart the clock with the time that was left."""
    from dippouch.play import clock
    from dippouch.play.fairness import INSTALLATION
    from dippouch.store import status as store_status

    store = _store(db)
    deadline = clock.resume(store, game, by=INSTALLATION, now=_now(now))
    st = store_status.status(store, game, now=_now(now))
    resumed = msg(
        "Resumed %(game)s: %(phase)s due %(deadline)s.",
        game=game,
        phase=_phase(st.phase),
        deadline=_when(st.settings, deadline),
    )
    tell(out, resumed)


@app.command()
@friendly
def rollback(
    game: str,
    phase: str = typer.Argument(..., help="The phase to reopen, e.g. 'Fall 1901 Movement'."),
    db: str | None = DbOption,
    now: str | None = NowOption,
) -> None:
    """Reopen an earlier phase; the phases after it stay in the history, marked abandoned."""
    from dippouch.play import clock
    from dippouch.play.fairness import INSTALLATION
    from dippouch.store import status as store_status

    store = _store(db)
    rolled = clock.rollback(store, game, phase, by=INSTALLATION, now=_now(now))
    name, carried = rolled.phase, rolled.carried
    st = store_status.status(store, game, now=_now(now))
    rolled_back = msg(
        "Rolled %(game)s back to %(phase)s; orders due by %(deadline)s.",
        game=game,
        phase=_phase(name),
        deadline=_when(st.settings, st.deadline),
    )
    tell(out, rolled_back)
    if not carried:
        tell(out, msg("No orders had been sent for it: none carried forward."))
    else:
        tell(out, msg("Orders carried forward as they stood (version 1 of the reopened phase, not ready):"))
        for c in carried:
            version: dict[str, Arg] = {
                "power": c.power,
                "version": c.version,
                "when": c.submitted_at.strftime("%Y-%m-%d %H:%M"),
            }
            if c.late:
                kept = nmsg(
                    "%(power)s: version %(version)s of %(when)s UTC, %(num)d order (arrived after the old deadline)",
                    "%(power)s: version %(version)s of %(when)s UTC, %(num)d orders (arrived after the old deadline)",
                    c.orders,
                    **version,
                )
            else:
                kept = nmsg(
                    "%(power)s: version %(version)s of %(when)s UTC, %(num)d order",
                    "%(power)s: version %(version)s of %(when)s UTC, %(num)d orders",
                    c.orders,
                    **version,
                )
            tell(out, kept, indent="  ")


@app.command("export")
@friendly
def export_(
    game: str,
    file: str | None = typer.Argument(None, help="Write here (default: standard output)."),
    fmt: str = typer.Option("json", "--format", "-f", help="json (dippouch game file) or mila (MILA saved game)."),
    unsealed: bool = typer.Option(
        False,
        "--unsealed",
        help="Include the open phase's orders before its deadline (to move a running game); needs --reason, "
        "and is recorded in the game's log for the players to see.",
    ),
    reason: str | None = typer.Option(None, "--reason", help="Why the sealed orders are opened (with --unsealed)."),
    db: str | None = DbOption,
    now: str | None = NowOption,
) -> None:
    """Write a game to a file: dippouch's own JSON (everything) or a MILA `diplomacy` saved game.

    The open phase's orders stay sealed before its deadline unless --unsealed is given (with --reason:
    who opened them, when and why is recorded and shown to the players). The file is readable by you
    only (it holds the players' addresses, and with --unsealed their orders)."""
    import getpass

    from dippouch.game import GameError
    from dippouch.play import games
    from dippouch.play.fairness import INSTALLATION, Actor

    store = _store(db)
    if fmt == "json":
        if unsealed:
            try:
                user = getpass.getuser()
            except (KeyError, OSError):
                user = "unknown user"
            who = Actor(msg("the coordinator (%(user)s, dippouch export)", user=user), installation=True)
            data = games.export_file(store, game, by=who, now=_now(now), unsealed=True, reason=reason)
        else:
            data = games.export_file(store, game, by=INSTALLATION, now=_now(now))
            if data.get("sealed"):
                n = sum(1 for ph in data["phases"] for sub in ph["submissions"] if sub.get("sealed"))
                sealed = nmsg(
                    "%(num)d submission of the open phase is sealed in this file (--unsealed --reason TEXT "
                    "includes it, and the players are told).",
                    "%(num)d submissions of the open phase are sealed in this file (--unsealed --reason TEXT "
                    "includes them, and the players are told).",
                    n,
                )
                tell(err, sealed)
    elif fmt == "mila":
        from dippouch.play.mila import export_mila

        data = export_mila(store, game)
    else:
        raise GameError(_unknown_format(fmt))
    text = json.dumps(data, indent=1, ensure_ascii=False) + "\n"
    if file is None or file == "-":
        sys.stdout.write(text)
    else:
        _write_private(Path(file), text)
        tell(err, msg("Wrote %(game)s to %(file)s.", game=game, file=file))


def _unknown_format(fmt: str) -> Msg:
    return msg("unknown format %(format)s; choose json or mila", format=repr(fmt))


def _write_private(path: Path, text: str) -> None:
    """Write ``text`` to a file only its owner can read (0600), an existing file included: a game file holds
    the players' addresses and may hold sealed orders."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        os.fchmod(f.fileno(), 0o600)
        f.write(text)


@app.command("import")
@friendly
def import_(
    file: str = typer.Argument(..., help="Game file to read ('-' for standard input)."),
    name: str | None = typer.Option(None, "--name", help="Name for the imported game (default: the file's)."),
    fmt: str = typer.Option("json", "--format", "-f", help="json (dippouch game file) or mila (MILA saved game)."),
    db: str | None = DbOption,
    now: str | None = NowOption,
) -> None:
    """Read a game file into the database as a new game."""
    from dippouch.game import GameError
    from dippouch.play import games
    from dippouch.store import status as store_status

    data = _read_json(file)
    store = _store(db)
    if fmt == "json":
        new_name = games.import_file(store, data, name=name)
    elif fmt == "mila":
        from dippouch.play.mila import import_mila

        new_name = import_mila(store, data, name=name, now=_now(now))
    else:
        raise GameError(_unknown_format(fmt))
    st = store_status.status(store, new_name, now=_now(now))
    if st.ending is not None:
        imported = msg(
            "Imported game %(game)s (%(variant)s), %(ending)s",
            game=new_name,
            variant=st.variant,
            ending=st.ending.message,
        )
    else:
        imported = msg(
            "Imported game %(game)s (%(variant)s), at %(phase)s",
            game=new_name,
            variant=st.variant,
            phase=_phase(st.phase),
        )
    tell(out, imported)


@app.command()
@friendly
def calendar(
    game: str,
    file: str | None = typer.Argument(None, help="Write here (default: standard output)."),
    db: str | None = DbOption,
) -> None:
    """The game's deadlines as an iCalendar (.ics) feed players can subscribe to."""
    from dippouch.report import calendar_rows, deadlines_ical, upcoming_deadlines
    from dippouch.store import history as store_history
    from dippouch.store import status as store_status

    store = _store(db)
    st = store_status.status(store, game, now=datetime.now(UTC))
    rows = calendar_rows(store_history.history(store, game))
    upcoming: list[tuple[str, datetime]] = []
    if st.state == "active" and st.phase and st.deadline and st.game_variant is not None:
        # The same feed as the web's: the deadlines to come, marked tentative.
        upcoming = list(upcoming_deadlines(st.game_variant.calendar, st.settings, st.phase, st.deadline))
    data = deadlines_ical(game, st.settings, rows, upcoming=upcoming)
    if file is None or file == "-":
        sys.stdout.write(data.decode("utf-8"))
    else:
        Path(file).write_bytes(data)
        wrote = nmsg(
            "Wrote %(num)d deadline of %(game)s to %(file)s.",
            "Wrote %(num)d deadlines of %(game)s to %(file)s.",
            len(rows),
            game=game,
            file=file,
        )
        tell(err, wrote)
