"""How far one request travels: a player's web submission from their page (with and without "ready", which
processes the phase and lets the bots order the next) measured as the package's modules whose functions ran, the rooms
(packages) they are in, the distinct room-to-room calls, and the database connections taken from the pool.
docs/architecture.md quotes these figures; run against another checkout (its ``src`` and ``tests`` first on the
path) to compare.

A mailed text order (``mail.intake.take_in``) is measured the same way, and also by its crossings: every call
between the mail door and the store or the use cases (``play/``), either way (down, or back up into the door: a
callback the store runs), counted each time it is made.

    .venv/bin/python benchmarks/flows.py [--tree PATH]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
from pathlib import Path
from types import FrameType
from typing import Any

from dippouch.store import games as store_games
from dippouch.store import status as store_status
from dippouch.store import submissions as store_submissions


def measure(tree: Path) -> None:
    sys.path[:0] = [str(tree / "src"), str(tree / "tests")]
    import sqlalchemy as sa

    import dippouch
    from websupport import Site  # type: ignore[import-not-found,unused-ignore]

    src = str(Path(dippouch.__file__).parent)

    def module_of(frame: FrameType) -> str | None:
        f = frame.f_code.co_filename
        if not f.startswith(src):
            return None
        rel = f[len(src) + 1 :].removesuffix(".py").replace("/", ".")
        return rel.removesuffix(".__init__")

    def room(module: str) -> str:
        return module.split(".")[0]

    def flow(ready: bool) -> None:
        site = Site(f"sqlite:///{tempfile.mkdtemp()}/flows.db")
        site.new_game("g")
        page = site.player("g", "France")
        for power in ("Austria", "England", "Germany", "Italy", "Russia", "Turkey"):
            site.seat("g", power, power)
            if ready:  # the others ready already: France's "ready" processes the phase
                store_submissions.submit(site.web.store, "g", power, "no orders", now=site.clock(), ready=True)
        # The player opens their page first, as one does (the form comes from it); the submission is measured.
        assert page.get("/games/g/play/France").status_code == 200
        modules: set[str] = set()
        edges: set[tuple[str, str]] = set()
        connections = 0

        def checkout(*_: Any) -> None:
            nonlocal connections
            connections += 1

        def profile(frame: FrameType, event: str, _arg: object) -> None:
            if event != "call":
                return
            here = module_of(frame)
            if here is None:
                return
            modules.add(here)
            caller = frame.f_back
            while caller is not None and module_of(caller) is None:
                caller = caller.f_back
            if caller is not None:
                there = module_of(caller)
                assert there is not None
                if room(there) != room(here):
                    edges.add((room(there), room(here)))

        engine = site.web.store.engine
        sa.event.listen(engine, "checkout", checkout)
        form = {"orders": "A par - bur\nA mar - spa\nF bre - mao", **({"ready": "1"} if ready else {})}
        # The route runs in the test client's own threads, started for the request: each is profiled too.
        threading.setprofile(profile)
        sys.setprofile(profile)
        try:
            r = site.post_form(page, "/games/g/play/France/orders", form)
        finally:
            sys.setprofile(None)
            threading.setprofile(None)
            sa.event.remove(engine, "checkout", checkout)
        assert r.status_code == 303, r.text[:300]
        phase = store_status.status(site.web.store, "g", now=site.clock()).phase
        rooms = sorted({room(m) for m in modules})
        print(
            f"web submission{' with ready' if ready else ''}: {len(modules)} modules in {len(rooms)} rooms "
            f"({', '.join(rooms)}); {len(edges)} distinct room-to-room calls; {connections} connections; "
            f"the game now at {phase}"
        )
        if _listing():
            print("   ", " ".join(sorted(modules)))
            print("   ", " ".join(f"{a}->{b}" for a, b in sorted(edges)))

    for ready in (False, True):
        flow(ready)
    mail_flow(site_for=Site, module_of=module_of, room=room)


def mail_flow(*, site_for: Any, module_of: Any, room: Any) -> None:
    """A text order mailed by France's registered player, proven by the From address (proof has its own tests)."""
    import email.utils
    import os
    from email.message import EmailMessage

    import sqlalchemy as sa

    from dippouch import settings
    from dippouch.mail.intake import take_in

    os.environ.update(DIPPOUCH_MAIL_PROOF="from-address", DIPPOUCH_MAIL_FROM="judge@example.org")
    settings.reread()
    site = site_for(f"sqlite:///{tempfile.mkdtemp()}/mail.db", limits={})
    site.new_game("demo")
    store = site.web.store
    store_games.assign(store, "demo", "France", "Fay", now=site.clock(), email="fay@example.org")

    def message(orders: str) -> bytes:
        m = EmailMessage()
        m["From"] = "fay@example.org"
        m["To"] = "judge@example.org"
        m["Subject"] = "demo - France - Spring 1901 Movement"
        m["Message-ID"] = email.utils.make_msgid(domain="example.org")
        m["Date"] = email.utils.format_datetime(email.utils.localtime())
        m.set_content(orders)
        return m.as_bytes()

    def one(first: bool, orders: str) -> None:
        modules: set[str] = set()
        edges: set[tuple[str, str]] = set()
        crossings: list[str] = []
        connections = 0

        def checkout(*_: Any) -> None:
            nonlocal connections
            connections += 1

        def profile(frame: FrameType, event: str, _arg: object) -> None:
            if event != "call":
                return
            here = module_of(frame)
            if here is None:
                return
            modules.add(here)
            caller = frame.f_back
            while caller is not None and module_of(caller) is None:
                caller = caller.f_back
            if caller is None:
                return
            there = module_of(caller)
            if room(there) != room(here):
                edges.add((room(there), room(here)))
                between = {room(there), room(here)}
                if "mail" in between and between & {"store", "play"}:
                    crossings.append(f"{there}.{caller.f_code.co_name}->{here}.{frame.f_code.co_name}")

        engines = {store.engine, store.read_engine}
        for engine in engines:
            sa.event.listen(engine, "checkout", checkout)
        sys.setprofile(profile)
        try:
            out = take_in(store, message(orders), now=site.clock())
        finally:
            sys.setprofile(None)
            for engine in engines:
                sa.event.remove(engine, "checkout", checkout)
        assert out.status == "accepted", out.line()
        rooms = sorted({room(m) for m in modules})
        print(
            f"mailed text order{' (first)' if first else ' (returning player)'}: {len(modules)} modules in "
            f"{len(rooms)} rooms ({', '.join(rooms)}); {len(edges)} distinct room-to-room calls; "
            f"{len(crossings)} crossings between the mail door and the store or the use cases; {connections} connections"
        )
        if _listing():
            print("   ", " ".join(sorted(f"{a}->{b}" for a, b in edges)))
            print("   ", "\n    ".join(crossings))

    for first, orders in ((True, "A par - bur\n"), (False, "A par - pic\n")):
        one(first, orders)


def _listing() -> bool:
    return "--list" in sys.argv


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--list", action="store_true", help="name the modules each flow ran")
    ap.add_argument("--tree", type=Path, default=Path(__file__).resolve().parents[1], help="checkout to measure")
    measure(ap.parse_args().tree)


if __name__ == "__main__":
    main()
