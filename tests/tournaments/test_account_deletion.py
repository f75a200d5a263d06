"""A player deletes their account from the profile: the person goes (name, e-mail
address, password, clubs, every session), their results stay under an anonymous name so
that the others' rankings stay right, and what carries the old name (stored records,
the records archive, the audit trail) no longer does. What cannot be left behind (a
club or a tournament with nobody to run it, a seat at a drawn table) is named first."""

from __future__ import annotations

import io
import zipfile

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from accounts import actions as account_actions
from game import actions as game_actions
from game.models import Game, Seat
from tests.tournaments.conftest import finish, joined
from tournaments import actions
from tournaments.models import AuditLog, Entry, ExportArchive, Tournament

pytestmark = pytest.mark.usefixtures("live_game_db")


def _client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _delete(client: Client, user, password: str | None = None):
    password = password or f"pw-{user.get_username()}-123"
    return client.post("/accounts/profile/delete/", {"password": password})


def test_a_deleted_account_leaves_its_results_under_an_anonymous_name(
    make_tournament, make_user, organizer
):
    t = make_tournament(seed="delete-me", results_visibility=Tournament.Visibility.AFTER_CLOSE)
    anna, ben = make_user("annabel", email="anna@example.org"), make_user("ben")
    entries = joined(t, anna, ben)
    for entry in entries:
        finish(entry)
    actions.correct_score(entries[0].pk, organizer, entries[0].score + 2, "telfout")
    actions.close_tournament(t.pk, organizer)
    assert ExportArchive.objects.filter(tournament=t).exists()
    assert "annabel" in Game.objects.get(pk=entries[0].game_id).record
    phone, laptop = _client(anna), _client(anna)
    page = phone.get("/accounts/profile/").content.decode()
    assert "data-delete-account" in page and "data-delete-blockers" not in page

    response = _delete(phone, anna)

    assert response.status_code == 302 and response["Location"] == "/accounts/deleted/"
    assert "Je account is verwijderd" in phone.get(response["Location"]).content.decode()
    anna = get_user_model().objects.get(pk=anna.pk)
    assert anna.username.startswith("anoniem-") and anna.email == ""
    assert not anna.is_active and not anna.has_usable_password()
    # Logged out everywhere, and the old name and password no longer log in.
    for client in (phone, laptop):
        assert client.get("/accounts/profile/")["Location"].startswith("/accounts/login/")
    assert not Client().login(username="annabel", password="pw-annabel-123")
    assert Client().get("/players/annabel/").status_code == 404
    assert Client().get(f"/players/{anna.username}/").status_code == 404
    # The results stay: same entries, same ranking, the anonymous name, no page to link.
    entry = Entry.objects.get(pk=entries[0].pk)
    assert entry.player_id == anna.pk and entry.rank is not None
    standings = _client(ben).get(f"/tournaments/{t.pk}/standings/").content.decode()
    assert anna.username in standings and "annabel" not in standings
    assert f"/players/{anna.username}/" not in standings
    # Nothing stored carries the old name any more.
    assert "annabel" not in Game.objects.get(pk=entry.game_id).record
    assert anna.username in Game.objects.get(pk=entry.game_id).record
    log = AuditLog.objects.get(tournament=t, action="correct_score")
    assert log.before["player"] == anna.username
    archive = _client(organizer).get(f"/tournaments/{t.pk}/export/records.zip")
    with zipfile.ZipFile(
        io.BytesIO(b"".join(archive.streaming_content) if archive.streaming else archive.content)
    ) as zf:
        text = "".join(zf.read(name).decode() + name for name in zf.namelist())
    assert "annabel" not in text and anna.username in text
    assert ExportArchive.objects.filter(tournament=t).exists()  # built again
    # The name is free again, and a new "annabel" is somebody else.
    other = make_user("annabel")
    assert other.pk != anna.pk and not Entry.objects.filter(player=other).exists()


def test_a_wrong_password_deletes_nothing_and_counts_like_a_login(make_user, settings):
    # A user and an address of their own: failed-login counts of other tests stay apart.
    settings.LOGIN_RATE_LIMIT = 2
    jef = make_user("jef-verwijdert")
    client = _client(jef)
    addr = {"REMOTE_ADDR": "198.51.100.77"}
    for _ in range(2):
        response = client.post("/accounts/profile/delete/", {"password": "niet-het-mijne"}, **addr)
        assert response.status_code == 400
        assert "Dat is niet je huidige wachtwoord." in response.content.decode()
    right = {"password": "pw-jef-verwijdert-123"}
    # Even the right password waits now.
    assert client.post("/accounts/profile/delete/", right, **addr).status_code == 429
    jef.refresh_from_db()
    assert jef.is_active and jef.username == "jef-verwijdert"


def test_the_form_is_post_only_for_logged_in_accounts_with_a_csrf_token(make_user):
    jef = make_user("jef")
    assert Client().post("/accounts/profile/delete/", {"password": "x"}).status_code == 302
    assert _client(jef).get("/accounts/profile/delete/")["Location"] == "/accounts/profile/"
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(jef)
    assert _delete(strict, jef).status_code == 403
    jef.refresh_from_db()
    assert jef.is_active


