"""The mail review's line on the coordinator's desk (the review itself is :mod:`dippouch.web.routes.review`). Apart
from the review's router so that the desk's service imports it without importing the web's request helpers
(which import the service)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from dippouch.game import GameError

__all__ = ["desk_summary"]


def desk_summary(store: Any, name: str, now: datetime) -> dict[str, Any]:
    """For the coordinator's desk: the powers whose photographs came on time this phase (some with no other
    submission), how many items wait for review, whether the phase waits for it."""
    from dippouch.store.mail.review import review_state

    try:
        st = review_state(store, name, now=now)
    except GameError:
        return {"photos": [], "waiting": 0, "held": False}
    return {
        "photos": [
            {"power": p, "count": len(times), "last": times[-1].strftime("%Y-%m-%d %H:%M UTC")}
            for p, times in sorted(st.photos.items())
        ],
        "waiting": len(st.items),
        "after_deadline": st.deadline is not None and now >= st.deadline,
        "held": st.held and st.deadline is not None and now >= st.deadline,
        "released": st.released,
    }
