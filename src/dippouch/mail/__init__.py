"""The mail side of dippouch: orders by e-mail and post in, receipts, results, reminders and notices out.

- :mod:`dippouch.letters` reads a letter without the database: its subject by the W3K convention ("Powick Bridge -
  Montrose - Autumn 1644 Retreats - v1"), its body and attachments, and the proof of its sender.
- :mod:`.intake` takes a message in: finds its game, power and phase, checks the sender, keeps the message
  and its attachments sealed, makes the submission through the store, and queues the receipt or the reply.
- :mod:`.sources` reads messages from IMAP (TLS), .eml files, mbox and Maildir.
- :mod:`.outbox` is the queue in the database; :func:`send_due` sends what is due, safely from several
  processes at once; :mod:`.smtp` talks to the server.
- :mod:`.notices` queues results, reminders and notices (:func:`queue_notices`, :func:`queue_reminders`).
- :mod:`.ocr` proposes transcriptions of photographed typed sheets (tesseract), for the coordinator to confirm.

Nothing here is imported by the CLI at start-up: ``dippouch mail ...`` imports what a command uses.
"""