def test_the_last_organizer_of_a_club_with_members_hands_it_over_first(club, organizer, make_user):
    anna = make_user("anna")
    club.members.add(anna)
    client = _client(organizer)
    page = client.get("/accounts/profile/").content.decode()
    assert "data-delete-blockers" in page and "De Zwarte Manille" in page
    assert 'action="/accounts/profile/delete/"' not in page  # nothing to send yet
    response = _delete(client, organizer)
    assert response.status_code == 409
    assert "enige organisator van de club" in response.content.decode()
    organizer.refresh_from_db()
    assert organizer.is_active and club.is_organizer(organizer)

    actions.set_club_organizer(organizer, club, anna.pk, True)
    assert _delete(client, organizer).status_code == 302
    club.refresh_from_db()
    assert list(club.organizers.all()) == [anna]
    assert not club.members.filter(pk=organizer.pk).exists()
    # Anna runs the club's tournaments from now on.
    t = actions.create_tournament(anna, name="Na de overdracht", club=club, open_now=True)
    assert actions.is_organizer(anna, t)


def test_a_tournament_still_going_with_nobody_else_to_run_it_is_named(make_user):
    solo = make_user("solo")
    lone = actions.create_club(solo, "Alleen")
    t = actions.create_tournament(solo, name="Lopend", club=lone, open_now=True)
    assert account_actions.blockers(solo) == [
        "Je club “Alleen” heeft een toernooi dat nog niet gesloten is: sluit eerst “Lopend”."
    ]
    actions.close_tournament(t.pk, solo)
    assert account_actions.blockers(solo) == []
    account_actions.delete_account(solo)
    lone.refresh_from_db()
    assert not lone.organizers.exists() and not lone.members.exists()
    assert Tournament.objects.filter(pk=t.pk).exists()  # its history stays


def test_a_sign_up_goes_before_the_draw_and_a_drawn_seat_blocks(club, organizer, make_user):
    t = actions.create_tables_tournament(
        organizer, name="Kampioenschap", club=club, fmt=Tournament.Format.ROTATING,
        players=8, sets=3, deals=1, open_now=True,
    )  # fmt: skip
    players = [make_user(f"p{k}") for k in range(9)]
    for user in players:
        club.members.add(user)
    for user in players[:8]:
        actions.join(t.pk, user)
    account_actions.delete_account(players[7])  # its place is free again
    assert not Entry.objects.filter(tournament=t, player=players[7]).exists()
    actions.join(t.pk, players[8])
    actions.start_tables(t.pk, organizer)
    response = _delete(_client(players[0]), players[0])
    assert response.status_code == 409
    assert "de tafels zijn geloot" in response.content.decode()
    players[0].refresh_from_db()
    assert players[0].is_active
    actions.close_tournament(t.pk, organizer)
    assert account_actions.blockers(players[0]) == []


def test_tables_with_friends_go_on_without_the_deleted_account(make_user):
    host, guest, friend = make_user("host"), make_user("gastvrij"), make_user("vriend")
    waiting = game_actions.create_table(host)
    game_actions.sit(waiting.public_id, guest, 1)
    playing = game_actions.create_table(friend)
    game_actions.sit(playing.public_id, host, 2)
    for seat in (1, 3):
        game_actions.add_bot(playing.public_id, friend, seat)
    game_actions.start(playing.public_id, friend)

    account_actions.delete_account(host)

    # The table it hosted had not started: it closes. At the one in play the bot plays on.
    assert not Game.objects.filter(pk=waiting.pk).exists()
    seat = Seat.objects.get(game=playing, index=2)
    assert seat.left and seat.bot_control
    assert Game.objects.get(pk=playing.pk).status == Game.Status.ACTIVE
    with pytest.raises(account_actions.AccountError, match="al verwijderd"):
        account_actions.delete_account(host)


def test_nobody_signs_up_with_a_name_deleted_accounts_get(client):
    response = client.post(
        "/accounts/signup/",
        {"username": "Anoniem-1234", "password1": "een-lang-wachtwoord-9",
         "password2": "een-lang-wachtwoord-9"},
    )  # fmt: skip
    assert response.status_code == 200
    assert "zijn voorbehouden" in response.content.decode()
    assert not get_user_model().objects.filter(username="Anoniem-1234").exists()


def test_the_admin_makes_a_player_anonymous_instead_of_deleting_results(
    make_tournament, make_user, organizer
):
    t = make_tournament(seed="admin-delete")
    anna, ben, lone = make_user("anna"), make_user("ben"), make_user("alleen")
    entries = joined(t, anna, ben)
    finish(entries[0])
    admin_user = make_user("beheer", is_staff=True, is_superuser=True)
    client = _client(admin_user)
    # Deleting anna would take her entry and change ben's ranking: not offered.
    page = client.get(f"/admin/auth/user/{anna.pk}/change/").content.decode()
    assert f"/admin/auth/user/{anna.pk}/delete/" not in page
    assert client.get(f"/admin/auth/user/{anna.pk}/delete/").status_code == 403
    listing = client.get("/admin/auth/user/").content.decode()
    assert 'value="delete_selected"' not in listing and 'value="anonymize"' in listing
    response = client.post(
        "/admin/auth/user/",
        {"action": "anonymize", "_selected_action": [anna.pk, organizer.pk]},
        follow=True,
    )
    messages = response.content.decode()
    assert "1 account(s) anoniem gemaakt." in messages
    assert "rganizer: Je bent de enige organisator" in messages  # (capitalized)
    anna.refresh_from_db()
    assert anna.username.startswith("anoniem-") and not anna.is_active
    assert Entry.objects.filter(pk=entries[0].pk, player=anna).exists()
    # Somebody who never played with anyone is deleted for good, as before.
    assert client.get(f"/admin/auth/user/{lone.pk}/delete/").status_code == 200
    client.post(f"/admin/auth/user/{lone.pk}/delete/", {"post": "yes"})
    assert not get_user_model().objects.filter(pk=lone.pk).exists()
