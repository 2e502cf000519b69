"""Scores, ratings and a game's statistics: pure functions over plain values.

- :mod:`.scoring`: scoring systems as data (``systems/*.toml``) and the one engine that reads them;
- :mod:`.ratings`: Ghost Ratings' multi-player update, recomputed from scratch, per variant group and overall;
- :mod:`.stats`: centres by power over time and a game's key events (first centre taken, eliminations, stabs).

Nothing here reads the store, the clock or a file other than the package's own system descriptions: the
callers (the store's readers, the command line, the web) hand the facts in.
"""
