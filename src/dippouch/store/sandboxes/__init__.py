"""Sandboxes as stored: a board a person changes at will, reached by an edit link and a share link
(:mod:`.boards`), and its table (:mod:`.models`, migrations 0017 and 0021).

A domain beside the games core: a sandbox is copied from a game's phase but never touches a game, so the
core never names it.
"""
