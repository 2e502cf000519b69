"""Letters read and written with no database and no door: what a mail's subject names (:mod:`.subject`), a
message taken apart into its sender, body and attachments (:mod:`.message`), whether it proves its sender
(:mod:`.proof`), and the letters sent back (:mod:`.compose`: receipts, refusals, the signature). They sit below
``play/`` so that the use cases that act on a mail (taking it in, applying a held one) read and answer it
themselves rather than reaching up into the mail door; the door reads the message once and hands the values
down.
"""
