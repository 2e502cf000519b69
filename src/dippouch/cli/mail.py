"""``dippouch mail ...``: orders by e-mail in, receipts, results, reminders and notices out.

Every command imports the mail machinery (and SQLAlchemy through the store) inside its function, so
``dippouch --help`` and the other commands do not pay for it. Passwords are never options: a
``--password`` given anyway is refused with the reason and where the password goes instead.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer

from dippouch.cli import app, command_group
from dippouch.cli.errors import cli_language
from dippouch.cli.game import DbOption, NowOption, _now, _store, err, friendly, out
from dippouch.cli.words import said, tell
from dippouch.core.messages import Arg, Msg, PhaseName, choices, msg, nmsg, pmsg, quantity

if TYPE_CHECKING:
    from datetime import datetime

    from dippouch.game import LineCheck

I18N_DOMAIN = "cli"
"""The catalogue of the command line's own words (its refusals, said in the locale's language)."""

mail_app = command_group(
    help="Orders by e-mail (IMAP, .eml, mbox, Maildir), receipts, results, reminders (SMTP queue).",
    no_args_is_help=True,
)
app.add_typer(mail_app, name="mail")

ConfigOption = typer.Option(None, "--config", help="Mail settings file (TOML; default $DIPPOUCH_MAIL_CONFIG).")
HostOption = typer.Option(None, "--host", help="Server host (default from the settings file or environment).")
PortOption = typer.Option(None, "--port", help="Server port.")
UserOption = typer.Option(None, "--user", help="Login name (the password comes from the environment or a file).")
SecurityOption = typer.Option(None, "--security", help="tls (default), starttls, or none (this machine only).")
CaOption = typer.Option(None, "--ca-file", help="CA certificate(s) for a server with its own certificate.")
PasswordTrap = typer.Option(None, "--password", "--pass", hidden=True)
ObserverOption = typer.Option(None, "--observer", help="An address that gets results too (repeatable).")
FilesArgument = typer.Argument(
    None, help=".eml files, folders of them, an mbox or a Maildir. Without: the IMAP mailbox."
)


def _reason(english: str, why: Msg | None) -> Arg:
    """What became of a message, as a message's value (said in the reader's language); a reason kept as text
    (from before reasons were messages, or imported so) as it is: read as a template, a "%" in it would break it."""
    return english if why is None else why


def _minute(moment: datetime) -> str:
    """A time as the mail log writes it (UTC, to the minute): a value inside a message, the same in every
    language, as the review page writes it."""
    return f"{moment:%Y-%m-%d %H:%M}"


def _refuse_password(value: str | None, kind: str) -> None:
    if value is not None:
        from dippouch.game import GameError

        raise GameError(
            msg(
                "passwords are never taken on the command line (other users see them in the process list, and they "
                "stay in your shell's history); set DIPPOUCH_%(kind)s_PASSWORD, or DIPPOUCH_%(kind)s_PASSWORD_FILE "
                "(a file only you can read), or password_file in the mail settings file",
                kind=kind.upper(),
            )
        )


def _overrides(**kw: Any) -> dict[str, Any]:
    return {k: v for k, v in kw.items() if v is not None}


@mail_app.command("setup")
@friendly
def setup(
    game: str,
    title: list[str] | None = typer.Option(None, "--title", help="A name the game goes by in subjects (repeatable)."),  # noqa: B008
    alias: list[str] | None = typer.Option(None, "--alias", help="POWER=NAME: another name for a power (repeatable)."),  # noqa: B008
    reminders: str | None = typer.Option(None, "--reminders", help="Lead times before deadlines, e.g. 48h,12h."),
    maps: str | None = typer.Option(None, "--maps", help="Attach maps to results: winter (default), every, none."),
    observer: list[str] | None = ObserverOption,
    disable: bool = typer.Option(False, "--disable", help="Stop results, reminders and notices for this game."),
    review_wait: str | None = typer.Option(
        None,
        "--review-wait",
        help="How long after a deadline a phase with photographs waits for your review before it is processed "
        "without them (e.g. 24h; 'none': until you release it, the default).",
    ),
    proof: str | None = typer.Option(
        None,
        "--proof",
        help="required (default): mail must carry the player's token or pass DKIM/SPF at a trusted server, "
        "else it is held; from-address: the From header alone (only for a mail system that enforces it).",
    ),
    trust_auth: list[str] | None = typer.Option(  # noqa: B008
        None,
        "--trust-auth",
        help="Your receiving server's name in Authentication-Results (its authserv-id): its DKIM/SPF passes "
        "prove a sender (repeatable; 'none' clears).",
    ),
    db: str | None = DbOption,
    now: str | None = NowOption,
) -> None:
    """Set up a game's mail: the names subjects may use, reminders, maps, observers, the review wait, what
    proves a sender. Results and notices are mailed for what happens from now on."""
    from dippouch.game import GameError
    from dippouch.mail.notices import setup as do_setup
    from dippouch.store import games as store_games
    from dippouch.store.repository import clean_address

    store = _store(db)
    changes: dict[str, Any] = {}
    if title:
        changes["titles"] = [t.strip() for t in title if t.strip()]
    if alias:
        current: dict[str, list[str]] = {}
        variant_powers = {p for p, *_ in store_games.players(store, game)}
        for a in alias:
            power, eq, name = a.partition("=")
            if not eq or not name.strip():
                raise GameError(
                    msg("--alias %(alias)s must read POWER=NAME, e.g. --alias 'Crown=Charles Stuart'", alias=repr(a))
                )
            match = next((p for p in variant_powers if p.lower() == power.strip().lower()), None)
            if match is None:
                raise GameError(
                    msg(
                        "--alias %(alias)s: no power %(power)s; powers: %(powers)s",
                        alias=repr(a),
                        power=repr(power.strip()),
                        powers=", ".join(sorted(variant_powers)),
                    )
                )
            current.setdefault(match, []).append(name.strip())
        changes["aliases"] = current
    if reminders is not None:
        changes["reminders"] = [x.strip() for x in reminders.split(",") if x.strip()]
    if maps is not None:
        changes["maps"] = maps.strip().lower()
    if observer:
        changes["observers"] = [clean_address(o) for o in observer]
    if disable:
        changes["enabled"] = False
    if review_wait is not None:
        from dippouch.game import parse_duration

        text = review_wait.strip().lower()
        if text in ("none", "off", "0", ""):
            changes["review_wait"] = ""
        else:
            parse_duration(text)  # a clear error for "24 hours", "tomorrow"...
            changes["review_wait"] = text
    if proof is not None:
        from dippouch.settings import PROOF_MODES

        mode = proof.strip().lower()
        if mode not in PROOF_MODES:
            raise GameError(msg("--proof %(proof)s: choose %(modes)s", proof=repr(proof), modes=choices(PROOF_MODES)))
        changes["proof"] = mode
    if trust_auth:
        names = [t.strip().lower() for t in trust_auth if t.strip()]
        bad = [t for t in names if t != "none" and not all(c.isalnum() or c in ".-_" for c in t)]
        if bad:
            raise GameError(
                msg("--trust-auth %(name)s is not a server name (e.g. --trust-auth mx.w3k.uk)", name=repr(bad[0]))
            )
        changes["trust_auth"] = [t for t in names if t != "none"]
    cfg = do_setup(store, game, now=_now(now), changes=changes)
    # Whole sentences for on and OFF: a word glued into a sentence cannot agree with it in another language.
    if cfg.get("enabled", True):
        tell(out, msg("Mail for %(game)s: on since %(since)s.", game=game, since=cfg["since"]))
    else:
        tell(out, msg("Mail for %(game)s: OFF since %(since)s.", game=game, since=cfg["since"]))
    tell(out, msg("subjects may call it: %(names)s", names=", ".join([game, *cfg.get("titles", [])])), indent="  ")
    for p, names in sorted(cfg.get("aliases", {}).items()):
        tell(out, msg("%(power)s also: %(names)s", power=p, names=", ".join(names)), indent="  ")
    tell(
        out,
        msg(
            "reminders: %(leads)s before each deadline",
            leads=", ".join(cfg.get("reminders", ["48h", "12h"])),  # lead times as the option writes them
        ),
        indent="  ",
    )
    tell(out, msg("maps with results: %(maps)s", maps=cfg.get("maps", "winter")), indent="  ")  # the --maps word
    wait = cfg.get("review_wait")
    if wait:
        tell(
            out,
            msg(
                "photographs at a deadline: the phase waits up to %(wait)s for your review, then goes ahead "
                "without them",
                wait=wait,
            ),
            indent="  ",
        )
    else:
        tell(
            out, msg("photographs at a deadline: the phase waits for your review (`dippouch mail review`)"), indent="  "
        )
    if cfg.get("observers"):
        tell(out, msg("observers: %(addresses)s", addresses=", ".join(cfg["observers"])), indent="  ")
    from dippouch.play.mail_intake import proof_mode

    if proof_mode(cfg) == "required":
        trusted = ", ".join(cfg.get("trust_auth", []))
        if trusted:
            tell(
                out,
                msg(
                    "a sender is proven by their token (taught in receipts; `dippouch mail tokens`) or by DKIM/SPF "
                    "passed at %(servers)s; other mail is held until the player confirms it",
                    servers=trusted,
                ),
                indent="  ",
            )
        else:
            tell(
                out,
                msg(
                    "a sender is proven by their token (taught in receipts; `dippouch mail tokens`) or by DKIM/SPF "
                    "passed at no server (`--trust-auth NAME`); other mail is held until the player confirms it"
                ),
                indent="  ",
            )
    else:
        tell(out, msg("a sender is proven by the From header alone (--proof from-address)"), indent="  ")
    missing = [p for p, (_, addr) in store_games.emails(store, game).items() if not addr]
    if missing:
        tell(
            out,
            msg(
                "no address yet for: %(powers)s (`dippouch players email %(game)s POWER ADDRESS`)",
                powers=", ".join(missing),
                game=game,
            ),
            indent="  ",
        )


@mail_app.command("tokens")
@friendly
def tokens(game: str, db: str | None = DbOption, now: str | None = NowOption) -> None:
    """Each player's token (their proof that mail is theirs), to hand to them yourself, e.g. by post.
    Receipts teach it too. A token belongs to the registered address: a new address gets a new one."""
    from dippouch.play import mail_intake
    from dippouch.store import games as store_games
    from dippouch.store.mail.games import game_id as find_game

    store = _store(db)
    game_id = find_game(store, game)
    for power, (_name, addr) in sorted(store_games.emails(store, game).items()):
        if not addr:
            tell(
                out,
                msg(
                    "%(power)s: no address (`dippouch players email %(game)s %(power)s ADDRESS`)",
                    power=power,
                    game=game,
                ),
                indent="  ",
            )
            continue
        # A power, its address and its token: names and a key, no words to say in another language.
        out.print(f"  {power} <{addr}>: {mail_intake.token(store, game_id, power, addr, now=_now(now))}", markup=False)


@mail_app.command("fetch")
@friendly
def fetch(
    files: list[str] | None = FilesArgument,
    host: str | None = HostOption,
    port: int | None = PortOption,
    user: str | None = UserOption,
    security: str | None = SecurityOption,
    mailbox: str | None = typer.Option(None, "--mailbox", help="IMAP mailbox (default INBOX)."),
    ca_file: str | None = CaOption,
    config: str | None = ConfigOption,
    password: str | None = PasswordTrap,
    db: str | None = DbOption,
    now: str | None = NowOption,
) -> None:
    """Take in new messages: each becomes a version of a power's orders (with a receipt), or is held, late,
    or answered with the reason and the subject that would work. Order content is never printed. Messages an
    earlier fetch claimed and did not finish (it was killed) are taken in first."""
    from dippouch.mail.intake import resume_unfinished, take_in
    from dippouch.mail.settings import load_settings
    from dippouch.mail.sources import file_messages, imap_messages

    _refuse_password(password, "imap")
    store = _store(db)
    moment = _now(now)
    where: Arg
    if files:
        sources = [m for f in files for m in file_messages(f)]
        where = nmsg("%(num)d file argument", "%(num)d file arguments", len(files))
    else:
        settings = load_settings(
            "imap",
            _overrides(host=host, port=port, user=user, security=security, mailbox=mailbox, ca_file=ca_file),
            config,
        ).check()
        sources = imap_messages(store, settings)  # type: ignore[assignment]
        where = f"{settings.where()}/{settings.mailbox}"
    counts: dict[str, int] = {}
    resumed = resume_unfinished(store, now=moment)
    for o in resumed:
        counts[o.status] = counts.get(o.status, 0) + 1
        out.print(o.line(cli_language()), markup=False)
    if resumed:
        tell(
            out,
            nmsg(
                "%(num)d message left unfinished by an earlier fetch taken in again.",
                "%(num)d messages left unfinished by an earlier fetch taken in again.",
                len(resumed),
            ),
        )
    for raw, received, origin in sources:
        o = take_in(store, raw, now=moment, received=received, origin=origin)
        counts[o.status] = counts.get(o.status, 0) + 1
        out.print(o.line(cli_language()), markup=False)
    total = sum(counts.values())
    # Each count with its status as stored: the word `mail list --status` takes and each line above shows.
    summary: Arg = ", ".join(f"{n} {k}" for k, n in sorted(counts.items())) or msg("nothing new")
    tell(
        out,
        nmsg(
            "%(num)d message from %(where)s: %(summary)s. Replies and receipts are queued: `dippouch mail send`.",
            "%(num)d messages from %(where)s: %(summary)s. Replies and receipts are queued: `dippouch mail send`.",
            total,
            where=where,
            summary=summary,
        ),
    )
    if counts.get("missed"):
        tell(
            out,
            msg(
                "Messages marked missed came on time but were fetched after their phase was processed: fetch before "
                "processing (workers and `serve` do it themselves when IMAP is set up)."
            ),
        )


@mail_app.command("send")
@friendly
def send(
    host: str | None = HostOption,
    port: int | None = PortOption,
    user: str | None = UserOption,
    security: str | None = SecurityOption,
    ca_file: str | None = CaOption,
    sender: str | None = typer.Option(None, "--from", help="The From address (default $DIPPOUCH_MAIL_FROM)."),
    config: str | None = ConfigOption,
    queue_only: bool = typer.Option(False, "--queue-only", help="Queue results, reminders and notices; send nothing."),
    password: str | None = PasswordTrap,
    db: str | None = DbOption,
    now: str | None = NowOption,
) -> None:
    """Queue what is due (results of processed phases, reminders, notices), then send the queue."""
    from dippouch.mail.notices import queue_notices, queue_reminders
    from dippouch.mail.outbox import send_due
    from dippouch.mail.settings import load_settings

    _refuse_password(password, "smtp")
    store = _store(db)
    moment = _now(now)
    n = queue_notices(store, moment)
    r = queue_reminders(store, moment)
    # Two counts, each choosing its own form: each is a message of its own inside the sentence.
    tell(
        out,
        msg(
            "Queued %(notices)s and %(reminders)s.",
            notices=nmsg("%(num)d result/notice message", "%(num)d result/notice messages", n.messages),
            reminders=nmsg("%(num)d reminder", "%(num)d reminders", r.messages),
        ),
    )
    if queue_only:
        return
    settings = load_settings(
        "smtp",
        _overrides(host=host, port=port, user=user, security=security, ca_file=ca_file, **{"from": sender}),
        config,
        store=store,  # the server saved on the desk's mail page, when neither options, file nor environment name one
    ).check()
    report = send_due(store, moment, settings)
    tell(
        out,
        msg(
            "Sent %(sent)s; to retry later %(retry)s; refused for good %(failed)s.",
            sent=quantity(len(report.sent)),
            retry=quantity(len(report.retry)),
            failed=quantity(len(report.failed)),
        ),
    )
    for row_id, why in report.failed:
        # The server's own words, as it gave them.
        tell(
            out,
            msg("#%(id)s refused: %(why)s (`dippouch mail retry %(id)s` after fixing it)", id=row_id, why=why),
            indent="  ",
        )
    if report.server_down:
        tell(
            err,
            msg(
                "The SMTP server is not taking mail now (%(why)s); nothing is lost, the queue waits.",
                why=report.server_down,
            ),
        )


@mail_app.command("list")
@friendly
def list_(
    game: str | None = typer.Argument(None, help="Only this game's messages."),
    status: str | None = typer.Option(None, "--status", help="Only messages with this status (held, late, ...)."),
    db: str | None = DbOption,
) -> None:
    """Messages taken in: who sent what for which power and phase, when, and what became of it. Never
    their content (sealed until the deadline; `mail show` after it)."""
    from rich.table import Table

    from dippouch.store.mail.inbox import messages

    table = Table(
        "#",
        said(pmsg("table heading", "received (UTC)")),
        said(pmsg("table heading: a message's sender", "from")),  # "from" alone is a variant's origin
        said(pmsg("table heading", "game")),
        said(pmsg("table heading", "power")),
        said(pmsg("table heading", "status")),
        said(pmsg("table heading", "attachments")),
        said(pmsg("table heading", "why")),
    )
    found = messages(_store(db), game=game, status=status)
    if not found:
        # An empty table reads as a fault; say what was looked for instead.
        if game is not None and status is not None:
            none = msg("No message for %(game)s with status %(status)s.", game=game, status=status)
        elif game is not None:
            none = msg("No message for %(game)s has been taken in.", game=game)
        elif status is not None:
            none = msg("No message with status %(status)s.", status=status)
        else:
            none = msg("No message has been taken in yet: `dippouch mail fetch` reads the mailbox.")
        tell(out, none)
        return
    for m in found:
        table.add_row(
            str(m.id),
            f"{m.received_at:%Y-%m-%d %H:%M}",
            m.sender,
            m.game or "-",
            m.power or "-",
            m.status,  # the stored word `--status` takes
            str(len(m.attachments)),
            m.reason if m.why is None else said(m.why),
        )
    out.print(table)


@mail_app.command("show")
@friendly
def show(
    mail_id: int,
    unseal: bool = typer.Option(
        False, "--unseal", help="Show a message that fits no game even while games are sealed (it may hold orders)."
    ),
    db: str | None = DbOption,
    now: str | None = NowOption,
) -> None:
    """One message in full, once the deadline of the phase it may concern has passed (before it: who,
    when, what became of it). A message for no known phase is sealed while any game's phase is."""
    from dippouch.letters.message import parse_message
    from dippouch.store.mail.inbox import message_and_phases
    from dippouch.store.repository import is_sealed

    moment = _now(now)
    m, phases = message_and_phases(_store(db), mail_id)
    ph = next((p for p in phases if is_sealed(p.status, p.deadline, moment)), None)
    sealed = ph is not None and not (unseal and m.game_id is None)
    tell(
        out,
        msg(
            "#%(id)s from %(sender)s, received %(time)s UTC: %(status)s",
            id=m.id,
            sender=m.sender,
            time=_minute(m.received_at),
            status=m.status,  # the stored word `mail list --status` takes
        ),
    )
    tell(out, msg("Subject: %(subject)s", subject=m.subject))
    tell(out, msg("What became of it: %(reason)s", reason=_reason(m.reason, m.why)))
    for aid, filename, ctype, size in m.attachments:
        tell(
            out,
            msg(
                "attachment #%(id)s: %(file)s (%(type)s, %(size)s bytes)",
                id=aid,
                file=filename,
                type=ctype,
                size=quantity(size),
            ),
            indent="  ",
        )
    if sealed:
        if ph is not None:
            tell(out, msg("Its content is sealed until the deadline of %(phase)s.", phase=PhaseName(ph.name)))
        else:
            tell(out, msg("Its content is sealed until the deadline of its phase."))
        return
    mail = parse_message(m.raw)
    out.print("", markup=False)
    out.print(mail.body, markup=False)  # the sender's own text, as they wrote it


