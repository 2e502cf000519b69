"""The web's feature routers that are not a room of their own: each module one ``router`` serving a feature's
HTML pages and JSON calls (the others: :mod:`dippouch.web.press`, :mod:`~dippouch.web.roster`,
:mod:`~dippouch.web.openings`, :mod:`~dippouch.web.accounts`, :mod:`~dippouch.web.notify` ...)."""
