"""Issue 10 item 18: a play window entirely in the past is refused (it left a tournament
that could never be played), and the form says in which time zone the window is read."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.utils import timezone

from tournaments import actions
from tournaments.forms import LOCAL_INPUT
from tournaments.models import Tournament

pytestmark = pytest.mark.usefixtures("live_game_db")


@pytest.fixture(autouse=True)
def english(client):
    client.cookies["django_language"] = "en"


def _local(moment: dt.datetime) -> str:
    return timezone.localtime(moment).strftime(LOCAL_INPUT)


def _post(client, club, start, end):
    return client.post(
        "/tournaments/new/",
        {
            "name": "Avond", "club": club.pk, "rules": "flemish", "bot_level": "heuristic",
            "capacity": 4, "starts_at": _local(start), "ends_at": _local(end),
            "results_visibility": "after_finish", "unfinished_rule": "bot", "open_now": "on",
        },
    )  # fmt: skip


def test_a_window_entirely_in_the_past_is_refused(client, club, organizer):
    client.force_login(organizer)
    now = timezone.now()
    response = _post(client, club, now - dt.timedelta(days=2), now - dt.timedelta(days=1))
    assert response.status_code == 200
    assert "The play window would be over already" in response.content.decode()
    assert not Tournament.objects.filter(name="Avond").exists()


def test_a_window_that_began_but_has_not_ended_is_accepted(client, club, organizer):
    client.force_login(organizer)
    now = timezone.now()
    response = _post(client, club, now - dt.timedelta(hours=1), now + dt.timedelta(hours=2))
    assert response.status_code == 302
    assert Tournament.objects.get(name="Avond").status == "running"


def test_the_action_refuses_it_too_but_the_system_day_list_may(club, organizer):
    past = timezone.now() - dt.timedelta(hours=1)
    with pytest.raises(actions.TournamentError, match="over already"):
        actions.create_tournament(organizer, name="Te laat", club=club, ends_at=past)
    yesterday = timezone.localdate() - dt.timedelta(days=1)
    assert actions.day_tournament(yesterday).ends_at <= timezone.now()  # closed by the tick


def test_the_form_names_the_time_zone_next_to_the_window(client, organizer, club, settings):
    client.force_login(organizer)
    html = client.get("/tournaments/new/").content.decode()
    zone = "CET/CEST"  # the zone's winter and summer names, whatever today is
    for field in ("starts_at", "ends_at"):
        help_text = re.search(
            rf'<small class="t-help" id="id_{field}_helptext">([^<]*)</small>', html
        )
        assert help_text and help_text.group(1) == f"Time zone: {settings.TIME_ZONE} ({zone})"
        assert re.search(rf'<input[^>]*aria-describedby="id_{field}_helptext"', html)


def test_the_tournament_page_names_the_zone_of_its_window(client, make_tournament, organizer):
    start = timezone.now() + dt.timedelta(days=1)
    t = make_tournament(starts_at=start, ends_at=start + dt.timedelta(hours=3))
    client.force_login(organizer)
    html = client.get(f"/tournaments/{t.pk}/").content.decode()
    assert html.count("data-zone>") == 2
    assert f"data-zone>{timezone.localtime(start).strftime('%Z')}</span>" in html
