"""Joining: one entry per account, capacity, club membership, organizers who looked."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction

from tests.tournaments.conftest import joined
from tournaments import actions
from tournaments.models import Entry

pytestmark = pytest.mark.usefixtures("live_game_db")


def test_joining_twice_gives_the_same_entry_and_one_game(make_tournament, make_user, club):
    t = make_tournament()
    anna = make_user("anna")
    club.members.add(anna)
    first = actions.join(t.pk, anna)
    again = actions.join(t.pk, anna)
    assert first.pk == again.pk
    assert Entry.objects.filter(tournament=t, player=anna).count() == 1
    assert anna.games.count() == 1


def test_the_database_refuses_a_second_entry(make_tournament, make_user, club):
    t = make_tournament()
    anna = make_user("anna")
    club.members.add(anna)
    entry = actions.join(t.pk, anna)
    from game.models import Game

    other_game = Game.objects.create(owner=anna, seed=t.seed)
    with pytest.raises(IntegrityError), transaction.atomic():
        Entry.objects.create(tournament=t, player=anna, game=other_game)
    assert Entry.objects.get(tournament=t, player=anna) == entry


def test_a_full_tournament_refuses_more_entries(make_tournament, make_user, club):
    t = make_tournament(capacity=1)
    anna, ben = make_user("anna"), make_user("ben")
    club.members.add(anna, ben)
    actions.join(t.pk, anna)
    with pytest.raises(actions.CannotJoin, match="full"):
        actions.join(t.pk, ben)


def test_club_tournament_is_for_members_or_invite_code(make_tournament, make_user):
    t = make_tournament(invite_code="geheim")
    stranger = make_user("stranger")
    with pytest.raises(actions.CannotJoin):
        actions.join(t.pk, stranger)
    with pytest.raises(actions.CannotJoin):
        actions.join(t.pk, stranger, "fout")
    assert actions.join(t.pk, stranger, "geheim").player == stranger


def test_organizer_who_saw_the_deals_cannot_enter(make_tournament, organizer, client):
    t = make_tournament()
    client.force_login(organizer)
    response = client.post(f"/tournaments/{t.pk}/manage/deals/")
    assert response.status_code == 200
    assert t.deals_seen_by.filter(pk=organizer.pk).exists()
    with pytest.raises(actions.CannotJoin, match="seen"):
        actions.join(t.pk, organizer)


def test_viewing_the_deals_asks_first_and_records_nothing(make_tournament, organizer, client):
    t = make_tournament()
    client.force_login(organizer)
    response = client.get(f"/tournaments/{t.pk}/manage/deals/")
    assert response.status_code == 200
    assert not t.deals_seen_by.exists()


def test_a_draft_or_closed_tournament_cannot_be_joined(make_tournament, make_user, club, organizer):
    draft = make_tournament(open_now=False)
    anna = make_user("anna")
    club.members.add(anna)
    with pytest.raises(actions.CannotJoin, match="not open"):
        actions.join(draft.pk, anna)
    closed = make_tournament()
    actions.close_tournament(closed.pk, organizer)
    with pytest.raises(actions.CannotJoin, match="not open"):
        actions.join(closed.pk, anna)


def test_join_view_redirects_to_the_table(make_tournament, make_user, club, client):
    t = make_tournament()
    anna = make_user("anna")
    club.members.add(anna)
    client.force_login(anna)
    response = client.post(f"/tournaments/{t.pk}/join/")
    entry = Entry.objects.get(tournament=t, player=anna)
    assert response.status_code == 302
    assert response["Location"] == f"/game/{entry.game.public_id}/"


def test_organizer_who_chose_the_seed_cannot_enter(make_tournament, organizer):
    t = make_tournament(seed="ik-ken-de-kaarten")
    with pytest.raises(actions.CannotJoin, match="seen"):
        actions.join(t.pk, organizer)


def test_organizer_opening_the_pages_without_looking_can_still_enter(
    make_tournament, organizer, client
):
    t = make_tournament()  # random seed: nobody knows the deals
    client.force_login(organizer)
    assert client.get(f"/tournaments/{t.pk}/").status_code == 200
    assert client.get(f"/tournaments/{t.pk}/manage/").status_code == 200
    assert client.get("/tournaments/").status_code == 200
    assert not t.deals_seen_by.exists()
    assert actions.join(t.pk, organizer).player == organizer


def test_joining_before_the_play_window_is_refused(make_tournament, make_user, club):
    import datetime as dt

    from django.utils import timezone

    start = timezone.now() + dt.timedelta(hours=1)
    t = make_tournament(starts_at=start, ends_at=start + dt.timedelta(hours=3))
    anna = make_user("anna")
    club.members.add(anna)
    with pytest.raises(actions.CannotJoin, match="not started"):
        actions.join(t.pk, anna)


def test_deleting_a_player_account_deletes_their_entry_and_game(make_tournament, make_user):
    from django.db.models import RestrictedError

    from game.models import Game

    t = make_tournament()
    anna = make_user("anna")
    (entry,) = joined(t, anna)
    with pytest.raises(RestrictedError):
        Game.objects.get(pk=entry.game_id).delete()  # not from under the entry
    anna.delete()
    assert not Entry.objects.filter(pk=entry.pk).exists()
    assert not Game.objects.filter(pk=entry.game_id).exists()


def test_guest_accounts_cannot_enter_a_tournament(client):
    t = actions.day_tournament()
    client.post("/play/")  # quick play logs the visitor in as a guest
    from django.contrib.auth import get_user_model

    guest = get_user_model().objects.get(username__startswith="gast-")
    with pytest.raises(actions.CannotJoin, match="guests"):
        actions.join(t.pk, guest)
    assert client.post(f"/tournaments/{t.pk}/join/").status_code == 302
    assert not Entry.objects.filter(tournament=t).exists()
