"""Fixes from walking through the site as its users do (phone and desktop, nl and en).

Each test names what a user met: a message that landed on a 404, a wrong invite code
called something else, bare error pages, an empty "compare with" menu, a day list with
"0 / 100000" entries, the language menu naming English "Engels".
"""

# ruff: noqa: F811  (the tournaments suite's fixtures, imported, are parameters here)
from __future__ import annotations

import datetime as dt
from urllib.parse import urlencode

import pytest
from django.test import Client
from django.utils import timezone

from tests.tournaments.conftest import (  # noqa: F401  (fixtures)
    club,
    finish,
    joined,
    make_tournament,
    make_user,
    organizer,
    play_moves,
)
from tournaments import actions
from tournaments.models import Club, Entry, Tournament

pytestmark = pytest.mark.usefixtures("live_game_db")
CODE = "klaver7"


def _client(user=None, language: str = "en") -> Client:
    client = Client()
    client.cookies["django_language"] = language
    if user is not None:
        client.force_login(user)
    return client


def _messages(response) -> list[str]:
    return [str(m) for m in response.context["messages"]]


# --- joining with the invite link ------------------------------------------------------


def test_full_tournament_by_invite_link_says_full_on_the_page_not_a_404(make_tournament, make_user):
    t = make_tournament(capacity=1, invite_code=CODE)
    joined(t, make_user("anna"))
    ben = make_user("ben")  # not in the club: the code is what shows him the page
    response = _client(ben).post(f"/tournaments/{t.pk}/join/", {"invite_code": CODE}, follow=True)
    assert response.status_code == 200
    assert response.redirect_chain[-1][0] == f"/tournaments/{t.pk}/?code={CODE}"
    assert _messages(response) == ["The tournament is full"]
    body = response.content.decode()
    assert "The tournament is full" in body and "data-full" in body
    assert not Entry.objects.filter(tournament=t, player=ben).exists()


def test_wrong_invite_code_is_called_a_wrong_code(make_tournament, make_user):
    t = make_tournament(invite_code=CODE)
    ben = make_user("ben")
    response = _client(ben).post(
        f"/tournaments/{t.pk}/join/", {"invite_code": "klaver8"}, follow=True
    )
    assert response.redirect_chain[-1][0] == "/tournaments/"
    assert _messages(response) == ["Unknown invite code"]
    assert not Entry.objects.filter(tournament=t, player=ben).exists()
    # In Dutch too (the message is already in the catalog).
    response = _client(ben, "nl").post(
        f"/tournaments/{t.pk}/join/", {"invite_code": "klaver8"}, follow=True
    )
    assert _messages(response) == ["Onbekende uitnodigingscode"]


def test_wrong_code_on_a_public_tournament_keeps_the_player_on_its_page(make_tournament, make_user):
    t = actions.create_tournament(None, name="Open", invite_code=CODE, open_now=True)
    ben = make_user("ben")
    response = _client(ben).post(f"/tournaments/{t.pk}/join/", {"invite_code": "x"}, follow=True)
    assert response.redirect_chain[-1][0] == f"/tournaments/{t.pk}/"
    assert _messages(response) == ["Unknown invite code"]
    response = _client(ben).post(f"/tournaments/{t.pk}/join/", {"invite_code": CODE})
    assert response.status_code == 302 and "/game/" in response["Location"]


def test_a_member_is_not_refused_for_a_stray_code(make_tournament, make_user, club):
    t = make_tournament(invite_code=CODE)
    anna = make_user("anna")
    club.members.add(anna)
    response = _client(anna).post(f"/tournaments/{t.pk}/join/", {"invite_code": "old-code"})
    assert response.status_code == 302 and "/game/" in response["Location"]


def test_full_tournament_page_says_full_instead_of_offering_to_play(
    make_tournament, make_user, club
):
    t = make_tournament(capacity=1)
    joined(t, make_user("anna"))
    ben = make_user("ben")
    club.members.add(ben)
    body = _client(ben).get(f"/tournaments/{t.pk}/").content.decode()
    assert "This tournament is full." in body
    assert f'action="/tournaments/{t.pk}/join/"' not in body


# --- error pages ------------------------------------------------------------------------


def test_forbidden_results_page_explains_why_inside_the_site(make_tournament, make_user):
    t = make_tournament()
    anna, ben = make_user("anna"), make_user("ben")
    entry = joined(t, anna)[0]
    finish(entry)
    joined(t, ben)  # still playing: no standings yet
    response = _client(ben).get(f"/tournaments/{t.pk}/standings/")
    assert response.status_code == 403
    body = response.content.decode()
    assert "Results are visible after you finish your own game." in body
    assert 'class="site-header"' in body  # the site's page, not a bare "403 Forbidden"
    assert f'href="/tournaments/{t.pk}/"' in body  # a way back to the tournament
    assert "anna" not in body  # and still nothing of the standings


def test_unknown_page_is_the_site_404_without_developer_text(client):
    response = client.get("/tournaments/987654/")
    assert response.status_code == 404
    body = response.content.decode()
    assert 'class="site-header"' in body and "data-error-page" in body
    assert "no such tournament" not in body  # the exception text is for developers


# --- pages ------------------------------------------------------------------------------


def test_compare_deal_without_other_entries_says_so(make_tournament, make_user):
    t = make_tournament()
    anna = make_user("anna")
    entry = joined(t, anna)[0]
    finish(entry)
    body = _client(anna).get(f"/tournaments/{t.pk}/compare/1/").content.decode()
    assert "data-no-other-entry" in body
    assert '<select id="other"' not in body  # no empty menu


def test_day_list_shows_its_entries_without_the_huge_capacity(make_user):
    day = actions.day_tournament()
    body = _client(make_user("anna")).get(f"/tournaments/{day.pk}/").content.decode()
    assert f"/ {day.capacity}" not in body


