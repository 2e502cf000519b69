"""``dippouch worker``: process phases at their deadlines, alongside any number of other workers."""

from __future__ import annotations

import typer

from dippouch.cli import app, keep_running
from dippouch.cli.words import said
from dippouch.core.messages import Quantity, msg, nmsg, quantity

I18N_DOMAIN = "cli"
"""The catalogue of the command line's own words (its refusals, said in the locale's language)."""


def _seconds(value: float) -> Quantity:
    """Seconds as the reader's language writes a number (``0.5`` is ``0,5`` in German), a whole one without
    a decimal part (``5``, as ``--interval 5`` was typed)."""
    return quantity(int(value) if value.is_integer() else value)


@app.command()
def worker(
    db: str | None = typer.Option(
        None, "--db", help="Database URL (default: $DIPPOUCH_DATABASE_URL or sqlite:///dippouch.db)."
    ),
    once: bool = typer.Option(False, "--once", help="Process what is due now, then exit (for cron or a timer)."),
    interval: float = typer.Option(
        5.0, "--interval", envvar="DIPPOUCH_WORKER_INTERVAL", help="Seconds between looks for due phases."
    ),
    metrics_port: int | None = typer.Option(
        None,
        "--metrics-port",
        envvar="DIPPOUCH_METRICS_PORT",
        help="Serve /healthz and Prometheus /metrics on this port (0: any free port, printed).",
    ),
    metrics_host: str = typer.Option(
        "127.0.0.1", "--metrics-host", envvar="DIPPOUCH_METRICS_HOST", help="Address for /healthz and /metrics."
    ),
    batch: int = typer.Option(100, "--batch", help="Due phases looked at per query."),
    pages: bool = typer.Option(
        False,
        "--pages/--no-pages",
        help="Make each processed game's page ahead of its readers (building the web's app costs a start 2 s of "
        "CPU and 60 MB; each page some 10 ms, given way to deadlines when the worker falls behind); without it "
        "the first reader after a phase makes it.",
    ),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Log only problems, not every phase processed."),
    nice: int = typer.Option(
        10,
        "--nice",
        envvar="DIPPOUCH_WORKER_NICE",
        help="Lower this process's CPU priority by this much (0-19), so on a shared machine the web's "
        "requests go first; a deadline can wait a second, a player's page should not.",
    ),
) -> None:
    """Process due phases (deadline passed, or everyone ready) until stopped; safe to run many at once.

    Against PostgreSQL any number of workers may run, on any number of machines: each phase is processed
    exactly once. SIGTERM finishes the phase in hand and exits. The database's clock decides what is due.
    """
    import logging
    import os

    from dippouch.core.errors import DippouchError
    from dippouch.store import GameStore
    from dippouch.worker.service import Worker

    if interval <= 0:
        given = f"{interval:g}"
        raise DippouchError(msg("--interval must be more than 0 seconds (got %(value)s); try 5", value=given))
    if batch < 1:
        raise DippouchError(msg("--batch must be at least 1 (got %(value)s); try 100", value=batch))
    if not 0 <= nice <= 19:
        raise DippouchError(msg("--nice must be between 0 and 19 (got %(value)s); try 10", value=nice))
    if metrics_port is not None and not 0 <= metrics_port < 65536:
        raise DippouchError(msg("--metrics-port %(port)s is out of range (0-65535)", port=metrics_port))
    logging.basicConfig(
        level=logging.WARNING if quiet else logging.INFO,
        format="%(asctime)s %(name)s %(levelname)s %(message)s",
    )
    logging.getLogger("alembic").setLevel(logging.WARNING)
    keep_running()
    if nice and hasattr(os, "nice"):
        os.nice(nice)  # lowering one's own priority needs no privilege
    store = GameStore(db)
    # With --pages the visitors' page of each game processed is made here, ahead of its readers (the web's
    # code, passed in: the worker never imports the web). Off by default: the web's app costs a worker 60 MB,
    # and an installation whose games are seldom read would make pages nobody reads (at 1,000 games turning
    # every 30 s, two workers making them keep up: benchmarks/README.md, issue 57). Never for a worker run
    # --once (from cron): building the web's app would cost it two seconds of CPU and 60 MB at every start.
    after = []
    if pages and not once:
        from dippouch.web.views.prepared import PageMaker

        after.append(PageMaker())
    w = Worker(store, interval=interval, batch=batch, after=after)
    if not once:
        # A long-running worker keeps what it has loaded (variants, and with --pages the web's app): each full
        # collection walks only what is new (as ``serve``'s, web/http/collector.py), so a phase due is not held
        # up while it walks the rest.
        from dippouch.web.http.collector import install as collect_young

        collect_young()
    w.install_signal_handlers()
    url = store.engine.url.render_as_string(hide_password=True)
    server = None
    if metrics_port is not None:
        from dippouch.worker.http import serve_health_and_metrics

        try:
            server = serve_health_and_metrics(metrics_host, metrics_port, w.health)
        except OSError as e:
            raise DippouchError(
                msg(
                    "cannot serve metrics on %(host)s:%(port)s: %(error)s",
                    host=metrics_host,
                    port=metrics_port,
                    error=str(e.strerror),
                )
            ) from None
        address = f"http://{metrics_host}:{server.server_port}/healthz"
        typer.echo(said(msg("health and metrics at %(address)s and /metrics", address=address)))
    if store.engine.dialect.name == "sqlite" and not once:
        one_each = msg("on SQLite run one worker per database file (several are safe, but wait on each other)")
        typer.echo("note: " + said(one_each))
    if once:
        typer.echo(said(msg("dippouch worker on %(database)s: one look", database=url)))
    else:
        every = msg(
            "dippouch worker on %(database)s: looking every %(seconds)s s", database=url, seconds=_seconds(interval)
        )
        typer.echo(said(every))
    try:
        n = w.run(once=once)
    finally:
        if server is not None:
            server.shutdown()
        store.close()
    typer.echo(said(nmsg("worker stopped: %(num)d phase processed", "worker stopped: %(num)d phases processed", n)))
