"""A live start that cannot be drawn never leaves a club waiting without knowing why
(issue 12): once the start time has passed, the organizer's view and the players' page
say why the draw cannot be made (check_structure's refusal, in Dutch) and what can be
done; the organizer plays a writer-stays tournament as rotating partners, moves the
start time or starts now once enough players are in; each change is audited and
refused when it does not fit."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from tournaments import actions
from tournaments.models import AuditLog, Tournament

pytestmark = pytest.mark.usefixtures("live_game_db")

STUCK = "Het beginuur is voorbij, maar de tafels kunnen niet geloot worden:"
STUCK_PLAYERS = "Het beginuur is voorbij, maar de tafels kunnen nog niet geloot worden:"
TOO_FEW = "een toernooi aan tafels vraagt minstens 4 spelers (gevraagd: 3)"
ONE_TABLE = "met 5 spelers is er één tafel: niemand kan doorschuiven"


def _local_input(moment: dt.datetime) -> str:
    return timezone.localtime(moment).strftime("%Y-%m-%dT%H:%M")


@pytest.fixture
def live_tournament(club, organizer, make_user):
    """A tournament of tables with a live start in an hour and `n` players signed up;
    `passed()` moves its start time into the past (as if the hour went by)."""

    calls = []

    def make(n: int, fmt=Tournament.Format.ROTATING, players=8):
        calls.append(n)
        t = actions.create_tables_tournament(
            organizer, name="Live", club=club, fmt=fmt, players=players, sets=3, deals=1,
            open_now=True, starts_at=timezone.now() + dt.timedelta(hours=1),
        )  # fmt: skip
        users = []
        for k in range(n):
            user = make_user(f"t{len(calls)}p{k}")
            club.members.add(user)
            actions.join(t.pk, user)
            users.append(user)
        return t, users

    return make


def _passed(t: Tournament) -> None:
    Tournament.objects.filter(pk=t.pk).update(starts_at=timezone.now() - dt.timedelta(minutes=2))
    t.refresh_from_db()


def test_too_few_players_after_the_start_time_is_said_on_both_pages(
    client, organizer, live_tournament
):
    t, players = live_tournament(3)
    client.force_login(organizer)
    page = client.get(f"/tournaments/{t.pk}/tables/organize/").content.decode()
    assert "data-overdue" not in page  # before the start time: nothing wrong yet
    _passed(t)
    assert actions.tick()["tables_started"] == 0  # the tick cannot draw it
    assert not t.rounds.exists()
    page = client.get(f"/tournaments/{t.pk}/tables/organize/").content.decode()
    assert "data-overdue" in page and STUCK in page and TOO_FEW in page
    assert "3 spelers zijn ingeschreven." in page
    assert "Wat je kunt doen:" in page and "het beginuur verplaatsen" in page
    assert "data-move-start" in page and "data-start" in page
    assert "data-play-rotating" not in page  # already rotating partners
    client.force_login(players[0])
    page = client.get(f"/tournaments/{t.pk}/tables/").content.decode()
    assert STUCK_PLAYERS in page and TOO_FEW in page and "3 spelers zijn ingeschreven." in page
    assert "De organisator kan op meer spelers wachten" in page
    # The big screen of the room says it too, instead of a start time gone by.
    page = client.get(f"/tournaments/{t.pk}/tables/screen/").content.decode()
    assert STUCK_PLAYERS in page and TOO_FEW in page and "data-next-round" not in page


def test_once_enough_players_are_in_the_organizer_starts_now(
    client, organizer, club, make_user, live_tournament
):
    t, _ = live_tournament(3)
    _passed(t)
    late = make_user("laat")
    club.members.add(late)
    actions.join(t.pk, late)  # joining stays open until the draw
    client.force_login(organizer)
    page = client.get(f"/tournaments/{t.pk}/tables/organize/").content.decode()
    assert "data-overdue" not in page  # nothing in the way any more
    client.post(f"/tournaments/{t.pk}/tables/start/")
    assert t.rounds.count() == 1


def test_writer_stays_with_too_few_is_played_as_rotating_partners(
    client, organizer, live_tournament
):
    t, players = live_tournament(5, fmt=Tournament.Format.WRITER_STAYS)
    _passed(t)
    assert actions.tick()["tables_started"] == 0
    client.force_login(organizer)
    page = client.get(f"/tournaments/{t.pk}/tables/organize/").content.decode()
    assert STUCK in page and ONE_TABLE in page
    assert "of het met wisselende partners spelen" in page and "data-play-rotating" in page
    response = client.post(f"/tournaments/{t.pk}/tables/rotating/", follow=True)
    page = response.content.decode()
    assert "Het toernooi wordt nu met wisselende partners gespeeld." in page
    t.refresh_from_db()
    assert t.format == Tournament.Format.ROTATING
    log = AuditLog.objects.get(tournament=t, action="change_format")
    assert log.actor == organizer
    assert log.before == {"format": "writer-stays"} and log.after == {"format": "rotating"}
    assert "veranderde de formule naar wisselende partners" in page  # the audit trail
    # The next tick draws it: five players at two tables of rotating partners.
    assert actions.tick()["tables_started"] == 1
    assert t.rounds.count() == 1
    # Drawn: no second change.
    with pytest.raises(actions.TournamentError, match="the draw has been made"):
        actions.play_as_rotating(t.pk, organizer)


def test_the_format_change_is_refused_when_it_does_not_fit(
    client, organizer, make_user, live_tournament
):
    t, players = live_tournament(5, fmt=Tournament.Format.WRITER_STAYS)
    # Not an organizer: the page refuses, the action too.
    client.force_login(players[0])
    assert client.post(f"/tournaments/{t.pk}/tables/rotating/").status_code == 403
    with pytest.raises(actions.NotAllowed):
        actions.play_as_rotating(t.pk, players[0])
    t.refresh_from_db()
    assert t.format == Tournament.Format.WRITER_STAYS
    # A rotating tournament is not changed again.
    r, _ = live_tournament(0)
    with pytest.raises(actions.TournamentError, match="only a writer-stays tournament"):
        actions.play_as_rotating(r.pk, organizer)
    # Already drawn (8 players came and the organizer started it): refused, in Dutch.
    w, _ = live_tournament(8, fmt=Tournament.Format.WRITER_STAYS, players=8)
    actions.start_tables(w.pk, organizer)
    client.force_login(organizer)
    page = client.post(f"/tournaments/{w.pk}/tables/rotating/", follow=True).content.decode()
    assert "De loting is gebeurd: het begin kan niet meer veranderen" in page
    w.refresh_from_db()
    assert w.format == Tournament.Format.WRITER_STAYS
    assert not AuditLog.objects.filter(action="change_format").exists()


def test_the_organizer_moves_the_start_time(client, organizer, live_tournament):
    t, _ = live_tournament(3)
    _passed(t)
    client.force_login(organizer)
    later = timezone.now() + dt.timedelta(days=1)
    response = client.post(
        f"/tournaments/{t.pk}/tables/move-start/", {"starts_at": _local_input(later)}, follow=True
    )
    page = response.content.decode()
    assert "Het beginuur is verplaatst." in page and "data-overdue" not in page
    t.refresh_from_db()
    assert t.starts_at == later.replace(second=0, microsecond=0)
    log = AuditLog.objects.get(tournament=t, action="move_start")
    assert log.actor == organizer and log.after["starts_at"].startswith(_local_input(later))
    assert "verplaatste het begin" in page
    # In the log as the pages write times (7/12/2026 11:45), not ISO text.
    shown = timezone.localtime(later)
    assert f"→ {shown.day}/{shown.month}/{shown.year} {shown:%H:%M}" in page, page
    assert _local_input(later) not in page.split("verplaatste het begin")[1][:80]
    # The players' page shows the new start, and no longer says it is stuck.
    assert actions.tick()["tables_started"] == 0
    page = client.get(f"/tournaments/{t.pk}/tables/").content.decode()
    assert "data-overdue" not in page


def test_moving_the_start_is_refused_when_it_does_not_fit(client, organizer, live_tournament):
    t, players = live_tournament(4)
    _passed(t)
    before = t.starts_at
    client.force_login(organizer)
    # A time in the past.
    past = timezone.now() - dt.timedelta(hours=1)
    page = client.post(
        f"/tournaments/{t.pk}/tables/move-start/", {"starts_at": _local_input(past)}, follow=True
    ).content.decode()
    assert "Het nieuwe beginuur is al voorbij: kies een tijdstip in de toekomst" in page
    # No time at all.
    page = client.post(
        f"/tournaments/{t.pk}/tables/move-start/", {"starts_at": "morgen"}, follow=True
    ).content.decode()
    assert "Geef het nieuwe beginuur als een datum en een uur." in page
    # A time the clocks skip (or pass twice): said as such, not "give a date and a time".
    for night in ("2027-03-28T02:30", "2027-10-31T02:30"):
        page = client.post(
            f"/tournaments/{t.pk}/tables/move-start/", {"starts_at": night}, follow=True
        ).content.decode()
        assert "dubbelzinnig of bestaat deze niet" in page, night
        assert "Geef het nieuwe beginuur" not in page
    # Not an organizer.
    client.force_login(players[0])
    later = timezone.now() + dt.timedelta(hours=3)
    response = client.post(
        f"/tournaments/{t.pk}/tables/move-start/", {"starts_at": _local_input(later)}
    )
    assert response.status_code == 403
    with pytest.raises(actions.NotAllowed):
        actions.move_start(t.pk, players[0], later)
    t.refresh_from_db()
    assert t.starts_at == before
    # Already drawn.
    actions.start_tables(t.pk, organizer)
    with pytest.raises(actions.TournamentError, match="the draw has been made"):
        actions.move_start(t.pk, organizer, later)
    assert not AuditLog.objects.filter(tournament=t, action="move_start").exists()


def test_the_tables_page_names_the_zone_of_its_start(client, organizer, live_tournament):
    """As a solo tournament's page: the start time with its zone (CET, CEST), for a
    player online elsewhere."""
    t, _ = live_tournament(0)
    client.force_login(organizer)
    html = client.get(f"/tournaments/{t.pk}/tables/").content.decode()
    zone = timezone.localtime(t.starts_at).strftime("%Z")
    assert f"data-zone>{zone}</span>" in html
