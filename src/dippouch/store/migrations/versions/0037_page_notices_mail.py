"""Page notices of what a phase past its deadline waits for (PostgreSQL): every change to the mail a phase may be
held for (messages, their attachments, the coordinator's release, the game's mail settings with its review
wait) is announced on ``dippouch_pages`` like the changes of migration 0036, so a web process may hold a game's
page past its deadline too, until the phase is processed or its mail changes, rather than ask the database
what the phase waits for at every reading while the workers catch up. SQLite has no such channel.

Revision ID: 0037
Revises: 0036
"""

from __future__ import annotations

from alembic import op

revision = "0037"
down_revision = "0036"
branch_labels = None
depends_on = None

TABLES = ("mail_messages", "mail_attachments", "mail_reviews", "game_mail")


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    # A function of their own beside migration 0036's (which stays as it was): an attachment reaches its game
    # through its message, a release through its phase; a message and the mail settings name their game (a
    # message of no game, none: no page shows it).
    op.execute(
        """
        CREATE OR REPLACE FUNCTION dippouch_mail_page_notice() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE
            r record;
            game text;
        BEGIN
            IF TG_OP = 'DELETE' THEN r := OLD; ELSE r := NEW; END IF;
            IF TG_TABLE_NAME = 'mail_attachments' THEN
                SELECT g.name INTO game FROM mail_messages m JOIN games g ON g.id = m.game_id WHERE m.id = r.mail_id;
            ELSIF TG_TABLE_NAME = 'mail_reviews' THEN
                SELECT g.name INTO game FROM phases p JOIN games g ON g.id = p.game_id WHERE p.id = r.phase_id;
            ELSE
                SELECT g.name INTO game FROM games g WHERE g.id = r.game_id;
            END IF;
            IF game IS NOT NULL THEN
                PERFORM pg_notify('dippouch_pages', 'g ' || game);
            END IF;
            RETURN NULL;
        END
        $$
        """
    )
    for table in TABLES:
        op.execute(
            f"CREATE TRIGGER dippouch_page_notice AFTER INSERT OR UPDATE OR DELETE ON {table} "
            "FOR EACH ROW EXECUTE FUNCTION dippouch_mail_page_notice()"
        )


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    for table in TABLES:
        op.execute(f"DROP TRIGGER IF EXISTS dippouch_page_notice ON {table}")
    op.execute("DROP FUNCTION IF EXISTS dippouch_mail_page_notice()")
