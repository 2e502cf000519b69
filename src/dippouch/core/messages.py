"""Message templates: how the core words what it tells people, so the layers above can say it in their language.

The core (the order reader, the order checks, the adjudicator's reasons) writes its messages in English and
knows nothing of languages: it stays pure, and the DATC tests, the JSON contract and the logs read the English
text as they always did. Each such message is a *template* with named placeholders, marked with :func:`N_` and
filled with ``%``::

    N_("no unit in %(place)s") % {"place": gmap.label(prov)}

The mark does nothing at run time. It lets the catalogue check extract the template into the ``rules``
catalogue (``locale/<lang>/LC_MESSAGES/rules.po``), where it is translated; and a door that shows the message to
a person (a page, a mail, a report) reads the finished English text back against those templates and writes
it in the reader's language (:func:`dippouch.said.said`), the places, units and powers in it as they were. The
English text is the message's stable form: it is what a submission's line checks and a phase's results store.

A placeholder named ``reason``, ``why`` or ``who`` holds another message (translated in its turn); one named
``options`` holds a list joined by :func:`NP_` ``("list", ...)``. Every other placeholder is a name, a number or
the player's own words, kept as written. A quoted token is given already quoted (``repr(token)``).
"""

from __future__ import annotations

__all__ = ["I18N_DOMAIN", "NP_", "N_", "either"]

I18N_DOMAIN = "rules"
"""The catalogue of the core's messages (and of the layers' under the web, which :mod:`dippouch.said` lists)."""


def N_(template: str) -> str:
    """``template`` itself: marks a message for the ``rules`` catalogue (gettext's ``gettext_noop``)."""
    return template


def NP_(context: str, template: str) -> str:
    """``template`` itself: marks a part of a message (``context``: what kind of part) for the catalogue."""
    return template


def either(options: list[str]) -> str:
    """``A``, ``A or B``, ``A, B or C``: the choices a refusal offers, as one placeholder's value."""
    if len(options) == 1:
        return options[0]
    return NP_("list", "%(some)s or %(last)s") % {"some": ", ".join(options[:-1]), "last": options[-1]}
