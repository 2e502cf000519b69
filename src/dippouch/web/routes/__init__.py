"""The web's feature routers that are not a room of their own: each module one ``router`` serving a feature's
HTML pages and JSON calls (the others: :mod:`dippouch.web.routes.press`, :mod:`~dippouch.web.routes.roster`,
:mod:`~dippouch.web.routes.openings`, :mod:`~dippouch.web.routes.accounts`, :mod:`~dippouch.web.routes.notify` ...)."""