def test_language_menu_names_each_language_in_itself(client):
    for language in ("nl", "fr", "en"):
        client.cookies["django_language"] = language
        body = client.get("/").content.decode()
        assert ">English</option>" in body, language
        assert ">Nederlands</option>" in body and ">Français</option>" in body, language


def test_traveller_steps_to_the_previous_and_next_deal(make_tournament, make_user):
    t = make_tournament()
    anna = make_user("anna")
    entry = joined(t, anna)[0]
    finish(entry)
    played = sorted(entry.deal_results.values_list("number", flat=True))
    assert len(played) >= 3
    client = _client(anna)
    first = client.get(f"/tournaments/{t.pk}/deal/{played[0]}/").content.decode()
    assert 'rel="prev"' not in first
    assert f'rel="next" href="/tournaments/{t.pk}/deal/{played[1]}/"' in first
    middle = client.get(f"/tournaments/{t.pk}/deal/{played[1]}/").content.decode()
    assert f'rel="prev" href="/tournaments/{t.pk}/deal/{played[0]}/"' in middle
    assert f'rel="next" href="/tournaments/{t.pk}/deal/{played[2]}/"' in middle
    last = client.get(f"/tournaments/{t.pk}/deal/{played[-1]}/").content.decode()
    assert 'rel="next"' not in last


def test_organizer_log_reads_as_sentences_not_stored_dicts(make_tournament, make_user, organizer):
    t = make_tournament()
    anna = make_user("anna")
    entry = joined(t, anna)[0]
    finish(entry)
    actions.close_tournament(t.pk, organizer)
    entry.refresh_from_db()
    before = entry.score
    actions.correct_score(entry.pk, organizer, before + 4, "wrong card after a glitch")
    body = _client(organizer).get(f"/tournaments/{t.pk}/manage/").content.decode()
    log = body.split("data-audit", 1)[1]
    assert "closed the tournament" in log
    assert f"corrected the score of anna: {before} → {before + 4}" in log
    assert "wrong card after a glitch" in log
    assert "{&#x27;" not in log and "{'" not in log  # no Python dicts


def test_closing_asks_first_and_names_how_unfinished_games_ended(
    make_tournament, make_user, organizer
):
    t = make_tournament(unfinished_rule="bot")
    anna = make_user("anna")
    (entry,) = joined(t, anna)
    play_moves(entry, anna, 3)  # left half-played: the bot finishes it at close
    client = _client(organizer)
    body = client.get(f"/tournaments/{t.pk}/manage/").content.decode()
    confirm = body.split('<details class="t-confirm">', 1)[1].split("</details>", 1)[0]
    assert f'action="/tournaments/{t.pk}/manage/close/"' in confirm  # behind a second tap
    client.post(f"/tournaments/{t.pk}/manage/close/")
    body = client.get(f"/tournaments/{t.pk}/manage/").content.decode()
    assert "(finished by the bot)" in body and "(bot)" not in body


# --- guests ----------------------------------------------------------------------------


def test_guests_are_sent_to_sign_up_before_clubs_and_tournaments(client, club):
    client.post("/play/")  # quick play: the visitor is now a guest
    assert "_auth_user_id" in client.session
    response = client.post("/clubs/new/", {"name": "Gastclub"})
    assert response.status_code == 302
    assert response["Location"] == "/accounts/signup/?next=%2Fclubs%2F"
    assert not Club.objects.filter(name="Gastclub").exists()
    join = f"/clubs/join/?code={club.invite_code}"
    response = client.get(join)
    assert response["Location"] == f"/accounts/signup/?{urlencode({'next': join})}"
    for page in ("/clubs/", "/tournaments/new/"):
        response = client.get(page)
        assert response.status_code == 302 and response["Location"].startswith(
            "/accounts/signup/?next="
        ), page
    # The sign-up page brings them back: the invite link still works afterwards.
    signup = client.get(response["Location"])
    assert signup.status_code == 200


def test_outside_the_play_window_the_page_says_so_instead_of_a_refused_button(
    make_tournament, make_user, club
):
    now = timezone.now()
    later = make_tournament(
        starts_at=now + dt.timedelta(hours=2), ends_at=now + dt.timedelta(hours=5)
    )
    over = make_tournament(ends_at=now + dt.timedelta(hours=1))
    Tournament.objects.filter(pk=over.pk).update(ends_at=now - dt.timedelta(minutes=1))
    anna = make_user("anna")
    club.members.add(anna)
    client = _client(anna)
    body = client.get(f"/tournaments/{later.pk}/").content.decode()
    assert "data-not-started" in body and "Play opens at" in body
    assert f'action="/tournaments/{later.pk}/join/"' not in body
    body = client.get(f"/tournaments/{over.pk}/").content.decode()
    assert "The play window has closed." in body
    assert f'action="/tournaments/{over.pk}/join/"' not in body


def test_printed_results_list_corrections_as_sentences(make_tournament, make_user, organizer):
    t = make_tournament()
    anna = make_user("anna")
    entry = joined(t, anna)[0]
    finish(entry)
    actions.close_tournament(t.pk, organizer)
    entry.refresh_from_db()
    before = entry.score
    actions.correct_score(entry.pk, organizer, before - 2, "telfout")
    body = _client(anna).get(f"/tournaments/{t.pk}/results/").content.decode()
    part = body.split("data-corrections", 1)[1].split("</ul>", 1)[0]
    assert f"corrected the score of anna: {before} → {before - 2}" in part and "telfout" in part
    assert "{&#x27;" not in part and "T" not in part.split("—", 1)[0]  # no dicts, no ISO time
