"""``dippouch notify``: hand what happened to every channel and deliver the notification queue once (the worker
does it every look)."""

from __future__ import annotations

import typer

from dippouch.cli import app
from dippouch.core.messages import msg

I18N_DOMAIN = "cli"
"""The catalogue of the command line's own refusals (said in the locale's language: dippouch.cli.errors)."""


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
                err = f"  ({d.last_error})" if d.last_error else ""
                typer.echo(
                    f"#{d.id} {d.status} {d.event} by {d.channel} to person {d.person_id}, tried {d.attempts}{err}"
                )
            return
        found, report = run_once(store, store.clock(), limit=limit, sender=mail_sender)
    finally:
        store.close()
    typer.echo(
        f"notifications: {found.queued} queued, {len(report.sent)} delivered, {len(report.retry)} to retry, "
        f"{len(report.failed)} refused"
    )
    for row_id, why in report.retry + report.failed:
        typer.echo(f"  #{row_id}: {why}")