@mail_app.command("apply")
@friendly
def apply(
    mail_id: int,
    power: str | None = typer.Option(None, "--power", help="Apply as this power (default: the subject's)."),
    db: str | None = DbOption,
    now: str | None = NowOption,
) -> None:
    """Apply a held message (from an address not registered for the power) on your word as coordinator."""
    from dippouch.play.held_mail import apply_held

    store = _store(db)
    moment = _now(now)
    o = apply_held(store, mail_id, now=moment, power=power)
    tell(out, msg("Message #%(id)s applied: %(why)s.", id=mail_id, why=o.reason))
    from dippouch.store.mail.review import game_of_message

    _after_decision(store, game_of_message(store, mail_id), moment)


@mail_app.command("dismiss")
@friendly
def dismiss(mail_id: int, db: str | None = DbOption) -> None:
    """Set a held message aside for good (it stays in the record)."""
    from dippouch.play.held_mail import dismiss as dismiss_held

    store = _store(db)
    dismiss_held(store, mail_id)
    tell(out, msg("Message #%(id)s dismissed.", id=mail_id))
    from dippouch.store.mail.review import game_of_message

    _after_decision(store, game_of_message(store, mail_id), _now(None))


@mail_app.command("outbox")
@friendly
def outbox(
    show_all: bool = typer.Option(False, "--all", help="Sent messages too."),
    db: str | None = DbOption,
) -> None:
    """The outbound queue: to whom, what about, its state. Never the bodies (receipts repeat orders)."""
    from rich.table import Table

    from dippouch.store.mail.outbox import outbox_entries

    table = Table(
        "#",
        said(pmsg("table heading", "kind")),
        said(pmsg("table heading", "to")),
        said(pmsg("table heading", "subject")),
        said(pmsg("table heading", "status")),
        said(pmsg("table heading", "tries")),
        said(pmsg("table heading", "next try / sent (UTC)")),
        said(pmsg("table heading", "last error")),
    )
    entries = outbox_entries(_store(db), include_sent=show_all)
    if not entries:
        tell(
            out,
            msg("Nothing is waiting to be sent.")
            if not show_all
            else msg("The outbox is empty: nothing was ever queued."),
        )
        return
    for r in entries:
        when = r.sent_at if r.status == "sent" else r.next_attempt_at
        table.add_row(
            str(r.id),
            r.kind,  # the queue's own words, as stored
            r.to_addr,
            r.subject,
            r.status,
            str(r.attempts),
            f"{when:%Y-%m-%d %H:%M}" if when else "-",
            r.last_error or "",
        )
    out.print(table)


