"""``dippouch notify``: hand what happened to every channel and deliver the notification queue once (the worker
does it every look)."""

from __future__ import annotations

import typer

from dippouch.cli import app
from dippouch.cli.words import said
from dippouch.core.messages import Arg, msg

I18N_DOMAIN = "cli"
"""The catalogue of the command line's own words (its refusals, said in the locale's language)."""


@app.command()
def notify(
    db: str | None = typer.Option(
        None, "--db", help="Database URL (default: $DIPPOUCH_DATABASE_URL or sqlite:///dippouch.db)."
    ),
    limit: int = typer.Option(500, "--limit", help="Deliver at most this many notifications."),
    show: bool = typer.Option(False, "--list", help="List the queue (without secrets) instead of delivering."),
) -> None:
    """Hand new events to every channel, then deliver due notifications (push, chat webhooks, e-mail into the
    mail outbox) once; safe beside workers.

    Each notification is claimed before it is delivered, so any number of these and of `dippouch worker`
    may run at once: each is delivered once. Failures are kept and retried later with back-off.
    """
    import importlib.util

    from dippouch.core.errors import DippouchError
    from dippouch.notify.task import run_once
    from dippouch.store import GameStore
    from dippouch.store.notify.stored import deliveries
    from dippouch.worker.service import mail_sender

    if limit < 1:
        raise DippouchError(msg("--limit must be at least 1 (got %(value)s); try 500", value=limit))
    if importlib.util.find_spec("dippouch.mail") is not None:
        import dippouch.mail.notices  # noqa: F401  (registers the game mail: every channel has its events)
    store = GameStore(db)
    try:
        if show:
            for d in deliveries(store):
                # The status, event and channel are the queue's own names (as the API and the logs give them).
                said_of: dict[str, Arg] = {
                    "id": d.id,
                    "status": d.status,
                    "event": d.event,
                    "channel": d.channel,
                    "person": d.person_id,
                    "attempts": d.attempts,
                }
                line = (
                    msg(
                        "#%(id)s %(status)s %(event)s by %(channel)s to person %(person)s, tried %(attempts)s  "
                        "(%(error)s)",
                        **said_of,
                        error=d.last_error,
                    )
                    if d.last_error
                    else msg(
                        "#%(id)s %(status)s %(event)s by %(channel)s to person %(person)s, tried %(attempts)s",
                        **said_of,
                    )
                )
                typer.echo(said(line))
            return
        found, report = run_once(store, store.clock(), limit=limit, sender=mail_sender)
    finally:
        store.close()
    done = msg(
        "notifications: %(queued)s queued, %(sent)s delivered, %(retry)s to retry, %(failed)s refused",
        queued=found.queued,
        sent=len(report.sent),
        retry=len(report.retry),
        failed=len(report.failed),
    )
    typer.echo(said(done))
    for row_id, why in report.retry + report.failed:
        typer.echo(f"  #{row_id}: {why}")  # the channel's own account of the failure, as it gave it
