"""The web's routes: one module per feature, each with one ``router`` serving that feature's HTML pages and its
JSON calls. :func:`dippouch.web.app.feature_routers` joins them in the order they are matched; docs/web.md's route
map lists every address with its module."""
