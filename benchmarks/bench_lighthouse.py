"""Lighthouse (Google's page audit, run by Node.js) on the home page, a game page and a player's page, with its
mobile preset (an emulated mid-range phone on a throttled connection): the performance, accessibility, best
practices and SEO scores, and every audit that kept accessibility below 100.

    (cd benchmarks/lighthouse && npm ci)        # Lighthouse 12.2.3, the last release that runs on Node 20
    source scripts/chromium && .venv/bin/python benchmarks/bench_lighthouse.py [--desktop] [--keep DIR]

The app is served as `dippouch serve` serves it (uvicorn, SQLite) with a standard game whose seven powers are
seated and two have sent orders; the player's page is opened signed in (the session a key link gives). The
scores move with the machine's load (performance most): the figures in benchmarks/README.md say when and how
they were taken. Not a test.
"""

from __future__ import annotations

import argparse
import http.cookiejar
import json
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.request
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from dippouch.store import games as store_games
from dippouch.store import submissions as store_submissions

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_map_page import serve  # noqa: E402  (the app served as `dippouch serve` serves it, in a thread)

LIGHTHOUSE = HERE / "lighthouse" / "node_modules" / "lighthouse" / "cli" / "index.js"
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")


def session_cookie(base: str, key: str) -> str:
    """The Cookie header a key link leaves in a browser (the link signs the player in and redirects)."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    req = urllib.request.Request(f"{base}/k/{key}", headers={"Sec-Fetch-Site": "none"})
    with opener.open(req, timeout=60) as r:  # our own server on 127.0.0.1
        r.read()
    return "; ".join(f"{c.name}={c.value}" for c in jar)


def audit(url: str, chrome: str, out: Path, *, desktop: bool, cookie: str | None) -> dict[str, Any]:
    args = [
        "node",
        str(LIGHTHOUSE),
        url,
        "--output=json",
        f"--output-path={out}",
        f"--only-categories={','.join(CATEGORIES)}",
        "--chrome-flags=--headless=new --no-sandbox",
        "--quiet",
    ]
    if desktop:
        args.append("--preset=desktop")
    if cookie:
        args.append("--extra-headers=" + json.dumps({"Cookie": cookie}))
    subprocess.run(args, check=True, env={**os.environ, "CHROME_PATH": chrome}, timeout=600)
    report: dict[str, Any] = json.loads(out.read_text())
    return report


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--desktop", action="store_true", help="the desktop preset instead of the mobile one")
    ap.add_argument("--keep", type=Path, help="keep the JSON reports in this folder")
    opts = ap.parse_args()
    chrome = os.environ.get("DIPPOUCH_CHROMIUM") or shutil.which("chromium")
    if not chrome:
        sys.exit("no Chromium: `source scripts/chromium` first")
    if not LIGHTHOUSE.exists():
        sys.exit(f"no Lighthouse at {LIGHTHOUSE}: run `npm ci` in {LIGHTHOUSE.parents[3]}")
    base, web, stop = serve()
    keep = opts.keep or Path(tempfile.mkdtemp(prefix="lighthouse-"))
    keep.mkdir(parents=True, exist_ok=True)
    try:
        now = datetime.now(UTC)
        store_games.create_game(web.store, "demo", "standard", now=now)
        keys = {}
        for power in ("Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey"):
            store_games.assign(web.store, "demo", power, f"{power} player", now=now)
            keys[power] = web.access.create_key("player", game="demo", power=power, now=now)[1]
        store_submissions.submit(web.store, "demo", "England", "F lon - nth\nF edi - nwg\nA lvp - yor", now=now)
        store_submissions.submit(web.store, "demo", "France", "A par - bur\nA mar - spa\nF bre - mao", now=now)
        cookie = session_cookie(base, keys["France"])
        pages = (
            ("home page", f"{base}/", None),
            ("game page", f"{base}/games/demo", None),
            ("player's page", f"{base}/games/demo/play/France", cookie),
        )
        preset = "desktop" if opts.desktop else "mobile"
        print(f"Lighthouse 12.2.3, {preset} preset, {datetime.now(UTC):%Y-%m-%d %H:%M} UTC")
        print(f"{'page':<16}" + "".join(f"{c:>16}" for c in CATEGORIES))
        for label, url, with_cookie in pages:
            report = audit(
                url,
                chrome,
                keep / f"{label.split()[0].strip(chr(39) + 's')}-{preset}.json",
                desktop=opts.desktop,
                cookie=with_cookie,
            )
            scores = report["categories"]
            print(f"{label:<16}" + "".join(f"{round(scores[c]['score'] * 100):>16}" for c in CATEGORIES))
            for ref in scores["accessibility"]["auditRefs"]:
                a = report["audits"][ref["id"]]
                if ref["weight"] and a.get("score") is not None and a["score"] < 1:
                    print(f"    accessibility: {a['id']}: {a['title']}")
            if report.get("runtimeError"):
                print(f"    runtime error: {report['runtimeError']}")
        print(f"reports: {keep}")
    finally:
        stop()


if __name__ == "__main__":
    main()
