"""A game's book: its line of play as one PDF (:mod:`dippouch.render.gamebook`), each phase's map with its
orders and results and its results in the Judge's words, with the press the game has published.

What goes in is only what every reader who may see the game may already see, so one book serves them all and
is made once per state of the game (:func:`book_key`):

- the phases of the line of play (rolled-back ones left out), each once processed: orders are drawn and
  reported only then, as on the phase pages and in the replay (:func:`dippouch.play.replays.replay_frames`);
- the press a reader without a seat may read (:func:`dippouch.press.rules.may_read` with no power): none while
  the game is on; once it is over, what its rules open then: the public press and announcements (unless the
  game keeps them closed), private and group letters only where the game declared it. Held postal press is
  never in it, and grey press keeps its senders hidden as the rules say.

Who may see the game at all is the door's question (the web's ``VisibleGame``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from dippouch.core.messages import Msg, PhaseName, msg, pmsg
from dippouch.core.variant import Variant
from dippouch.i18n import format_datetime, phase_words
from dippouch.play.reports import stored_report
from dippouch.press.rules import ANNOUNCEMENT
from dippouch.saying import say
from dippouch.store.db import Database
from dippouch.store.press import messages as store_press
from dippouch.store.records import StoredPhase

__all__ = ["BookPage", "BookPlan", "book_key", "book_of", "book_plan", "make_book", "published_press"]

I18N_DOMAIN = "rules"
"""The catalogue of the messages said here (locale/<lang>/LC_MESSAGES/rules.po)."""


@dataclass(frozen=True)
class BookPage:
    """A picture the book prints: a phase (``phase_id``, ``phase``) seen as ``view`` (the web's map views:
    ``orders`` with its orders and results, ``after`` the position they led to, ``board`` a position alone)."""

    phase_id: int
    phase: str
    view: str


@dataclass(frozen=True)
class BookPlan:
    """The phases of the book (each with its results), the final board's caption and picture, if any."""

    phases: tuple[BookPage, ...]
    final: tuple[Msg, BookPage] | None


def book_plan(phases: Sequence[StoredPhase]) -> BookPlan:
    """The book of a game whose phases (as opened, rolled-back ones too) are ``phases``: every processed phase
    of the line of play with its orders and results drawn (a phase the game ended in, closed without a position
    after it, as its board: it has no orders to draw), then the board as it stands (the open phase's) or, once
    over, the board after the last phase (none where the game ended in a phase: its board is already there)."""
    line = [h for h in phases if h.status != "abandoned"]
    done = [h for h in line if h.status == "processed"]
    pages = tuple(BookPage(h.id, h.name, "orders" if h.next_position is not None else "board") for h in done)
    current = next((h for h in line if h.status == "open"), None)
    final: tuple[Msg, BookPage] | None = None
    if current is not None:
        final = (
            msg("The board now: %(phase)s", phase=PhaseName(current.name)),
            BookPage(current.id, current.name, "board"),
        )
    elif done and done[-1].next_position is not None:
        last = done[-1]
        final = (
            msg("The final board, after %(phase)s", phase=PhaseName(last.name)),
            BookPage(last.id, last.name, "after"),
        )
    elif not done and line:
        final = (msg("%(phase)s", phase=PhaseName(line[0].name)), BookPage(line[0].id, line[0].name, "board"))
    return BookPlan(pages, final)


def published_press(db: Database, name: str) -> list[store_press.Message]:
    """Every letter of ``name`` a reader without a seat may read, oldest first (see the module's words)."""
    out: list[store_press.Message] = []
    while True:
        got = store_press.messages_since(db, name, None, out[-1].id if out else 0)
        if not got:
            return out
        out += got


def book_key(game: str, plan: BookPlan, press: Sequence[store_press.Message], lang: str = "en") -> tuple[object, ...]:
    """What the book is made of: a phase processed or rolled back, or a letter published, makes another; each
    language it is read in has its own."""
    return (
        "book",
        game,
        plan,
        tuple((m.id, m.sender, m.kind, m.members) for m in press),
        lang,
    )


def _to(m: store_press.Message, lang: str) -> str:
    """Whom a letter was written to, in ``lang``: everyone (an announcement or the public channel), or the
    powers it went to."""
    if m.kind == ANNOUNCEMENT:
        return say(pmsg("game book", "all (announcement)"), lang)
    if m.kind == "public":
        return say(pmsg("game book", "all"), lang)
    return ", ".join(p for p in m.members if p != m.sender) or m.kind


def make_book(
    db: Database,
    name: str,
    plan: BookPlan,
    press: Sequence[store_press.Message],
    svg_of: Callable[[BookPage], str | None],
    *,
    about: Sequence[str] = (),
    title: str | None = None,
    lang: str = "en",
) -> bytes:
    """The book as PDF (:func:`book_of`), its results read from the store as each phase's pages are made."""
    from dippouch.store.variant_copy import variant_of

    return book_of(
        variant_of(db, name),
        name,
        plan,
        press,
        svg_of,
        lambda phase_id: stored_report(db, name, phase_id=phase_id, lang=lang),
        about=about,
        title=title,
        lang=lang,
    )


def book_of(
    variant: Variant,
    name: str,
    plan: BookPlan,
    press: Sequence[store_press.Message],
    svg_of: Callable[[BookPage], str | None],
    results_of: Callable[[int], str],
    *,
    about: Sequence[str] = (),
    title: str | None = None,
    lang: str = "en",
) -> bytes:
    """The book as PDF: the pictures drawn by ``svg_of`` (the door's pictures of a phase, so the book shows
    what its pages show; None where no map can be drawn), each phase's results by ``results_of`` (its id ->
    the Judge's report), the press given. Nothing is read from the store, so it may be made in another process
    (the web's work pool).

    A letter is printed with the phase it was written in; one written after the end, or in a phase that is not
    in the book, at the end. Each phase's picture is drawn and its results written when its pages are made, and
    let go once they are written (:func:`dippouch.render.gamebook.write_book`): a long game's book never holds
    its maps all at once.

    The book's words are in ``lang``: its headings, the phases' names, the final board's caption; ``results_of``
    and ``svg_of`` write theirs in it too, and ``about`` comes said in it."""
    from dippouch.render.gamebook import BookPhase, BookPress, book_pdf

    names = {p.phase for p in plan.phases}
    by_phase: dict[str, list[BookPress]] = {}
    rest: list[BookPress] = []
    for m in press:
        # In UTC, as the reader's language writes a moment: the book is made once for every reader of the language,
        # and a PDF has no script to say the time in each reader's own zone as a page does.
        letter = BookPress(m.sender, _to(m, lang), m.text, format_datetime(m.sent_at, lang))
        (by_phase.setdefault(m.phase, []) if m.phase in names else rest).append(letter)
    phases = [
        BookPhase(
            phase_words(p.phase, lang),
            functools.partial(svg_of, p),
            functools.partial(results_of, p.phase_id),
            tuple(by_phase.pop(p.phase, [])),  # a phase's name once: a rollback's replay has the same name
        )
        for p in plan.phases
    ]
    final = (say(plan.final[0], lang), functools.partial(svg_of, plan.final[1])) if plan.final is not None else None
    return book_pdf(
        title or name,
        [f"{variant.title}", *about],
        phases,
        final=final,
        after_end=rest,
        variant=variant,
        lang=lang,
    )
