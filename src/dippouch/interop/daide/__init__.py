"""DAIDE, the protocol the hobby's bots speak (DumbBot, Albert and their kin): a server that seats them in a
stored game, and a client that seats our bots on a DAIDE server.

- :mod:`~dippouch.interop.daide.tokens`: the token table and a game's vocabulary (powers, provinces);
- :mod:`~dippouch.interop.daide.codec`: messages on the wire (the 4-octet header, tokens, brackets, text);
- :mod:`~dippouch.interop.daide.board`: a variant in DAIDE's words, both ways;
- :mod:`~dippouch.interop.daide.server` and :mod:`~dippouch.interop.daide.client`.

docs/daide.md says what is served and what is not.
"""