@mail_app.command("retry")
@friendly
def retry(outbox_id: int, db: str | None = DbOption, now: str | None = NowOption) -> None:
    """Queue a message the server refused (or one waiting for its next try) to go at the next `mail send`."""
    from dippouch.play import mail_out

    mail_out.retry(_store(db), outbox_id, _now(now))
    tell(out, msg("Message #%(id)s goes at the next `dippouch mail send`.", id=outbox_id))


@mail_app.command("ocr")
@friendly
def ocr(game: str, db: str | None = DbOption, now: str | None = NowOption) -> None:
    """After the deadline: read the photographs sent for the open phase (tesseract) and show each proposed
    transcription with every line's verdict. Nothing is applied until you confirm it."""
    from dippouch.mail.ocr import ocr_missing, proposals

    why = ocr_missing()
    if why:
        tell(
            err,
            msg(
                "OCR is not available: %(why)s. The photographs are kept; type them in with `dippouch submit`.",
                why=why,
            ),
        )
    found = proposals(_store(db), game, now=_now(now), run=why is None)
    if not found:
        tell(out, msg("No photographs for the open phase."))
    for p in found:
        state = (
            msg("confirmed as version %(version)s", version=p.confirmed_as)
            if p.confirmed_as
            else msg("proposed, not applied")
        )
        tell(
            out,
            msg(
                "attachment #%(id)s (%(file)s), %(power)s, received %(time)s UTC: %(state)s",
                id=p.attachment_id,
                file=p.filename,
                power=p.power,
                time=_minute(p.received),
                state=state,
            ),
        )
        if p.problem:
            tell(out, msg("could not be read: %(problem)s", problem=p.problem), indent="  ")
        for ln in p.lines:
            tell(out, _verdict(ln, ln.order or ""), indent="  ")
        for units, what in p.unordered:
            if units:
                tell(out, msg("left out: %(units)s: %(what)s", units=", ".join(units), what=what), indent="  ")
            else:
                tell(out, msg("left out: %(what)s", what=what), indent="  ")
    if found:
        tell(out, msg("Confirm one with `dippouch mail confirm ATTACHMENT` (or --file with your corrected text)."))


