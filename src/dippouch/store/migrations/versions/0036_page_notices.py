"""Page notices (PostgreSQL): every change to what a game's kept pages are versioned by (its row, its
visibility, events, phases, the open phase's submissions, draw votes, the page version) and every page kept
is announced on the channel ``dippouch_pages`` (:mod:`dippouch.store.page_notices`) when it commits, so a web
process may serve a page from its memory until told the game changed, rather than ask the database each time.
SQLite has no such channel: its one web process asks as before.

Revision ID: 0036
Revises: 0035
"""

from __future__ import annotations

from alembic import op

revision = "0036"
down_revision = "0035"
branch_labels = None
depends_on = None

TABLES = ("games", "game_web", "events", "phases", "submissions", "votes", "page_versions", "shared_pages")


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    # One notice a game and transaction however many rows change: PostgreSQL folds equal notices of one
    # transaction into one. The game is named by its name, last (a name may hold spaces), as the pages are
    # asked for: a web process then holds a page from its very first reading. A renamed game is announced
    # under both names.
    op.execute(
        """
        CREATE OR REPLACE FUNCTION dippouch_page_notice() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE
            r record;
            game text;
        BEGIN
            IF TG_OP = 'DELETE' THEN r := OLD; ELSE r := NEW; END IF;
            IF TG_TABLE_NAME = 'games' THEN
                game := r.name;
                IF TG_OP = 'UPDATE' AND OLD.name IS DISTINCT FROM NEW.name THEN
                    PERFORM pg_notify('dippouch_pages', 'g ' || OLD.name);
                END IF;
            ELSIF TG_TABLE_NAME = 'submissions' THEN
                SELECT g.name INTO game FROM phases p JOIN games g ON g.id = p.game_id WHERE p.id = r.phase_id;
            ELSE
                SELECT g.name INTO game FROM games g WHERE g.id = r.game_id;
            END IF;
            IF game IS NOT NULL THEN
                IF TG_TABLE_NAME = 'shared_pages' THEN
                    PERFORM pg_notify('dippouch_pages', 'k ' || r.kind || ' ' || r.lang || ' ' || game);
                ELSE
                    PERFORM pg_notify('dippouch_pages', 'g ' || game);
                END IF;
            END IF;
            RETURN NULL;
        END
        $$
        """
    )
    for table in TABLES:
        op.execute(
            f"CREATE TRIGGER dippouch_page_notice AFTER INSERT OR UPDATE OR DELETE ON {table} "
            "FOR EACH ROW EXECUTE FUNCTION dippouch_page_notice()"
        )


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    for table in TABLES:
        op.execute(f"DROP TRIGGER IF EXISTS dippouch_page_notice ON {table}")
    op.execute("DROP FUNCTION IF EXISTS dippouch_page_notice()")
