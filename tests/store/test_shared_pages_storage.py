"""How PostgreSQL keeps the shared pages (migration 0038, issue 57): a visitor's game page, some 50 KB with its
picture and kept anew for every phase processed, compressed by lz4 where the server has it (PostgreSQL's own
pglz cost the server more than twice the CPU a page kept), and the pieces deflated beside it kept as they are.
A page is read back as it was kept, either way."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
import sqlalchemy as sa

from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import page_cache as store_pages

ON_POSTGRES = pytest.mark.parametrize("db_url", ["postgres"], indirect=True)
NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


def _has_lz4(store: GameStore) -> bool:
    with store.engine.connect() as c:
        return bool(
            c.execute(
                sa.text(
                    "SELECT EXISTS (SELECT 1 FROM pg_settings "
                    "WHERE name = 'default_toast_compression' AND 'lz4' = ANY(enumvals))"
                )
            ).scalar()
        )


@ON_POSTGRES
def test_a_kept_page_is_compressed_by_lz4_and_its_deflated_pieces_are_not_compressed_again(store: GameStore) -> None:
    store_games.create_game(store, "g", "standard", now=NOW)
    with store.engine.connect() as c:
        game_id = c.execute(sa.text("SELECT id FROM games WHERE name = 'g'")).scalar_one()
    # A page's text, compressible as a page is; its "pieces" random bytes, as deflated ones are to a compressor.
    body = "".join(f'<path id="r{i}" d="M{i} {i * 7 % 300} L{i * 3 % 500} {i}"/>' for i in range(2000))
    deflated = bytes(range(256)) * 40
    store_pages.keep_page(store, game_id, "page", "en", "v1", body, NOW, deflated=deflated)
    got = store_pages.shared_page(store, "g", "page", "en")
    assert got is not None and got.body == body and got.deflated == deflated
    with store.engine.connect() as c:
        columns: dict[str, str] = dict(
            c.execute(
                sa.text(
                    "SELECT attname, attstorage FROM pg_attribute "
                    "WHERE attrelid = 'shared_pages'::regclass AND attname IN ('body', 'deflated')"
                )
            ).all()
        )
        method = c.execute(sa.text("SELECT pg_column_compression(body) FROM shared_pages")).scalar_one()
    assert columns["deflated"] == "e"  # external: stored out of line, never compressed
    # The CI's server (Debian's) has lz4: there this is the check; a server without it keeps pglz.
    assert method == ("lz4" if _has_lz4(store) else "pglz")