@mail_app.command("confirm")
@friendly
def confirm_(
    attachment: int,
    file: str | None = typer.Option(None, "--file", help="Your corrected transcription instead of the one read."),
    db: str | None = DbOption,
    now: str | None = NowOption,
) -> None:
    """Apply a transcription: it becomes a version of the power's orders, received when the photo came."""
    from dippouch.cli.game import _read_text
    from dippouch.mail.ocr import confirm

    store = _store(db)
    moment = _now(now)
    text = _read_text(file) if file else _as_shown(store, attachment, moment)
    power, version = confirm(store, attachment, now=moment, text=text)
    tell(
        out,
        msg(
            "Transcription of attachment #%(id)s recorded as %(power)s version %(version)s (source photo).",
            id=attachment,
            power=power,
            version=version,
        ),
    )
    from dippouch.store.mail.review import game_of_attachment

    _after_decision(store, game_of_attachment(store, attachment), moment)


def _as_shown(store: Any, attachment: int, moment: Any) -> str | None:
    """The transcription exactly as `mail ocr` and `mail review` show it (their proposal's text, heading
    lines taken off the same way), so that confirming "as read" records what the coordinator saw. ``None``
    where there is none to show (not read yet, or no such photograph): `confirm` then says why."""
    from dippouch.game import GameError
    from dippouch.mail.ocr import proposals
    from dippouch.store.mail.review import game_of_attachment

    game = game_of_attachment(store, attachment)
    if not game:
        return None
    try:
        shown = next((p for p in proposals(store, game, now=moment, run=False) if p.attachment_id == attachment), None)
    except GameError:
        return None  # sealed, or no open phase: `confirm` refuses with the reason
    return shown.text if shown is not None else None


