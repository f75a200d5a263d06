"""A tournament as a calendar event (iCalendar, RFC 5545): "zet in je agenda" on its
page. A solo tournament's event is its play window; a tournament of tables' starts at
its live start and, when its sets have a deadline, ends when the last set must be done.
Written by the icalendar library (escaping, line folding, UTC times)."""

from __future__ import annotations

import datetime as dt

from django.utils import timezone
from django.utils.translation import gettext as _
from icalendar import Calendar, Event

from .models import Tournament


def event_times(t: Tournament) -> tuple[dt.datetime, dt.datetime | None] | None:
    """(start, end or None) of the event, or None when there is nothing to put in a
    calendar (no start time, or the tournament is over)."""
    if t.is_closed or t.starts_at is None or t.status == Tournament.Status.DRAFT:
        return None
    if not t.has_tables:
        return t.starts_at, t.ends_at
    s = getattr(t, "structure", None)
    if s is None or not s.set_minutes:
        return t.starts_at, None  # open-ended: no end can be told in advance
    minutes = s.rounds * s.sets * s.set_minutes + (s.rounds - 1) * s.round_break
    return t.starts_at, t.starts_at + dt.timedelta(minutes=minutes)


def ics(t: Tournament, *, url: str, host: str) -> bytes:
    start, end = event_times(t) or (None, None)
    if start is None:
        raise ValueError("this tournament has no start to put in a calendar")
    event = Event()
    event.add("uid", f"tournament-{t.pk}@{host}")
    event.add("dtstamp", timezone.now())
    event.add("dtstart", start)
    if end is not None and end > start:
        event.add("dtend", end)
    event.add("summary", f"{t.title} ({t.club.name})" if t.club_id else t.title)
    if t.has_tables:
        what = _("Manillen at tables: be there at the start; the tables are drawn then.")
    else:
        what = _("Manillen, solo duplicate: play your game within this window.")
    event.add("description", f"{what}\n{url}")
    event.add("url", url)
    calendar = Calendar()
    calendar.add("prodid", "-//Manillen//tournaments//NL")
    calendar.add("version", "2.0")
    calendar.add_component(event)
    return calendar.to_ical()
