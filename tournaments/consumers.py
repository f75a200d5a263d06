"""Live standings over a websocket, for those allowed to see them.

Identity from scope["user"] only. The rule is the pages' (tournaments/views.py): results
are for whoever `actions.can_see_results` allows, and an organizer without an entry who
looks is ruled out of entering (`actions.mark_seen`), at connect as on the standings
page. The rule is asked again before every push and snapshot: someone who entered and
has not finished (an entry that slipped in next to the connect) receives nothing about
others and the socket is closed.
"""

from __future__ import annotations

from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from ops.sockets import ClosesOnce, budget_key, game_sockets

from . import actions, rankings
from .models import Tournament

CLOSE_FORBIDDEN = 4403


def _allowed(pk: int, user, *, looking: bool = False, key: str = "") -> Tournament | None:
    """The tournament if `user` may see its results now, else None. `looking` (a connect):
    an organizer without an entry is recorded as having looked, as the pages do. `key`:
    the big screen's link (actions.screen_key) shows a tournament of tables' standings to
    the room's computer, logged in or not."""
    t = Tournament.objects.select_related("club").filter(pk=pk).first()
    if t is None:
        return None
    if key and actions.screen_key_valid(t, key):
        return t
    entry = actions.entry_of(user, t)
    # As the pages (tournaments/views._tournament): whoever entered may look, also a
    # player outside the club who came in with the invite code.
    if not (actions.can_view_tournament(user, t) or entry is not None):
        return None
    if not actions.can_see_results(user, t):
        return None
    if looking and entry is None and not t.has_tables:
        # Watching rules an organizer out of entering. Not at a tournament of tables:
        # its standings hold finished sets only, and joining closes at the draw. As the
        # pages: only after choosing to look, never by opening a socket.
        if actions.must_choose_to_look(user, t):
            return None
        actions.mark_seen(t, user)
    return t


def _snapshot(pk: int, user, *, looking: bool = False, key: str = "") -> dict | None:
    t = _allowed(pk, user, looking=looking, key=key)
    if t is None:
        return None
    return {
        "type": "standings",
        "version": t.rankings_version,
        "status": t.status,
        "group": t.group_name,
        **(_tables_payload(t) if t.has_tables else {"rows": rankings.standings(t)}),
    }


def _tables_payload(t: Tournament) -> dict:
    from . import tables

    return {"rows": tables.standings(t), "progress": tables.progress(t)}


class StandingsConsumer(ClosesOnce, AsyncJsonWebsocketConsumer):
    # ClosesOnce: once closed by us, frames still queued are dropped, nothing is sent.
    group: str | None = None
    key = ""

    async def connect(self) -> None:
        pk = self.scope["url_route"]["kwargs"]["pk"]
        query = parse_qs(self.scope.get("query_string", b"").decode("latin-1"))
        self.key = (query.get("key") or [""])[0][:64]
        user = self.scope.get("user")
        snapshot = await database_sync_to_async(_snapshot)(pk, user, looking=True, key=self.key)
        await self.accept()
        if snapshot is None:
            await self._forbidden()
            return
        self.pk = pk
        self.group = snapshot.pop("group")
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.send_json(snapshot)

    async def disconnect(self, code: int) -> None:
        if self.group:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive_json(self, content, **kwargs) -> None:
        # The only request: a fresh snapshot (after a gap in versions).
        if self.group and isinstance(content, dict) and content.get("type") == "snapshot":
            # A snapshot is a database read of the whole field: the person's snapshot
            # budget, shared with their game sockets (ops/sockets.py), bounds them.
            if not game_sockets.snapshot(budget_key(self.scope)):
                await self.send_json(
                    {"type": "error", "code": "rate_limited", "message": "too many snapshots"}
                )
                return
            snapshot = await database_sync_to_async(_snapshot)(
                self.pk, self.scope.get("user"), key=self.key
            )
            if snapshot is None:
                await self._forbidden()
                return
            snapshot.pop("group")
            await self.send_json(snapshot)
            return
        await self.send_json({"type": "error", "code": "bad_message", "message": "unknown message"})

    async def receive(self, text_data=None, bytes_data=None, **kwargs) -> None:
        if text_data is None or len(text_data) > 256:
            await self.send_json({"type": "error", "code": "bad_message", "message": "bad frame"})
            return
        try:
            await super().receive(text_data=text_data, **kwargs)
        except ValueError:
            await self.send_json({"type": "error", "code": "bad_message", "message": "not JSON"})

    async def standings_update(self, event) -> None:
        # Asked again at every push: the permission is not taken for granted.
        allowed = await database_sync_to_async(_allowed)(
            self.pk, self.scope.get("user"), key=self.key
        )
        if self.group is None or self.closing:  # closed meanwhile
            return
        if allowed is None:
            await self._forbidden()
            return
        await self.send_json(event["payload"])

    async def _forbidden(self) -> None:
        if self.group:
            await self.channel_layer.group_discard(self.group, self.channel_name)
            self.group = None
        await self.send_json({"type": "error", "code": "forbidden", "message": "not allowed"})
        await self.close(code=CLOSE_FORBIDDEN)