def _verdict(ln: LineCheck, order: str) -> Msg:
    """A line of a transcription with its verdict, in columns: the translations pad their "ok" to the width of
    their "REJECTED", so the orders stay aligned in any language."""
    if ln.error is None:
        return msg("line %(line)2d  ok        %(order)s", line=ln.line, order=order)
    return msg("line %(line)2d  REJECTED  %(text)s: %(error)s", line=ln.line, text=ln.text.strip(), error=ln.error)


def _verdicts(game_variant: Any, kind: Any, lines: list[LineCheck]) -> list[Msg]:
    """Each line of a proposed transcription with its verdict, orders in the map's full names."""
    from dippouch.names import order_text

    return [_verdict(ln, order_text(game_variant, ln.order, kind) if ln.order else "") for ln in lines]


@mail_app.command("review")
@friendly
def review(
    game: str,
    save: str | None = typer.Option(None, "--save", help="Also write each photograph to this folder, to look at."),
    db: str | None = DbOption,
    now: str | None = NowOption,
) -> None:
    """What waits for you in the open phase: each photograph with its proposed transcription and every
    line's verdict, and held messages; whether the phase waits for you; what to type next. Before the
    deadline: who sent photographs and when, never what."""
    from pathlib import Path

    from dippouch.mail.ocr import ocr_missing, proposals
    from dippouch.store import variant_copy
    from dippouch.store.mail.review import review_state

    store = _store(db)
    moment = _now(now)
    st = review_state(store, game, now=moment)
    if st.phase is None:
        tell(out, msg("%(game)s has no open phase.", game=st.game))
        return
    phase = PhaseName(st.phase)
    deadline: Arg = f"{st.deadline:%Y-%m-%d %H:%M} UTC" if st.deadline else pmsg("a deadline", "none (paused)")
    before = st.deadline is None or moment < st.deadline
    if before:
        tell(
            out,
            msg("%(game)s, %(phase)s: deadline %(deadline)s (not yet).", game=st.game, phase=phase, deadline=deadline),
        )
    else:
        tell(
            out,
            msg("%(game)s, %(phase)s: deadline %(deadline)s (passed).", game=st.game, phase=phase, deadline=deadline),
        )
    if before:
        for power, times in sorted(st.photos.items()):
            tell(
                out,
                nmsg(
                    "%(power)s: %(num)d photograph, received %(times)s UTC (sealed until the deadline)",
                    "%(power)s: %(num)d photographs, received %(times)s UTC (sealed until the deadline)",
                    len(times),
                    power=power,
                    times=", ".join(f"{t:%Y-%m-%d %H:%M}" for t in times),
                ),
                indent="  ",
            )
        held = [item for item in st.items if item.kind == "held"]
        for item in held:
            tell(
                out,
                msg(
                    "%(item)s: `dippouch mail apply %(id)s` or `dippouch mail dismiss %(id)s`",
                    item=item.describe(),
                    id=item.mail_id,
                ),
                indent="  ",
            )
        if not st.photos and not held:
            tell(out, msg("Nothing waits for review."))
        else:
            tell(out, msg("The review comes after the deadline; the phase waits for it then."))
        return
    why = ocr_missing()
    if why:
        tell(
            err,
            msg("OCR is not available: %(why)s. Look at the photographs (--save DIR) and type them in.", why=why),
        )
    found = proposals(store, game, now=moment, run=why is None)
    v = variant_copy.variant_of(store, game)
    kind = v.calendar.kind(v.calendar.parse(st.phase))
    folder = Path(save) if save else None
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
    for p in found:
        state: Msg
        if p.confirmed_as:
            state = msg("confirmed as version %(version)s", version=p.confirmed_as)
        elif p.set_aside:
            state = msg("set aside (%(why)s)", why=p.set_aside)
        else:
            state = msg("WAITS FOR YOU")
        tell(
            out,
            msg(
                "photograph #%(id)s (%(file)s, %(type)s) from %(power)s, received %(time)s UTC: %(state)s",
                id=p.attachment_id,
                file=p.filename,
                type=p.content_type,
                power=p.power,
                time=_minute(p.received),
                state=state,
            ),
        )
        if folder is not None:
            target = folder / f"{p.attachment_id}-{Path(p.filename).name or 'photo'}"
            target.write_bytes(_attachment_bytes(store, p.attachment_id))
            tell(out, msg("saved as %(file)s", file=str(target)), indent="  ")
        if p.problem:
            tell(out, msg("could not be read: %(problem)s", problem=p.problem), indent="  ")
        elif p.text is not None and not p.confirmed_as and not p.set_aside:
            tell(out, msg("proposed transcription:"), indent="  ")
            for line in _verdicts(v, kind, p.lines):
                tell(out, line, indent="    ")
        if not p.confirmed_as and not p.set_aside:
            if p.text is not None:
                next_step = msg(
                    "next: `dippouch mail confirm %(id)s` (as read) or `dippouch mail confirm %(id)s --file "
                    "corrected.txt`; `dippouch mail set-aside %(id)s` if it holds no orders",
                    id=p.attachment_id,
                )
            else:
                next_step = msg(
                    "next: `dippouch mail confirm %(id)s --file corrected.txt`; `dippouch mail set-aside %(id)s` "
                    "if it holds no orders",
                    id=p.attachment_id,
                )
            tell(out, next_step, indent="  ")
    for item in st.items:
        if item.kind == "held":
            tell(
                out,
                msg(
                    "%(item)s: WAITS FOR YOU; next: `dippouch mail apply %(id)s` (on your word) or "
                    "`dippouch mail dismiss %(id)s`",
                    item=item.describe(),
                    id=item.mail_id,
                ),
            )
    if st.released:
        tell(out, msg("Released: %(phase)s is processed with what stands, at the next look.", phase=phase))
    elif st.held:
        if st.wait_until is not None:
            awaiting = msg(
                "AWAITING REVIEW: %(phase)s is not processed until each item above is settled. It goes ahead "
                "without them at %(time)s UTC (the game's review wait). To process it now, leaving the rest "
                "unreviewed (named in the results): `dippouch mail release %(game)s`.",
                phase=phase,
                time=_minute(st.wait_until),
                game=game,
            )
        else:
            awaiting = msg(
                "AWAITING REVIEW: %(phase)s is not processed until each item above is settled. To process it now, "
                "leaving the rest unreviewed (named in the results): `dippouch mail release %(game)s`.",
                phase=phase,
                game=game,
            )
        tell(out, awaiting)
    elif found or st.items:
        tell(
            out,
            msg(
                "Nothing waits for you any more: %(phase)s is processed at the next `dippouch process` or worker look.",
                phase=phase,
            ),
        )
    else:
        tell(out, msg("No photographs or held messages for this phase."))


