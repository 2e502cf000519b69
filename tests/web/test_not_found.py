"""A name that names nothing is a 404 with a sentence; a bug's KeyError is a 500 with an id the log also has.

Before NotFound, every KeyError was read as the user's mistake: a bug's KeyError answered 400 with the key
(perhaps a secret) as the message and was never logged, and a person or power that was not there answered 400.
"""

from __future__ import annotations

import logging
import re

import pytest
from fastapi import Request

from dippouch.catalog import load_variant
from dippouch.store.people.persons import rename_person
from websupport import Site


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Site:
    s = Site(f"sqlite:///{tmp_path_factory.mktemp('nf') / 'web.db'}", limits={})
    s.new_game("g")

    def person_lookup(request: Request) -> dict[str, str]:
        rename_person(request.app.state.web.store, 987654, "Nobody")  # a person the database does not have
        return {}

    def power_lookup() -> dict[str, str]:
        return {"power": load_variant("standard").power("Atlantis").name}

    def buggy(request: Request) -> dict[str, str]:
        return {"x": {"a": "1"}["dp_secret_in_a_key"]}  # a bug: a dict read with a key it lacks

    for path, fn in (("/test/person", person_lookup), ("/test/power", power_lookup), ("/test/bug", buggy)):
        s.app.add_api_route(path, fn, include_in_schema=False)
        s.app.add_api_route("/api" + path, fn, include_in_schema=False)
    return s


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("/games/nosuch", "no game 'nosuch'"),
        ("/games/g/phases/99999", "no phase with id 99999"),
        ("/test/person", "no person 987654"),
        ("/test/power", "no power 'Atlantis'"),
    ],
)
def test_a_page_for_a_missing_thing_is_a_404_that_names_it(site: Site, url: str, words: str) -> None:
    r = site.browser().get(url)
    assert r.status_code == 404, (url, r.status_code, r.text[:300])
    assert words in r.text.replace("&#39;", "'") and "Traceback" not in r.text


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("/api/games/nosuch", "no game 'nosuch'"),
        ("/api/games/g/phases/99999", "no phase with id 99999"),
        ("/api/games/g/powers/Atlantis", "no power 'Atlantis'"),
        ("/api/test/person", "no person 987654"),
        ("/api/test/power", "no power 'Atlantis'"),
    ],
)
def test_the_api_answers_a_missing_thing_with_404_and_its_name(site: Site, url: str, words: str) -> None:
    r = site.browser().get(url)
    assert r.status_code == 404, (url, r.status_code, r.text[:300])
    assert r.json()["status"] == 404 and words in r.json()["error"]
    assert not r.json()["error"].startswith(("'", '"')), "the message is a sentence, not a KeyError's repr"


@pytest.mark.parametrize("url", ["/test/bug", "/api/test/bug"])
def test_a_bugs_key_error_is_a_500_with_an_id_the_log_has_and_never_the_key(
    site: Site, url: str, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.ERROR, logger="dippouch.web"):
        r = site.browser().get(url)
    assert r.status_code == 500, (r.status_code, r.text[:300])
    text = r.json()["error"] if url.startswith("/api/") else r.text
    assert "dp_secret_in_a_key" not in text and "KeyError" not in text
    m = re.search(r"internal error ([0-9a-f]{12})", text)
    assert m, text[:500]
    logged = [rec for rec in caplog.records if m.group(1) in rec.getMessage()]
    assert logged, [rec.getMessage() for rec in caplog.records]
    assert logged[0].exc_info is not None and logged[0].exc_info[0] is KeyError  # the traceback is in the log


def test_two_bugs_get_two_ids(site: Site) -> None:
    c = site.browser()
    ids = {re.findall(r"internal error ([0-9a-f]{12})", c.get("/api/test/bug").json()["error"])[0] for _ in range(2)}
    assert len(ids) == 2
