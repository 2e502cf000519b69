"""What people do, once for every door: each module here is one use case (send orders, process what is ready,
...), takes the store and plain values, and returns a typed result. The web pages, the JSON API, mail, the
command line and the worker translate their requests into these calls and the results into their own pages,
answers, receipts and output, so the same request behaves the same whichever door it came through.

Layer: above the store, the bots and the rules; below the doors (``web``, ``mail``, ``cli``, ``worker``), which
it never imports.
"""
