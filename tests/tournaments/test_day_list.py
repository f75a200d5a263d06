"""The day tournament (daglijst): opened automatically once a day, for everybody."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from tests.tournaments.conftest import finish
from tournaments import actions
from tournaments.models import Tournament
from tournaments.tasks import open_day_tournament, tick

pytestmark = pytest.mark.usefixtures("live_game_db")


def test_day_tournament_task_is_idempotent():
    first = open_day_tournament.apply().get()
    second = open_day_tournament.apply().get()
    assert first == second
    t = Tournament.objects.get(pk=first)
    assert Tournament.objects.filter(day=timezone.localdate()).count() == 1
    assert t.club is None and t.status == "running" and t.deals.count() == 40
    assert t.seed_commitment and t.ends_at - t.starts_at == dt.timedelta(days=1)


def test_a_day_with_a_clock_change_ends_at_the_next_local_midnight(settings):
    from zoneinfo import ZoneInfo

    settings.TIME_ZONE = "Europe/Brussels"
    t = actions.day_tournament(dt.date(2026, 10, 25))  # clocks go back: 25 hours
    assert t.ends_at.timestamp() - t.starts_at.timestamp() == 25 * 3600
    assert t.ends_at.astimezone(ZoneInfo("Europe/Brussels")).time() == dt.time(0, 0)


def test_each_day_gets_its_own_seed():
    today = actions.day_tournament(dt.date(2026, 11, 30))
    tomorrow = actions.day_tournament(dt.date(2026, 12, 1))
    assert today.pk != tomorrow.pk and today.seed != tomorrow.seed


def test_anyone_can_play_the_day_tournament(make_user):
    t = actions.day_tournament()
    anna = make_user("anna")
    entry = actions.join(t.pk, anna)
    finish(entry)
    entry.refresh_from_db()
    assert entry.status == "finished" and entry.rank == 1


def test_day_list_page_shows_the_day_tournament(client, make_user):
    response = client.get("/tournaments/")
    assert response.status_code == 200
    t = Tournament.objects.get(day=timezone.localdate())
    assert f"/tournaments/{t.pk}/" in response.content.decode()
    assert client.get("/tournaments/today/")["Location"] == f"/tournaments/{t.pk}/"


@pytest.mark.parametrize(
    "language, title",
    [
        ("nl", "Daglijst 5/12/2026"),
        ("en", "Day list 2026-12-05"),
        ("fr", "Liste du jour 05/12/2026"),
    ],
)
def test_the_day_list_is_named_in_the_readers_language(client, settings, language, title):
    t = actions.day_tournament(dt.date(2026, 12, 5))
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    page = client.get(f"/tournaments/{t.pk}/").content.decode()
    assert title in page
    assert language == "nl" or "Daglijst" not in page
    assert t.name == "Daglijst 05-12-2026"  # stored (exports, the API) as written


def test_tick_closes_yesterdays_day_tournament_and_reveals_its_seed(make_user):
    yesterday = actions.day_tournament(timezone.localdate() - dt.timedelta(days=1))
    result = tick.apply().get()
    yesterday.refresh_from_db()
    assert result["closed"] >= 1 and yesterday.status == "closed"
    assert tick.apply().get()["closed"] == 0  # idempotent


def test_tick_starts_an_open_tournament_when_its_window_begins(make_tournament):
    soon = timezone.now() + dt.timedelta(minutes=5)
    t = make_tournament(starts_at=soon, ends_at=soon + dt.timedelta(hours=2))
    assert t.status == "open"
    actions.tick(now=soon + dt.timedelta(seconds=1))
    t.refresh_from_db()
    assert t.status == "running"
