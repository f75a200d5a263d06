"""The strict schema of what a browser may send over the game websocket.

    {"type": "action", "action": "<str, 1..16 chars>", "seq": <int >= 0>}
    {"type": "snapshot"}
    {"type": "chat", "text": "<str, 1..200 chars>"}
    {"type": "ping"}   (answered {"type": "pong"}: the page checks its connection lives)

Anything else is a BadMessage; nothing reaches game/actions.py unvalidated.
"""

from __future__ import annotations

from dataclasses import dataclass

MAX_ACTION_LENGTH = 16
MAX_CHAT_LENGTH = 200


class BadMessage(ValueError):
    code = "bad_message"


@dataclass(frozen=True)
class ActionMessage:
    action: str
    seq: int


@dataclass(frozen=True)
class SnapshotMessage:
    pass


@dataclass(frozen=True)
class ChatMessage:
    text: str


@dataclass(frozen=True)
class PingMessage:
    pass


def parse(content: object) -> ActionMessage | SnapshotMessage | ChatMessage | PingMessage:
    if not isinstance(content, dict):
        raise BadMessage("a message is a JSON object")
    kind = content.get("type")
    if kind == "snapshot":
        if set(content) != {"type"}:
            raise BadMessage("a snapshot request has no other fields")
        return SnapshotMessage()
    if kind == "ping":
        if set(content) != {"type"}:
            raise BadMessage("a ping has no other fields")
        return PingMessage()
    if kind == "action":
        if set(content) != {"type", "action", "seq"}:
            raise BadMessage("an action message has exactly the fields type, action, seq")
        action, seq = content["action"], content["seq"]
        if not isinstance(action, str) or not 1 <= len(action) <= MAX_ACTION_LENGTH:
            raise BadMessage(f"action must be a string of 1 to {MAX_ACTION_LENGTH} characters")
        if not action.isascii() or not action.isprintable():
            raise BadMessage("action must be printable ASCII")
        # bool is an int subclass in Python; true/false is not a move number.
        if not isinstance(seq, int) or isinstance(seq, bool) or seq < 0:
            raise BadMessage("seq must be a non-negative integer")
        return ActionMessage(action=action, seq=seq)
    if kind == "chat":
        if set(content) != {"type", "text"}:
            raise BadMessage("a chat message has exactly the fields type, text")
        text = content["text"]
        if not isinstance(text, str) or not 1 <= len(text) <= MAX_CHAT_LENGTH:
            raise BadMessage(f"text must be a string of 1 to {MAX_CHAT_LENGTH} characters")
        return ChatMessage(text=text)
    raise BadMessage("unknown message type (expected 'action', 'snapshot', 'chat' or 'ping')")
