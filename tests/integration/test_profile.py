"""Profiles: /accounts/profile/ (your own history) and /players/<name>/ (public: closed
tournaments only). Nobody sees a rank before the fairness rules let them."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.utils import timezone

from game.models import Game
from tests.helpers import PRODUCTION_STACK
from tournaments import actions, rankings
from tournaments.models import DealResult, Entry

pytestmark = pytest.mark.usefixtures("live_game_db")


@pytest.fixture(autouse=True)
def rankings_in_process(monkeypatch):
    """Production stack: the test worker consumes only its bots queue, so the rankings
    and export tasks run here after commit (as in tests/tournaments/conftest.py)."""
    if not PRODUCTION_STACK:
        return
    from tournaments import tasks

    for task in (tasks.recompute_rankings, tasks.build_records_zip):
        monkeypatch.setattr(task, "delay", lambda *args, _task=task: _task.apply(args=args))


@pytest.fixture
def client(client, settings):
    # English pages: the assertions read labels, whatever the Dutch catalogue says.
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    return client


@pytest.fixture
def make_user(django_user_model):
    def make(name: str, **extra):
        return django_user_model.objects.create_user(name, password=f"pw-{name}-123", **extra)

    return make


def entry(t, user, *, score=None, points=None, status=Entry.Status.FINISHED):
    """An entry with hand-made results (no play needed for what a profile shows)."""
    game = Game.objects.create(owner=user, seed=t.seed, rules=t.rules)
    e = Entry.objects.create(
        tournament=t, player=user, game=game, status=status, score=score, game_score=score,
        deals_played=len(points or {}),
        finished_at=timezone.now() if status == Entry.Status.FINISHED else None,
    )  # fmt: skip
    for number, wij in (points or {}).items():
        DealResult.objects.create(
            entry=e, number=number, dealer=0, trump="H", card_points=[wij, 60 - wij],
            written=[max(0, wij - 30), max(0, 30 - wij)], multiplier=1,
        )  # fmt: skip
    return e


@pytest.fixture
def history(make_user):
    """mieke's history: a closed club night with public results (2nd of 3), yesterday's
    day list (1st of 2), a running public tournament she finished (after_finish: she may
    see it), a running one she finished but whose results show after close, and one she
    is still playing."""
    mieke, jan, piet = make_user("mieke"), make_user("jan"), make_user("piet")
    boss = make_user("boss", is_staff=True)
    club = actions.create_club(boss, "Café De Kaart")
    night = actions.create_tournament(
        boss, name="Clubavond maart", club=club, open_now=True, results_audience="everyone"
    )
    entry(night, jan, score=50, points={1: 45})
    entry(night, mieke, score=20, points={1: 30})
    entry(night, piet, score=-30, points={1: 10})
    actions.close_tournament(night.pk, boss)

    yesterday = actions.day_tournament(timezone.localdate() - dt.timedelta(days=1))
    entry(yesterday, mieke, score=77, points={1: 50})
    entry(yesterday, jan, score=3, points={1: 20})
    actions.close_tournament(yesterday.pk, None)

    visible = actions.create_tournament(boss, name="Open zondag", open_now=True)
    entry(visible, mieke, score=15, points={1: 35})
    entry(visible, jan, score=-15, points={1: 25})
    rankings.recompute(visible.pk)

    sealed = actions.create_tournament(
        boss, name="Verzegeld", open_now=True, results_visibility="after_close"
    )
    entry(sealed, mieke, score=-8, points={1: 22})
    entry(sealed, piet, score=8, points={1: 38})
    rankings.recompute(sealed.pk)

    playing = actions.create_tournament(boss, name="Nog bezig", open_now=True)
    entry(playing, mieke, status=Entry.Status.PLAYING)
    entry(playing, jan, score=40, points={1: 44})
    rankings.recompute(playing.pk)
    return {
        "mieke": mieke, "jan": jan, "night": night, "yesterday": yesterday,
        "visible": visible, "sealed": sealed, "playing": playing,
    }  # fmt: skip


def row_of(body: str, tournament) -> str:
    """The history table row that links to `tournament`."""
    for row in re.findall(r"<tr>.*?</tr>", body, flags=re.S):
        if f'href="/tournaments/{tournament.pk}/"' in row:
            return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", row)).strip()
    raise AssertionError(f"no row for {tournament.name}")


def test_own_profile_lists_every_entry_with_results_only_where_allowed(history, client):
    client.force_login(history["mieke"])
    response = client.get("/accounts/profile/")
    assert response.status_code == 200
    body = response.content.decode()
    night = row_of(body, history["night"])
    assert "Clubavond maart" in night and "20" in night and "2 / 3" in night
    assert "50.0%" in night  # one of two others beaten: 2 of 4 matchpoints
    assert "1 / 2" in row_of(body, history["yesterday"])
    assert "77" in row_of(body, history["yesterday"])
    # Running, "after you finish", finished: her rank is hers to see.
    assert "1 / 2" in row_of(body, history["visible"])
    # Running, "after close": her own score yes, her rank no.
    sealed = row_of(body, history["sealed"])
    assert "-8" in sealed and "/ 2" not in sealed and "50.0%" not in sealed
    # Still playing: no score, no rank — even though jan has finished.
    playing = row_of(body, history["playing"])
    assert "/ 1" not in playing and "40" not in playing


def test_profile_percentages_are_the_rankings_figures(history, client):
    client.force_login(history["mieke"])
    body = client.get("/accounts/profile/").content.decode()
    e = Entry.objects.get(tournament=history["night"], player=history["mieke"])
    assert e.rank == 2 and f"{e.matchpoints_pct:.1f}%" in row_of(body, history["night"])


def test_public_page_shows_closed_tournaments_only(history, client):
    for viewer in (None, history["jan"], history["mieke"]):
        if viewer:
            client.force_login(viewer)
        else:
            client.logout()
        response = client.get("/players/mieke/")
        assert response.status_code == 200
        body = response.content.decode()
        assert "2 / 3" in row_of(body, history["night"])
        assert "1 / 2" in row_of(body, history["yesterday"])
        for hidden in ("visible", "sealed", "playing"):
            assert f'href="/tournaments/{history[hidden].pk}/"' not in body
        assert "Open zondag" not in body and "Verzegeld" not in body


def test_summary_counts_closed_tournaments_only(history, client):
    body = client.get("/players/mieke/").content.decode()
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", body))
    night = Entry.objects.get(tournament=history["night"], player=history["mieke"])
    day = Entry.objects.get(tournament=history["yesterday"], player=history["mieke"])
    average = (night.matchpoints_pct + day.matchpoints_pct) / 2
    assert re.search(r"Closed tournaments played 2 ", text)
    assert f"{average:.1f}%" in text
    assert re.search(r"Wins 1 ", text)


def test_a_summary_without_matchpoints_shows_a_dash(client, make_user):
    """A tournament of tables ranks on sets, not matchpoints: no "Average MP %: %"."""
    boss, rik = make_user("boss", is_staff=True), make_user("rik")
    t = actions.create_tournament(boss, name="Tafels", open_now=True)
    played = entry(t, rik, score=10, points={1: 40})
    actions.close_tournament(t.pk, boss)
    Entry.objects.filter(pk=played.pk).update(deal_matchpoints_pct=None)
    body = client.get("/players/rik/").content.decode()
    assert re.search(r"<dd data-average-pct>—</dd>", body) and "None" not in body


def test_the_average_rounds_half_up_as_the_standings_do(client, make_user):
    boss, rik = make_user("boss", is_staff=True), make_user("rik")
    t = actions.create_tournament(boss, name="Half", open_now=True)
    played = entry(t, rik, score=10, points={1: 40})
    actions.close_tournament(t.pk, boss)
    Entry.objects.filter(pk=played.pk).update(deal_matchpoints_pct=31.25)
    body = client.get("/players/rik/").content.decode()
    assert "<dd data-average-pct>31.3%</dd>" in body  # round() gave 31.2


def test_profile_needs_a_login_and_unknown_or_guest_players_are_404(client, make_user):
    response = client.get("/accounts/profile/")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
    assert client.get("/players/nobody/").status_code == 404
    guest = make_user("gast-abc123")
    guest.set_unusable_password()
    guest.save()
    assert client.get("/players/gast-abc123/").status_code == 404
    inactive = make_user("weg", is_active=False)
    assert client.get(f"/players/{inactive.username}/").status_code == 404


def test_header_links_to_the_profile_for_logged_in_players(client, make_user):
    assert "/accounts/profile/" not in client.get("/").content.decode()
    client.force_login(make_user("mieke"))
    body = client.get("/").content.decode()
    assert 'href="/accounts/profile/"' in body and ">mieke</a>" in body


def test_empty_profile_and_page_links(client, make_user):
    user = make_user("nieuw")
    client.force_login(user)
    body = client.get("/accounts/profile/").content.decode()
    assert "/players/nieuw/" in body and "/accounts/password_change/" in body
    assert 'name="viewport"' in body  # the site's mobile layout
    # The forms that ask the current password (e-mail change, deleting the account) say
    # so to password managers.
    fields = re.findall(r'<input type="password"[^>]*>', body)
    assert len(fields) >= 2
    for field in fields:
        assert 'autocomplete="current-password"' in field, field


def test_long_histories_are_paged(client, make_user):
    me = make_user("veel")
    today = timezone.localdate()
    days = [actions.day_tournament(today - dt.timedelta(days=n)) for n in range(1, 28)]
    for t in days:
        entry(t, me, score=5, points={1: 31})
    client.force_login(me)
    first = client.get("/accounts/profile/").content.decode()
    second = client.get("/accounts/profile/?days_page=2").content.decode()
    rows = lambda body: len(re.findall(r'href="/tournaments/\d+/"', body))  # noqa: E731
    assert rows(first) == 25 and rows(second) == 2
    assert "days_page=2" in first
    assert client.get("/accounts/profile/?days_page=nonsense").status_code == 200
