"""``dippouch serve``: the web app on the game database (FastAPI and uvicorn are imported only here)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import typer

from dippouch.cli import app, keep_running
from dippouch.cli.words import said
from dippouch.core.messages import msg

I18N_DOMAIN = "cli"
"""The catalogue of the command line's own words (its refusals, said in the locale's language)."""

LINK_FILE = "dippouch-coordinator-link.txt"


def _link_dir(url: Any) -> Path:
    """Where the first coordinator link is written when it is not printed: beside an SQLite database
    file, else the working directory."""
    if url.get_backend_name() == "sqlite" and url.database and url.database != ":memory:":
        return Path(url.database).resolve().parent
    return Path.cwd()


def write_link_file(directory: Path, link: str) -> Path:
    """Write ``link`` to a file in ``directory`` that only its owner may read (0600, also when it existed)."""
    path = directory / LINK_FILE
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.fchmod(fd, 0o600)
        os.write(fd, (link + "\n").encode())
    finally:
        os.close(fd)
    return path


@app.command()
def serve(
    host: str = typer.Option(
        "127.0.0.1",
        "--host",
        envvar="DIPPOUCH_HOST",
        help="Address to listen on (0.0.0.0: every IPv4 interface; ::, every interface).",
    ),
    port: int = typer.Option(8000, "--port", envvar="DIPPOUCH_PORT", help="Port to listen on."),
    db: str | None = typer.Option(
        None, "--db", help="Database URL (default: $DIPPOUCH_DATABASE_URL or sqlite:///dippouch.db)."
    ),
    scheduler: bool = typer.Option(
        True,
        "--scheduler/--no-scheduler",
        help="Process phases at their deadlines while serving (off when DIPPOUCH_WORKERS=1: workers do it).",
    ),
    interval: float = typer.Option(15.0, "--interval", help="Seconds between the scheduler's looks for due phases."),
    rate_limits: bool = typer.Option(
        True, "--rate-limits/--no-rate-limits", help="Limit sign-ins and submissions per client (off: load tests only)."
    ),
    new_key: bool = typer.Option(False, "--new-coordinator-key", help="Make a new coordinator key and print its link."),
    forwarded_allow_ips: str | None = typer.Option(
        None,
        "--forwarded-allow-ips",
        envvar="DIPPOUCH_FORWARDED_ALLOW_IPS",
        help="Behind a reverse proxy: the proxy's addresses (comma-separated, or *), whose X-Forwarded-For "
        "names the client, so rate limits count each client, not the proxy. Off by default.",
    ),
) -> None:
    """Serve the web app: game pages, orders, the coordinator's desk, variants, JSON API."""
    from datetime import UTC, datetime

    import uvicorn

    from dippouch.core.errors import DippouchError
    from dippouch.settings import current, use_default_site
    from dippouch.store import GameStore
    from dippouch.store.access import AccessStore
    from dippouch.web.app import create_app, request_pace
    from dippouch.web.http.jobs import NEEDED, ready
    from dippouch.web.http.pool import work_pool

    if not 0 < port < 65536:
        raise DippouchError(msg("port %(port)s is out of range (1-65535)", port=port))
    if scheduler and current().workers:
        scheduler = False  # deadline workers are configured: processing is theirs
        typer.echo(said(msg("DIPPOUCH_WORKERS is set: phases are processed by `dippouch worker`, not by this server")))
    from dippouch.listening import listening
    from dippouch.web.http.server import SERVER_LIMITS

    try:
        # Listening from now, before the address is said: a browser opened at once waits for the app to start
        # rather than being refused.
        sockets = listening(host, port, SERVER_LIMITS["backlog"])
    except OSError as e:
        import errno

        why = str(e.strerror or e)
        raise DippouchError(
            msg(
                "cannot listen on %(host)s port %(port)s: %(error)s (another server is there; choose another port "
                "with --port)",
                host=host,
                port=port,
                error=why,
            )
            if e.errno == errno.EADDRINUSE
            else msg("cannot listen on %(host)s port %(port)s: %(error)s", host=host, port=port, error=why)
        ) from None
    store = GameStore(db)
    if store.engine.dialect.name == "sqlite":
        # WAL: readers do not wait for the writer; the setting stays with the database file.
        raw = store.engine.raw_connection()
        try:
            raw.cursor().execute("PRAGMA journal_mode=WAL")
        finally:
            raw.close()
    access = AccessStore(store)
    shown = "localhost" if host in ("0.0.0.0", "::", "127.0.0.1", "::1") else host
    # Links in mail and on pages are made from the public address: DIPPOUCH_PUBLIC_URL, else this one.
    site = use_default_site(f"http://{shown if ':' not in shown else '[' + shown + ']'}:{port}")
    base = site.public_url
    # The address ends the line, as written: scripts/run's readers (and its test) find it there.
    database = store.engine.url.render_as_string(hide_password=True)
    address = f"{base}/"
    typer.echo(said(msg("dippouch is serving %(database)s at %(address)s", database=database, address=address)))
    if not site.configured and host in ("0.0.0.0", "::"):
        every = msg(
            "Listening on every interface, but the links this site makes and the host names it answers are "
            "%(address)s's: set DIPPOUCH_PUBLIC_URL to the address players open (and DIPPOUCH_ALLOWED_HOSTS for "
            "other names), e.g. DIPPOUCH_PUBLIC_URL=http://192.0.2.10:8000",
            address=base,
        )
        typer.echo(said(every))
    if new_key or access.coordinator_key_count() == 0:
        from dippouch.play.games import coordinator_key

        # Labelled by the program's name, the same in every language: the label is shown as written wherever the
        # key is named (the desk, the record of sealed orders opened), to readers of any language.
        _, secret = coordinator_key(store, None, label="dippouch serve", now=datetime.now(UTC))
        link = site.link(f"/k/{secret}")
        if sys.stdout.isatty():
            typer.echo(
                said(
                    msg("As asked, a coordinator key was made. Open this link to coordinate (it is shown only now):")
                    if new_key
                    else msg(
                        "No coordinator key existed, a coordinator key was made. Open this link to coordinate (it is "
                        "shown only now):"
                    )
                )
            )
            typer.echo(f"  {link}")
        else:
            # Not a terminal: this output goes to a journal, a container log or a file, which others read and
            # which is kept. The link goes to a file only its owner can read, and the output names the file.
            path = str(write_link_file(_link_dir(store.engine.url), link))
            typer.echo(
                said(
                    msg(
                        "As asked, a coordinator key was made. Its link is in %(path)s (readable only by you);",
                        path=path,
                    )
                    if new_key
                    else msg(
                        "No coordinator key existed, a coordinator key was made. Its link is in %(path)s (readable "
                        "only by you);",
                        path=path,
                    )
                )
            )
            typer.echo(
                "  "
                + said(msg("it is not printed here because this output is not a terminal and may be kept in logs."))
            )
    keep_running()
    # Expensive work (line checks, sandboxes, drawings) in processes of its own, started before the app takes
    # requests and stopped with it: in the server's threads it would hold the interpreter lock every page waits for.
    pool = work_pool(current().work_processes, ready, NEEDED)
    application = create_app(
        store=store,
        scheduler=scheduler,
        scheduler_interval=interval,
        limits=None if rate_limits else {},
        site=site,
        pace=request_pace() if rate_limits else None,
        pool=pool,
    )
    from dippouch.catalog import variants_usable
    from dippouch.web.http.collector import install as collect_young
    from dippouch.web.http.server import GuardedHttpTools, StoppingServer

    # Every variant built before the first request: the lobby's templates and the home page's choices list them
    # all, and building them from the disk cache (130 ms) inside a request held every other one up.
    variants_usable()
    # What importing and building the app made (some 180,000 objects: the web framework, the models, the
    # variants' catalog) lives as long as the process. Left to the collector, every full collection walks
    # it all again, 130-180 ms of this machine during which no request is answered, a few times a minute
    # under load: the tail of every latency. Frozen, the collector walks only what requests make; and each
    # full collection freezes what it found alive, so it walks only what is new (web/http/collector.py).
    collect_young()
    from dippouch.web.http.stalls import start as sample_stalls

    sample_stalls(current().stall_trace)
    config = uvicorn.Config(
        application,
        host=host,
        port=port,
        log_level="warning",
        proxy_headers=forwarded_allow_ips is not None,
        forwarded_allow_ips=forwarded_allow_ips,
        http=GuardedHttpTools,  # limits on request heads and the time to send them (dippouch.web.http.server)
        **SERVER_LIMITS,
    )
    server = StoppingServer(config, application.state.web.stopping)
    server.run(sockets=sockets)
    if not server.started:
        raise SystemExit(3)  # as uvicorn.run says a start-up that failed (its error is logged above)
