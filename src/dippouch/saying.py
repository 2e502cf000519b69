"""A message said in the reader's language: the one way a door (a page, the JSON API, a mail, a report, the
command line) turns what the layers under it tell people (:class:`dippouch.core.messages.Msg`) into words."""

from __future__ import annotations

from dippouch.core.messages import Msg, as_msg, render
from dippouch.i18n import DEFAULT, LANGUAGES, phase_words, translations

__all__ = ["say"]


def say(message: Msg | str, lang: str) -> str:
    """``message`` in ``lang``: its template from the reader's catalogue, each value in its turn (a nested
    message, choices, a phase's name in the reader's words; names and numbers as they are). A text not made a
    message yet is said as itself, or as its translation where the catalogue has it whole."""
    m = as_msg(message)
    if lang not in LANGUAGES or lang == DEFAULT:
        return render(m)
    return render(m, translations(lang), lambda name: phase_words(name, lang))
