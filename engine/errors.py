"""Errors raised by the engine, in the manner of python-chess."""

from __future__ import annotations

from typing import Any


class IllegalMove(ValueError):
    """An action the rules forbid. ``str(err)`` names the broken rule in plain words.

    ``code`` identifies the rule (e.g. ``"follow_suit"``) and ``params`` its details, so a
    user interface can phrase it in its own language with :func:`engine.messages.explain`.
    """

    def __init__(self, code: str, message: str, **params: Any) -> None:
        super().__init__(message)
        self.code = code
        self.params = params

    def __reduce__(self):
        # Rebuilt from code, text and params, so it crosses process boundaries intact.
        return (_rebuild_illegal, (self.code, str(self), self.params))

    def message(self, lang: str = "en") -> str:
        from .messages import explain

        return explain(self, lang)


def _rebuild_illegal(code: str, message: str, params: dict) -> IllegalMove:
    return IllegalMove(code, message, **params)


class InvalidRecord(ValueError):
    """A game record that cannot be read; the message names the line and the reason."""

    def __init__(self, reason: str, line: int | None = None) -> None:
        self.reason = reason
        self.line = line
        super().__init__(f"line {line}: {reason}" if line is not None else reason)

    def __reduce__(self):
        return (InvalidRecord, (self.reason, self.line))
