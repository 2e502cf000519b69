"""Press as stored: the channels and messages players send each other (:mod:`.messages`) and their tables
(:mod:`.models`, migration 0009).

A domain of its own beside the games core: it reads the game's rows through :mod:`dippouch.store.rows` and the
core never maps its tables, so a command that only submits orders does not load them.
"""
