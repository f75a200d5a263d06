"""Log hygiene for expected refusals.

Django logs every PermissionDenied a view raises ("Forbidden (Permission denied): /path")
with the exception's traceback at WARNING. On this platform most of those are the fairness
rules at work (a deal's results before one has played it, a members-only page): one line
each is what an operator needs, not a traceback each.
"""

from __future__ import annotations

import logging

from django.core.exceptions import PermissionDenied


class OneLineRefusals(logging.Filter):
    """On the "django.request" logger: a refusal (PermissionDenied) keeps its line and
    loses its traceback. Server errors keep theirs."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if isinstance(exc, PermissionDenied):
            record.exc_info = None
            record.exc_text = None
        return True