def _attachment_bytes(store: Any, attachment_id: int) -> bytes:
    from dippouch.store.mail.review import attachment_data

    return attachment_data(store, attachment_id)


@mail_app.command("release")
@friendly
def release_(game: str, db: str | None = DbOption, now: str | None = NowOption) -> None:
    """End the review of the open phase (after its deadline): it is processed with what stands at the next
    `dippouch process` or worker look; photographs and held messages still unreviewed are named in its
    results and not used."""
    from dippouch.play.held_mail import release

    st = release(_store(db), game, now=_now(now))
    tell(
        out,
        msg(
            "%(phase)s of %(game)s is released: it is processed at the next `dippouch process` or worker look.",
            phase=PhaseName(st.phase) if st.phase else "-",
            game=st.game,
        ),
    )
    for item in st.items:
        tell(out, msg("unreviewed, not used: %(item)s", item=item.describe()), indent="  ")


@mail_app.command("set-aside")
@friendly
def set_aside_(
    attachment: int,
    why: str = typer.Option("", "--why", help="Why (it is named in the results)."),
    db: str | None = DbOption,
    now: str | None = NowOption,
) -> None:
    """A photograph that holds no orders (after the deadline): it no longer holds the phase for review."""
    from dippouch.play.held_mail import set_aside

    store = _store(db)
    moment = _now(now)
    game, power = set_aside(store, attachment, now=moment, why=why)
    tell(out, msg("Photograph #%(id)s from %(power)s set aside.", id=attachment, power=power))
    _after_decision(store, game, moment)


def _after_decision(store: Any, game: str, moment: Any) -> None:
    """Say what happens next once the coordinator has settled an item of the review."""
    from dippouch.store.mail.review import review_state

    if not game:
        return
    st = review_state(store, game, now=moment)
    if st.phase is None or st.deadline is None or moment < st.deadline:
        return
    if st.items and not st.released and st.held:
        tell(
            out,
            nmsg(
                "Still waiting for you in %(phase)s: %(num)d item (`dippouch mail review %(game)s`).",
                "Still waiting for you in %(phase)s: %(num)d items (`dippouch mail review %(game)s`).",
                len(st.items),
                phase=PhaseName(st.phase),
                game=game,
            ),
        )
    elif not st.items:
        tell(
            out,
            msg(
                "Nothing waits for review any more: %(phase)s is processed at the next `dippouch process` or worker "
                "look.",
                phase=PhaseName(st.phase),
            ),
        )
