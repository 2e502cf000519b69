"""Press: the messages powers send each other in a game, under the press rules the game declares.

:mod:`dippouch.press.rules` is pure (no I/O): the rules as data and the one decision whether a message may be
sent and who may read it. The store (:mod:`dippouch.store.press.messages`) keeps channels and messages and asks that
decision on every send, whichever way the message came (web, API, mail).
"""
