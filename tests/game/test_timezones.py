"""A time zone that is not one (a folder of the zone database, a path, hundreds of characters) is refused when
a game is created, by the command line, the web form and the API, with the closest valid zone: never a 500.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

import dippouch.cli.game  # noqa: F401  (registers the commands)
from dippouch.cli import app
from dippouch.game import GameError, GameSettings
from dippouch.store import games as store_games
from websupport import Site

BAD = [
    ("Europe", "unknown time zone 'Europe'; did you mean 'Europe/"),
    ("America", "unknown time zone 'America'; did you mean 'America/"),
    ("Europe/Londn", "did you mean 'Europe/London'?"),
    ("A" * 300, "(300 characters)"),
    ("../../etc/passwd", "unknown time zone '../../etc/passwd'"),
    ("/etc/localtime", "unknown time zone '/etc/localtime'"),
    ("Europe/", "unknown time zone 'Europe/'"),
]


@pytest.mark.parametrize(("zone", "message"), BAD)
def test_settings_refuse_a_zone_that_is_not_one(zone: str, message: str) -> None:
    with pytest.raises(GameError) as e:
        GameSettings(timezone=zone)
    assert message in str(e.value) and "Europe/London" in str(e.value)


def test_a_real_zone_is_taken() -> None:
    assert GameSettings(timezone="America/Mexico_City").timezone == "America/Mexico_City"


@pytest.mark.parametrize(("zone", "message"), BAD[:4])
def test_creation_refuses_it_by_every_way_in(tmp_path: Path, zone: str, message: str) -> None:
    db = f"sqlite:///{tmp_path / 'g.db'}"
    r = CliRunner().invoke(app, ["new", "g", "--variant", "standard", "--tz", zone, "--db", db])
    assert r.exit_code == 2 and "Traceback" not in r.output, r.output
    assert message in " ".join(r.output.split()), r.output
    site = Site(db)
    r = site.post_form(site.coordinator, "/coordinate/new", {"name": "g", "variant": "standard", "timezone": zone})
    assert r.status_code == 400 and message.replace("'", "&#39;") in r.text, r.text[-600:]
    r = site.api(site.coordinator, "/api/games", {"name": "g", "variant": "standard", "timezone": zone})
    assert r.status_code == 400 and message in r.json()["error"], r.text
    assert store_games.games(site.web.store) == []
