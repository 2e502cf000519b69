"""The notification channels of :mod:`dippouch.notify.dispatch`, one module each, registered when this package is
loaded (the dispatcher loads it). The game's own mail with report and map is the mail side's channel
(:mod:`dippouch.mail.notices`).
"""

from dippouch.notify.channels import email, push, webhook

__all__ = ["email", "push", "webhook"]
