"""Live standings over a websocket, for those allowed to see them.

Identity from scope["user"] only. The permission is checked when connecting; it never
shrinks while the tournament lives (finishing or closing only widens it), so members
of the group may receive every later push.
"""

from __future__ import annotations

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from . import actions, rankings
from .models import Tournament

CLOSE_FORBIDDEN = 4403


def _snapshot(pk: int, user) -> dict | None:
    t = Tournament.objects.select_related("club").filter(pk=pk).first()
    if t is None:
        return None
    # As the pages (tournaments/views._tournament): whoever entered may look, also a
    # player outside the club who came in with the invite code.
    if not (actions.can_view_tournament(user, t) or actions.entry_of(user, t) is not None):
        return None
    if not actions.can_see_results(user, t):
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


class StandingsConsumer(AsyncJsonWebsocketConsumer):
    group: str | None = None

    async def connect(self) -> None:
        pk = self.scope["url_route"]["kwargs"]["pk"]
        snapshot = await database_sync_to_async(_snapshot)(pk, self.scope.get("user"))
        await self.accept()
        if snapshot is None:
            await self.send_json({"type": "error", "code": "forbidden", "message": "not allowed"})
            await self.close(code=CLOSE_FORBIDDEN)
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
            snapshot = await database_sync_to_async(_snapshot)(self.pk, self.scope.get("user"))
            if snapshot is not None:
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
        await self.send_json(event["payload"])
