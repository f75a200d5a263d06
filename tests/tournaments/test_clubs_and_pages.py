"""Clubs (invite codes, organizers) and every tournament page rendering."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.utils import timezone

from tests.tournaments.conftest import finish, joined
from tournaments import actions
from tournaments.models import Club

pytestmark = pytest.mark.usefixtures("live_game_db")


def test_club_invite_code_makes_a_member(client, make_user, club, organizer):
    anna = make_user("anna")
    client.force_login(anna)
    assert client.get(f"/clubs/{club.slug}/").status_code == 404
    response = client.post("/clubs/join/", {"code": club.invite_code})
    assert response.status_code == 302 and club.is_member(anna)
    page = client.get(f"/clubs/{club.slug}/").content.decode()
    assert club.invite_code not in page  # only organizers see the invite link
    client.force_login(organizer)
    assert club.invite_code in client.get(f"/clubs/{club.slug}/").content.decode()


def test_a_new_invite_code_retires_the_old_one(client, club, organizer, make_user):
    old = club.invite_code
    client.force_login(organizer)
    # One tap asks first (the link already shared stops working), the second does it.
    page = client.get(f"/clubs/{club.slug}/").content.decode()
    asked = re.search(r"<details class=\"t-confirm\" data-new-invite>(.*?)</details>", page, re.S)
    assert asked and 'name="new_invite"' in asked.group(1), page
    assert "werkt dan niet meer" in asked.group(1)
    client.post(f"/clubs/{club.slug}/", {"new_invite": "1"})
    club.refresh_from_db()
    assert club.invite_code != old
    with pytest.raises(actions.CannotJoin):
        actions.join_club(make_user("anna"), old)


def test_creating_a_club_makes_you_its_organizer(client, make_user):
    anna = make_user("anna")
    client.force_login(anna)
    response = client.post("/clubs/new/", {"name": "Café De Kroon"})
    club = Club.objects.get(name="Café De Kroon")
    assert response["Location"] == f"/clubs/{club.slug}/"
    assert club.is_organizer(anna) and club.is_member(anna)
    assert client.get("/clubs/").status_code == 200


def test_every_page_renders_for_a_finished_player_and_after_close(
    make_tournament, make_user, organizer, client
):
    t = make_tournament(seed="all-pages")
    anna = make_user("anna")
    (entry,) = joined(t, anna)
    finish(entry)
    client.force_login(anna)
    pages = ["", "standings/", "deal/1/", "compare/", "compare/1/", "verify/", "results/"]
    for page in pages:
        assert client.get(f"/tournaments/{t.pk}/{page}").status_code == 200, page
    assert client.get("/tournaments/").status_code == 200
    actions.close_tournament(t.pk, organizer)
    client.force_login(organizer)
    for page in [*pages[:3], "verify/", "results/", "manage/", "manage/deals/"]:
        assert client.get(f"/tournaments/{t.pk}/{page}").status_code == 200, page
    assert client.get(f"/tournaments/{t.pk}/standings/?format=json").json()["rows"][0]["rank"] == 1


def test_only_organizers_see_the_member_names(client, make_user, club, organizer):
    anna, ben = make_user("anna"), make_user("ben")
    club.members.add(anna, ben)
    client.force_login(ben)
    page = client.get(f"/clubs/{club.slug}/").content.decode()
    assert "anna" not in page
    client.force_login(organizer)
    assert "anna" in client.get(f"/clubs/{club.slug}/").content.decode()


def _messages(response) -> list[str]:
    return [str(m) for m in response.context["messages"]] if response.context else []


@pytest.fixture
def en_client(client):
    client.cookies["django_language"] = "en"
    return client


def test_an_organizer_shares_the_club_and_hands_it_over(
    en_client, make_user, club, organizer, make_tournament
):
    t = make_tournament(seed="hand-over")
    anna = make_user("anna")
    club.members.add(anna)
    en_client.force_login(organizer)
    response = en_client.post(f"/clubs/{club.slug}/", {"organizer": anna.pk}, follow=True)
    assert club.is_organizer(anna)
    assert "anna is now an organizer." in _messages(response)
    # Anna runs the club now: its tournaments, its member names, a new tournament in it.
    en_client.force_login(anna)
    assert en_client.get(f"/tournaments/{t.pk}/manage/").status_code == 200
    assert "organizer" in en_client.get(f"/clubs/{club.slug}/").content.decode()
    response = en_client.post(f"/clubs/{club.slug}/", {"not_organizer": organizer.pk}, follow=True)
    assert not club.is_organizer(organizer) and club.is_member(organizer)
    assert "organizer is no longer an organizer." in _messages(response)
    # The organizer who stepped down no longer runs the tournament they created.
    en_client.force_login(organizer)
    assert en_client.get(f"/tournaments/{t.pk}/manage/").status_code in (403, 404)
    page = en_client.get(f"/clubs/{club.slug}/").content.decode()
    assert "Make organizer" not in page and "anna" not in page.split("Organizers")[0]


def test_a_club_always_keeps_an_organizer(en_client, make_user, club, organizer):
    anna = make_user("anna")
    club.members.add(anna)
    en_client.force_login(organizer)
    page = en_client.get(f"/clubs/{club.slug}/").content.decode()
    assert 'name="not_organizer"' not in page and 'name="leave"' not in page
    for post in ({"not_organizer": organizer.pk}, {"leave": "1"}):
        response = en_client.post(f"/clubs/{club.slug}/", post, follow=True)
        assert club.is_organizer(organizer) and club.is_member(organizer)
        assert any("at least one organizer" in m for m in _messages(response)), post
    with pytest.raises(actions.TournamentError, match="at least one organizer"):
        actions.set_club_organizer(organizer, club, organizer.pk, False)
    with pytest.raises(actions.TournamentError, match="at least one organizer"):
        actions.leave_club(organizer, club, removed_by=organizer)


def test_only_organizers_change_who_is_in_the_club(en_client, make_user, club, organizer):
    anna, ben = make_user("anna"), make_user("ben")
    club.members.add(anna, ben)
    en_client.force_login(anna)
    for post in ({"organizer": anna.pk}, {"remove": ben.pk}, {"not_organizer": organizer.pk}):
        response = en_client.post(f"/clubs/{club.slug}/", post, follow=True)
        assert response.status_code == 200
        assert "Only the club's organizers can do that" in _messages(response), post
    assert not club.is_organizer(anna) and club.is_member(ben) and club.is_organizer(organizer)
    with pytest.raises(actions.NotAllowed):
        actions.set_club_organizer(anna, club, anna.pk, True)
    with pytest.raises(actions.NotAllowed):
        actions.leave_club(ben, club, removed_by=anna)


def test_bad_member_ids_are_refused_with_a_message(en_client, make_user, club, organizer):
    outsider = make_user("outsider")
    en_client.force_login(organizer)
    for post in ({"organizer": "abc"}, {"organizer": outsider.pk}, {"remove": "99999"}):
        response = en_client.post(f"/clubs/{club.slug}/", post, follow=True)
        assert response.status_code == 200
        assert "That player is not a member of the club" in _messages(response), post
    assert not club.is_member(outsider)


def test_a_member_taken_out_keeps_their_game_but_not_the_club(
    en_client, make_user, club, organizer, make_tournament
):
    t = make_tournament(seed="taken-out")
    anna, ben = make_user("anna"), make_user("ben")
    (entry,) = joined(t, anna)
    club.members.add(ben)
    en_client.force_login(organizer)
    response = en_client.post(f"/clubs/{club.slug}/", {"remove": anna.pk}, follow=True)
    assert "anna is no longer in the club." in _messages(response)
    assert not club.is_member(anna)
    en_client.force_login(anna)
    assert en_client.get(f"/clubs/{club.slug}/").status_code == 404
    # Her entry and its game are hers still: the tournament she plays stays open to her.
    assert en_client.get(f"/tournaments/{t.pk}/").status_code == 200
    assert en_client.get(f"/game/{entry.game.public_id}/").status_code == 200
    # A member leaves on their own: back to the list of clubs, the club gone from it.
    en_client.force_login(ben)
    response = en_client.post(f"/clubs/{club.slug}/", {"leave": "1"})
    assert response["Location"] == "/clubs/"
    assert not club.is_member(ben)
    assert (
        club.name
        not in en_client.get("/clubs/").content.decode().split("</h1>")[1].split("Join a club")[0]
    )


def test_new_tournament_without_a_club_shows_the_way_to_one(en_client, make_user, club):
    anna = make_user("anna")
    club.members.add(anna)  # a member, not an organizer
    en_client.force_login(anna)
    page = en_client.get("/tournaments/new/").content.decode()
    assert "data-no-club" in page and "data-create-form" not in page
    assert 'href="/clubs/"' in page
    actions.create_club(anna, "Eigen Club")
    page = en_client.get("/tournaments/new/").content.decode()
    assert "data-no-club" not in page and "data-create-form" in page


def test_an_organizer_renames_the_club_and_its_address_stays(en_client, make_user, club, organizer):
    slug = club.slug
    en_client.force_login(organizer)
    response = en_client.post(f"/clubs/{slug}/", {"rename": " De Witte Manille "}, follow=True)
    assert "The club is now called De Witte Manille." in _messages(response)
    club.refresh_from_db()
    assert (club.name, club.slug) == ("De Witte Manille", slug)
    for bad, message in (("", "A club needs a name."), ("Twee\nregels", "one line")):
        response = en_client.post(f"/clubs/{slug}/", {"rename": bad}, follow=True)
        assert any(message in m for m in _messages(response)), bad
    anna = make_user("anna")
    club.members.add(anna)
    en_client.force_login(anna)
    assert 'name="rename"' not in en_client.get(f"/clubs/{slug}/").content.decode()
    response = en_client.post(f"/clubs/{slug}/", {"rename": "Van Anna"}, follow=True)
    assert "Only the club's organizers can do that" in _messages(response)
    club.refresh_from_db()
    assert club.name == "De Witte Manille"


def test_the_list_puts_what_can_be_played_first_with_its_window(
    en_client, make_user, organizer, make_tournament
):
    end = timezone.now() + dt.timedelta(days=2)
    running = make_tournament(seed="list-run", name="Lopend", ends_at=end)
    over = make_tournament(seed="list-over", name="Voorbij")
    actions.close_tournament(over.pk, organizer)
    en_client.force_login(organizer)
    page = en_client.get("/tournaments/").content.decode()
    current = page.split("data-current")[1].split("</ul>")[0]
    finished = page.split("data-finished")[1].split("</ul>")[0]
    assert running.name in current and "until " in current and over.name not in current
    assert over.name in finished and running.name not in finished


def test_the_club_page_lists_its_open_tournaments_before_the_finished(
    en_client, make_user, club, organizer, make_tournament
):
    running = make_tournament(seed="club-run", name="Lopend")
    over = make_tournament(seed="club-over", name="Voorbij")
    actions.close_tournament(over.pk, organizer)
    anna = make_user("anna")
    club.members.add(anna)
    en_client.force_login(anna)
    page = en_client.get(f"/clubs/{club.slug}/").content.decode()
    current = page.split("data-current")[1].split("</ul>")[0]
    finished = page.split("data-finished")[1].split("</ul>")[0]
    assert running.name in current and over.name in finished and over.name not in current
    # Only finished ones: the list above says none is open now (not "no tournaments yet").
    actions.close_tournament(running.pk, organizer)
    page = en_client.get(f"/clubs/{club.slug}/").content.decode()
    current = page.split("data-current")[1].split("</ul>")[0]
    assert "None open or running now." in current and "No tournaments yet" not in current


def test_standings_waiting_for_the_rankings_task_say_so(
    make_tournament, fake_entry, organizer, client
):
    """An entry finished (or finished by the bot at the close) while the rankings task has
    not run yet: it has no place and the others' figures are the smaller field's. The
    page, its JSON and the printable results say the standings are not final."""
    from tests.helpers import wait_for_idle_worker
    from tournaments import rankings

    t = make_tournament(seed="pending-ranks", results_audience="everyone")
    fake_entry(t, "anna", 20, {1: 40})
    fake_entry(t, "bert", -20, {1: 20})
    actions.close_tournament(t.pk, organizer)
    wait_for_idle_worker()
    rankings.recompute(t.pk)
    client.force_login(organizer)
    page = client.get(f"/tournaments/{t.pk}/standings/").content.decode()
    assert re.search(r"data-rankings-pending hidden", page)
    assert client.get(f"/tournaments/{t.pk}/standings/?format=json").json()["pending"] is False
    # A third finish the task has not ranked yet (its worker is away).
    fake_entry(t, "cis", 60, {1: 50})
    page = client.get(f"/tournaments/{t.pk}/standings/").content.decode()
    assert "data-rankings-pending>" in page and "De stand wordt berekend" in page
    assert client.get(f"/tournaments/{t.pk}/standings/?format=json").json()["pending"] is True
    printed = client.get(f"/tournaments/{t.pk}/results/").content.decode()
    assert "Niet definitief" in printed
    rankings.recompute(t.pk)
    assert "Niet definitief" not in client.get(f"/tournaments/{t.pk}/results/").content.decode()
    data = client.get(f"/tournaments/{t.pk}/standings/?format=json").json()
    assert data["pending"] is False and [r["player"] for r in data["rows"]][0] == "cis"


def test_a_member_is_asked_before_results_rule_them_out_of_entering(
    make_tournament, fake_entry, make_user, client
):
    """Looking at an open solo tournament's results rules someone without an entry (a
    club member, another organizer) out of it. A GET (a link, maybe from another site)
    used to decide that; now the page asks and only the answer (a POST) records it."""
    t = make_tournament(seed="look-first", results_audience="everyone")
    fake_entry(t, "anna", 20, {1: 40})
    organizer = make_user("bram")  # the club's second organizer, not entered (yet)
    t.club.members.add(organizer)
    t.club.organizers.add(organizer)
    client.force_login(organizer)
    for path in ("standings/", "deal/1/", "results/", "export/standings.csv"):
        asked = client.get(f"/tournaments/{t.pk}/{path}")
        assert asked.status_code == 200, path
        body = asked.content.decode()
        assert "data-look-first" in body and "anna" not in body, path
        assert f'name="next" value="/tournaments/{t.pk}/{path}"' in body
        # HEAD (a link checker, a preview) is a GET without its body: it decides nothing.
        assert client.head(f"/tournaments/{t.pk}/{path}").status_code == 200, path
    assert not t.deals_seen_by.filter(pk=organizer.pk).exists()  # may still enter
    # Another site as the way back is not followed.
    away = client.post(f"/tournaments/{t.pk}/look/", {"next": "https://evil.example/x"})
    assert away.status_code == 302 and away["Location"] == f"/tournaments/{t.pk}/standings/"
    assert t.deals_seen_by.filter(pk=organizer.pk).exists()
    shown = client.get(f"/tournaments/{t.pk}/deal/1/").content.decode()
    assert "data-look-first" not in shown and "anna" in shown
    back = client.post(f"/tournaments/{t.pk}/look/", {"next": f"/tournaments/{t.pk}/deal/1/"})
    assert back["Location"] == f"/tournaments/{t.pk}/deal/1/"
    assert client.get(f"/tournaments/{t.pk}/look/").status_code == 405
