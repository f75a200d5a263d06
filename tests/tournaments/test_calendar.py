"""A tournament in the player's calendar: "In mijn agenda zetten" beside its start gives
an iCalendar file (RFC 5545) with the play window of a solo tournament, or the live
start of a tournament of tables (and its end when its sets have a deadline), for whoever
may see the page."""

from __future__ import annotations

import datetime as dt

import pytest
from django.test import Client
from django.utils import timezone
from icalendar import Calendar

from tournaments import actions
from tournaments.models import Tournament

pytestmark = pytest.mark.usefixtures("live_game_db")

START = (timezone.now() + dt.timedelta(days=3)).replace(microsecond=0)


def _event(client: Client, path: str):
    response = client.get(path)
    assert response.status_code == 200, response.status_code
    assert response["Content-Type"] == "text/calendar; charset=utf-8"
    [event] = Calendar.from_ical(response.content).walk("VEVENT")
    return event


def test_a_solo_tournament_s_play_window_goes_into_the_calendar(make_tournament, make_user):
    t = make_tournament(
        name="Kerstavond; finale, deel 2", starts_at=START, ends_at=START + dt.timedelta(hours=3)
    )
    anna = make_user("anna")
    t.club.members.add(anna)
    client = Client()
    client.force_login(anna)
    page = client.get(f"/tournaments/{t.pk}/").content.decode()
    assert f'href="/tournaments/{t.pk}/calendar.ics" data-calendar' in page
    assert "In mijn agenda zetten" in page
    event = _event(client, f"/tournaments/{t.pk}/calendar.ics")
    assert event.decoded("dtstart") == START
    assert event.decoded("dtend") == START + dt.timedelta(hours=3)
    assert str(event["summary"]) == "Kerstavond; finale, deel 2 (De Zwarte Manille)"
    assert str(event["url"]) == f"http://testserver/tournaments/{t.pk}/"
    assert str(event["uid"]) == f"tournament-{t.pk}@testserver"
    assert "binnen deze periode" in str(event["description"])


def test_a_tournament_of_tables_starts_live_and_ends_when_its_last_set_must(club, organizer):
    common = dict(club=club, fmt=Tournament.Format.ROTATING, players=8, open_now=True)
    timed = actions.create_tables_tournament(
        organizer, name="Met klok", rounds=2, sets=3, deals=4, set_minutes=20,
        round_break=10, starts_at=START, **common,
    )  # fmt: skip
    client = Client()
    client.force_login(organizer)
    page = client.get(f"/tournaments/{timed.pk}/tables/").content.decode()
    assert "data-calendar" in page
    event = _event(client, f"/tournaments/{timed.pk}/calendar.ics")
    assert event.decoded("dtstart") == START
    assert event.decoded("dtend") == START + dt.timedelta(minutes=2 * 3 * 20 + 10)
    assert str(event["url"]).endswith(f"/tournaments/{timed.pk}/tables/")
    open_ended = actions.create_tables_tournament(
        organizer, name="Zonder klok", starts_at=START, **common
    )
    assert "dtend" not in _event(client, f"/tournaments/{open_ended.pk}/calendar.ics")


def test_only_who_may_see_the_page_gets_it_and_only_while_it_is_ahead(
    make_tournament, make_user, organizer
):
    t = make_tournament(starts_at=START, ends_at=START + dt.timedelta(hours=2), invite_code="K7")
    outsider = Client()
    outsider.force_login(make_user("buiten"))
    assert outsider.get(f"/tournaments/{t.pk}/calendar.ics").status_code == 404
    # The organizer's invite link brings the code along, and so does the event's link.
    page = outsider.get(f"/tournaments/{t.pk}/?code=K7").content.decode()
    assert f'href="/tournaments/{t.pk}/calendar.ics?code=K7"' in page
    event = _event(outsider, f"/tournaments/{t.pk}/calendar.ics?code=K7")
    assert str(event["url"]) == f"http://testserver/tournaments/{t.pk}/?code=K7"
    without_start = make_tournament(name="Nu open")
    owner = Client()
    owner.force_login(organizer)
    assert "data-calendar" not in owner.get(f"/tournaments/{without_start.pk}/").content.decode()
    assert owner.get(f"/tournaments/{without_start.pk}/calendar.ics").status_code == 404
    actions.close_tournament(t.pk, organizer)
    assert "data-calendar" not in owner.get(f"/tournaments/{t.pk}/").content.decode()
    assert owner.get(f"/tournaments/{t.pk}/calendar.ics").status_code == 404
