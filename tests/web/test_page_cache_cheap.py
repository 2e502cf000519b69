"""The game page's per-request work done once: the state's lookup sent through the driver on PostgreSQL (its
statement compiled once), and the templates' texts translated once per language (issue 57)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import jinja2
import pytest
import sqlalchemy as sa

from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import page_cache as store_pages
from dippouch.store import submissions as store_submissions
from dippouch.web.app import kept_gettext


def _reference(store: GameStore, game: str, kind: str, lang: str) -> tuple[object, ...] | None:
    """The lookup's row as SQLAlchemy sends and reads it (the way every dialect but PostgreSQL's takes)."""
    with store.one_read.connect() as conn:
        row = conn.execute(store_pages._lookup(), {"game": game, "kind": kind, "lang": lang}).first()
        conn.rollback()
    return None if row is None else tuple(row)


def test_the_lookup_reads_what_sqlalchemy_reads(db_url: str) -> None:
    store = GameStore(db_url)
    try:
        now = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
        store_games.create_game(store, "g", "standard", now=now)
        store_submissions.submit(store, "g", "France", "A Par H", now=now + timedelta(minutes=1))
        state = store_pages.shared_page(store, "g", "page", "de")
        assert state is not None and state.body is None
        # The kept pieces' bytes among them, every byte value (the text format sends them as hex).
        packed = bytes(range(256)) + b"'\\"
        store_pages.keep_page(
            store, state.game_id, "page", "de", "v1", "<p>kept</p>", now + timedelta(minutes=2), deflated=packed
        )
        with store.one_read.connect() as conn:
            row = store_pages._lookup_row(conn, {"game": "g", "kind": "page", "lang": "de"})
            conn.rollback()
        assert row is not None
        reference = _reference(store, "g", "page", "de")
        assert reference is not None
        # The same values in the same places: ids, the visibility, the deadline and the times as the same instants.
        assert [_instant(v) for v in row] == [_instant(v) for v in reference]
        shared = store_pages.shared_page(store, "g", "page", "de")
        assert shared is not None
        assert (shared.version, shared.body, shared.deflated) == ("v1", "<p>kept</p>", packed)
        assert shared.state[2] > 0  # the submission moved the state
        assert shared.deadline is not None and shared.deadline.tzinfo is not None
        assert shared.changed == now + timedelta(minutes=1)
        assert store_pages.shared_page(store, "g", "page", "fr") is not None  # no page kept in French: the state
        assert store_pages.shared_page(store, "nothing", "page", "de") is None
    finally:
        store.close()


def _instant(value: object) -> object:
    """A time as an instant (SQLite's come back without a zone, UTC by convention)."""
    if isinstance(value, datetime):
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    return value


class _Catalogue:
    """A translation that marks each text as translated, counting its look-ups."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def gettext(self, text: str) -> str:
        self.asked.append(text)
        return f"tr[{text}]"

    def ngettext(self, one: str, many: str, n: int) -> str:
        return f"tr[{one if n == 1 else many}]"


TEMPLATE = (
    '{{ _("Orders") }} {{ _("Orders") }} {{ _("for %(who)s", who=name) }} {{ _("100%% sure") }}'
    "{% trans %}Deadline{% endtrans %} {% trans n=3 %}one unit{% pluralize %}{{ n }} units{% endtrans %}"
    '{% autoescape false %}{{ _("for %(who)s", who=name) }} {{ _("a < b") }}{% endautoescape %} {{ _("a < b") }}'
)


def _env(catalogue: _Catalogue, kept: bool) -> jinja2.Environment:
    env = jinja2.Environment(autoescape=True, extensions=["jinja2.ext.i18n"])
    env.install_gettext_translations(catalogue, newstyle=True)  # type: ignore[attr-defined]
    if kept:
        env.globals["gettext"] = kept_gettext(catalogue.gettext)
    return env


def test_kept_translations_say_what_jinja_says_and_look_each_text_up_once() -> None:
    jinja_own, ours = _Catalogue(), _Catalogue()
    expected = _env(jinja_own, kept=False).from_string(TEMPLATE)
    kept = _env(ours, kept=True).from_string(TEMPLATE)
    for name in ("<b>Ann</b>", "Bob & co"):
        assert kept.render(name=name) == expected.render(name=name)
    assert "tr[for &lt;b&gt;Ann&lt;/b&gt;]" in kept.render(name="<b>Ann</b>")  # a value is escaped into its text
    assert "tr[100% sure]" in kept.render(name="x")
    # Jinja's own looks every text up at every call; ours a text without values once (per way of escaping).
    assert jinja_own.asked.count("Orders") == 4
    assert ours.asked.count("Orders") == 1
    assert ours.asked.count("a < b") == 2  # escaped and not: two answers
    assert ours.asked.count("for %(who)s") == 8  # with values: every call, as Jinja does


def test_a_connection_the_server_dropped_is_an_error_of_the_store_and_leaves_the_pool(db_url: str) -> None:
    """The driver's own cursor fails as SQLAlchemy's execution does: a database error the app answers as such
    (not a fault of its own), and the dropped connection is not handed to the next request."""
    if not db_url.startswith("postgresql"):
        pytest.skip("the lookup goes through the driver on PostgreSQL only")
    store = GameStore(db_url)
    try:
        store_games.create_game(store, "g", "standard", now=datetime(2026, 12, 1, 9, 0, tzinfo=UTC))
        with store.one_read.connect() as conn:
            pid = conn.exec_driver_sql("SELECT pg_backend_pid()").scalar_one()
            with store.engine.connect() as killer:
                killer.exec_driver_sql(f"SELECT pg_terminate_backend({int(pid)})")
                killer.commit()
            with pytest.raises(sa.exc.OperationalError) as refused:
                store_pages._lookup_row(conn, {"game": "g", "kind": "page", "lang": "en"})
            assert refused.value.connection_invalidated
            assert conn.invalidated
        assert store_pages.shared_page(store, "g", "page", "en") is not None  # a new connection answers
    finally:
        store.close()
