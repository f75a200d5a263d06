"""An organizer changes a tournament until it closes (actions.edit_tournament): its
name, its places, the end of its play window, who sees its results; never its deals.
Each change is in the audit trail; bad input is refused at the field it concerns."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from tests.tournaments.conftest import joined
from tournaments import actions
from tournaments.forms import LOCAL_INPUT
from tournaments.models import AuditLog, Tournament

pytestmark = pytest.mark.usefixtures("live_game_db")


@pytest.fixture
def en_client(client):
    client.cookies["django_language"] = "en"
    return client


def _local(moment: dt.datetime) -> str:
    return timezone.localtime(moment).strftime(LOCAL_INPUT)


def test_the_organizer_renames_extends_and_opens_up_a_running_tournament(
    en_client, organizer, make_tournament, make_user
):
    end = timezone.now() + dt.timedelta(days=1)
    t = make_tournament(seed="edit-me", name="Clubavnd", capacity=4, ends_at=end)
    seed, commitment = t.seed, t.seed_commitment
    deals = list(t.deals.order_by("number").values_list("number", "hands", "dealer"))
    joined(t, make_user("anna"), make_user("ben"))
    en_client.force_login(organizer)
    manage = en_client.get(f"/tournaments/{t.pk}/manage/").content.decode()
    assert f'href="/tournaments/{t.pk}/manage/edit/"' in manage
    page = en_client.get(f"/tournaments/{t.pk}/manage/edit/").content.decode()
    assert 'value="Clubavnd"' in page and 'name="capacity"' in page and 'value="4"' in page
    later = (timezone.now() + dt.timedelta(days=3)).replace(second=0, microsecond=0)
    response = en_client.post(
        f"/tournaments/{t.pk}/manage/edit/",
        {"name": "Clubavond", "capacity": 12, "ends_at": _local(later),
         "results_audience": "everyone"},
        follow=True,
    )  # fmt: skip
    assert response.redirect_chain[-1][0] == f"/tournaments/{t.pk}/manage/"
    t.refresh_from_db()
    assert (t.name, t.capacity, t.ends_at, t.results_audience) == (
        "Clubavond",
        12,
        later,
        Tournament.Audience.EVERYONE,
    )
    # The cards stay the cards: the same seed, commitment and deals.
    assert (t.seed, t.seed_commitment) == (seed, commitment)
    assert list(t.deals.order_by("number").values_list("number", "hands", "dealer")) == deals
    log = AuditLog.objects.get(tournament=t, action="edit")
    assert log.before["name"] == "Clubavnd" and log.after["capacity"] == 12
    panel = response.content.decode()
    assert "changed the tournament: name “Clubavnd” → “Clubavond” · capacity 4 → 12" in panel
    assert "The tournament&#x27;s settings are saved." in panel
    # Saving the same values again is no change, and no second line in the trail.
    en_client.post(
        f"/tournaments/{t.pk}/manage/edit/",
        {"name": "Clubavond", "capacity": 12, "ends_at": _local(later),
         "results_audience": "everyone"},
    )  # fmt: skip
    assert AuditLog.objects.filter(tournament=t, action="edit").count() == 1


def test_bad_changes_are_refused_at_their_field(en_client, organizer, make_tournament, make_user):
    t = make_tournament(seed="edit-bad", capacity=4)
    joined(t, make_user("anna"), make_user("ben"), make_user("cas"))
    en_client.force_login(organizer)
    url = f"/tournaments/{t.pk}/manage/edit/"
    past = timezone.now() - dt.timedelta(hours=1)
    cases = [
        ({"capacity": 2}, "capacity", "the capacity cannot be below the 3 players who joined"),
        ({"ends_at": _local(past)}, "ends_at", "the play window is over already"),
        ({"name": "Twee\nregels"}, "name", "Use one line of text"),
        ({"name": ""}, "name", "This field is required"),
    ]
    for change, field, message in cases:
        data = {"name": t.name, "capacity": 4, "results_audience": "members", **change}
        response = en_client.post(url, data)
        assert response.status_code == 200, change
        errors = response.context["form"].errors
        assert field in errors and message.lower() in str(errors[field]).lower(), errors
    t.refresh_from_db()
    assert (t.capacity, t.ends_at, t.name) == (4, None, "Clubavond")
    assert not AuditLog.objects.filter(tournament=t, action="edit").exists()


def test_only_an_organizer_edits_and_only_until_the_close(
    en_client, organizer, make_tournament, make_user
):
    t = make_tournament(seed="edit-who")
    anna = make_user("anna")
    joined(t, anna)
    en_client.force_login(anna)
    assert en_client.post(f"/tournaments/{t.pk}/manage/edit/", {"name": "Van mij"}).status_code in (
        403,
        404,
    )
    with pytest.raises(actions.NotAllowed):
        actions.edit_tournament(t.pk, anna, name="Van mij")
    actions.close_tournament(t.pk, organizer)
    en_client.force_login(organizer)
    response = en_client.get(f"/tournaments/{t.pk}/manage/edit/", follow=True)
    assert "A closed tournament no longer changes." in response.content.decode()
    assert "manage/edit/" not in response.content.decode()  # no link to it either
    with pytest.raises(actions.TournamentError, match="closed"):
        actions.edit_tournament(t.pk, organizer, name="Later")
    t.refresh_from_db()
    assert t.name == "Clubavond"


def test_a_tournament_of_tables_changes_its_field_until_the_draw(
    en_client, organizer, club, make_user
):
    t = actions.create_tables_tournament(
        organizer, name="Kampioenschap", club=club, fmt=Tournament.Format.WRITER_STAYS,
        players=8, rounds=1, sets=3, deals=4, open_now=True,
    )  # fmt: skip
    en_client.force_login(organizer)
    page = en_client.get(f"/tournaments/{t.pk}/tables/organize/").content.decode()
    assert "data-edit-link" in page
    url = f"/tournaments/{t.pk}/manage/edit/"
    page = en_client.get(url).content.decode()
    assert 'name="capacity"' in page and 'name="ends_at"' not in page
    base = {"name": "Kampioenschap", "results_audience": "members", "invite_code": ""}
    # Writer stays needs two tables: a field of 4 is refused at the field, saying why.
    response = en_client.post(url, {**base, "capacity": 4})
    assert "8" in str(response.context["form"].errors["capacity"])
    response = en_client.post(
        url, {**base, "name": "Kampioenschap 2027", "results_audience": "everyone",
              "capacity": 16, "invite_code": " TROEF8 "},
    )  # fmt: skip
    assert response["Location"] == f"/tournaments/{t.pk}/tables/organize/"
    t.refresh_from_db()
    assert (t.name, t.capacity, t.results_audience, t.invite_code) == (
        "Kampioenschap 2027",
        16,
        "everyone",
        "TROEF8",
    )
    with pytest.raises(actions.TournamentError, match="keeps its field"):
        actions.edit_tournament(t.pk, organizer, ends_at=timezone.now() + dt.timedelta(days=1))
    # Drawn: the field is what it is (the draw was made for it).
    for k in range(8):
        user = make_user(f"p{k}")
        club.members.add(user)
        actions.join(t.pk, user)
    actions.start_tables(t.pk, organizer)
    assert 'name="capacity"' not in en_client.get(url).content.decode()
    with pytest.raises(actions.TournamentError, match="no longer changes"):
        actions.edit_tournament(t.pk, organizer, capacity=20)


def test_the_invite_code_changes_and_the_old_one_no_longer_lets_in(en_client, make_user):
    staff = make_user("staff", is_staff=True)
    t = actions.create_tournament(staff, name="Open avond", invite_code="OUD", open_now=True)
    en_client.force_login(staff)
    en_client.post(
        f"/tournaments/{t.pk}/manage/edit/",
        {"name": t.name, "capacity": 10, "invite_code": "NIEUW"},
    )
    t.refresh_from_db()
    assert t.invite_code == "NIEUW"
    with pytest.raises(actions.CannotJoin):
        actions.join(t.pk, make_user("anna"), "OUD")
    assert actions.join(t.pk, make_user("ben"), "NIEUW").tournament_id == t.pk
    # The trail says so without showing the code (more than the invited read it).
    from django.utils import translation

    from tournaments.templatetags.tournament_tags import edit_summary

    with translation.override("en"):
        assert edit_summary(AuditLog.objects.get(tournament=t, action="edit")) == (
            "new invite code"
        )
    # Nor do the exports' data, read by every player who may download them, nor the
    # public API once the results are for everyone.
    from tournaments import exports

    for text in (exports.standings_json(t), exports.corrections_csv(t)):
        assert "NIEUW" not in text and "OUD" not in text and "(hidden)" in text
    actions.close_tournament(t.pk, staff)
    api = en_client.get(f"/api/v1/tournaments/{t.pk}/standings/").json()
    (edit,) = [c for c in api["corrections"] if c["action"] == "edit"]
    assert edit["before"]["invite_code"] == edit["after"]["invite_code"] == "(hidden)"


def test_an_invite_code_is_one_line(en_client, make_user):
    staff = make_user("staff", is_staff=True)
    with pytest.raises(actions.TournamentError, match="one line"):
        actions.create_tournament(staff, name="Open avond", invite_code="a\tb")
    en_client.force_login(staff)
    page = en_client.post(
        "/tournaments/new/", {"name": "Open avond", "invite_code": "a\tb", "format": "solo"}
    ).content.decode()
    assert "Use one line of text" in page and not Tournament.objects.exists()


def test_a_draft_made_by_mistake_is_deleted_an_opened_tournament_is_not(
    en_client, organizer, club, make_tournament, make_user
):
    draft = make_tournament(seed="oops", name="Verkeerd", open_now=False)
    en_client.force_login(organizer)
    assert "data-delete-draft" in en_client.get(f"/tournaments/{draft.pk}/manage/").content.decode()
    response = en_client.post(f"/tournaments/{draft.pk}/manage/delete/", follow=True)
    assert response.redirect_chain[-1][0] == f"/clubs/{club.slug}/"
    assert "The draft “Verkeerd” is deleted." in response.content.decode()
    assert not Tournament.objects.filter(pk=draft.pk).exists()
    # Opened (its commitment published): not deleted, and not offered.
    t = make_tournament(seed="opened")
    assert "data-delete-draft" not in en_client.get(f"/tournaments/{t.pk}/manage/").content.decode()
    response = en_client.post(f"/tournaments/{t.pk}/manage/delete/", follow=True)
    assert "Only a tournament that was never opened can be deleted" in response.content.decode()
    assert Tournament.objects.filter(pk=t.pk).exists()
    # Only an organizer deletes a draft.
    other = make_tournament(seed="other", open_now=False)
    with pytest.raises(actions.NotAllowed):
        actions.delete_draft(other.pk, make_user("anna"))
    assert Tournament.objects.filter(pk=other.pk).exists()


def test_a_draft_of_tables_is_deleted_from_the_organizers_view(en_client, organizer, club):
    t = actions.create_tables_tournament(
        organizer, name="Proef", club=club, fmt=Tournament.Format.ROTATING, players=8
    )
    en_client.force_login(organizer)
    page = en_client.get(f"/tournaments/{t.pk}/tables/organize/").content.decode()
    assert "data-delete-draft" in page
    en_client.post(f"/tournaments/{t.pk}/manage/delete/")
    assert not Tournament.objects.filter(pk=t.pk).exists()


def test_the_start_of_a_window_not_yet_open_moves_and_then_no_longer(
    en_client, organizer, make_tournament, make_user
):
    start = (timezone.now() + dt.timedelta(hours=2)).replace(second=0, microsecond=0)
    t = make_tournament(seed="edit-start", starts_at=start)
    assert t.status == Tournament.Status.OPEN  # waiting for its start: nobody joined
    en_client.force_login(organizer)
    url = f"/tournaments/{t.pk}/manage/edit/"
    assert 'name="starts_at"' in en_client.get(url).content.decode()
    later = start + dt.timedelta(days=1)
    base = {"name": t.name, "capacity": 10, "results_audience": "members"}
    response = en_client.post(url, {**base, "starts_at": _local(timezone.now())})
    errors = response.context["form"].errors
    assert "the start would be in the past" in str(errors["starts_at"]).lower()
    end = start + dt.timedelta(hours=1)
    response = en_client.post(url, {**base, "starts_at": _local(later), "ends_at": _local(end)})
    assert "ends before it starts" in str(response.context["form"].errors["ends_at"]).lower()
    response = en_client.post(url, {**base, "starts_at": _local(later)}, follow=True)
    t.refresh_from_db()
    assert t.starts_at == later and t.status == Tournament.Status.OPEN
    assert "start of the play window" in response.content.decode()
    # Emptied: the window opens now, and anna can join and play.
    en_client.post(url, {**base, "starts_at": ""})
    t.refresh_from_db()
    assert t.starts_at is None and t.status == Tournament.Status.RUNNING
    anna = make_user("anna")
    (entry,) = joined(t, anna)
    assert entry.game is not None
    # Open now: the start is no longer offered, nor taken.
    assert 'name="starts_at"' not in en_client.get(url).content.decode()
    with pytest.raises(actions.TournamentError, match="its start no longer moves"):
        actions.edit_tournament(t.pk, organizer, starts_at=later)


def _form_as_shown(client, url: str) -> dict[str, str]:
    """The edit form's values as the page shows them (hidden ones too), ready to post."""
    from html.parser import HTMLParser

    values: dict[str, str] = {}

    class Form(HTMLParser):
        select = None

        def handle_starttag(self, tag, attrs):
            a = dict(attrs)
            if tag == "select":
                self.select = a.get("name")
            elif tag == "option" and self.select and "selected" in a:
                values[self.select] = a.get("value") or ""
            elif tag == "input" and a.get("name") and a["name"] != "csrfmiddlewaretoken":
                if a.get("type") not in ("radio", "checkbox") or "checked" in a:
                    values[a["name"]] = a.get("value") or ""

    Form().feed(client.get(url).content.decode())
    return values


def test_two_organizers_saving_at_once_do_not_undo_each_other(
    en_client, organizer, make_tournament, make_user, club
):
    """Both open the settings; one renames, the other then changes only the capacity:
    the new name stays. Had the other renamed too, they are told and shown the settings
    as they are now, instead of the first one's name silently put back."""
    from django.test import Client

    t = make_tournament(seed="two-organizers", name="Clubavond", capacity=8)
    dora = make_user("dora")
    club.organizers.add(dora)
    url = f"/tournaments/{t.pk}/manage/edit/"
    other = Client()
    other.cookies["django_language"] = "en"
    other.force_login(dora)
    en_client.force_login(organizer)
    mine, hers = _form_as_shown(en_client, url), _form_as_shown(other, url)
    assert mine["initial-name"] == "Clubavond"
    assert en_client.post(url, {**mine, "name": "Clubavond december"}).status_code == 302
    assert other.post(url, {**hers, "capacity": "10"}).status_code == 302
    t.refresh_from_db()
    assert (t.name, t.capacity) == ("Clubavond december", 10)
    edits = AuditLog.objects.filter(tournament=t, action="edit").order_by("pk")
    assert [set(log.after) for log in edits] == [{"name"}, {"capacity"}]
    page = other.post(url, {**hers, "name": "Kerstavond"}, follow=True).content.decode()
    t.refresh_from_db()
    assert t.name == "Clubavond december" and "Another organizer changed this meanwhile" in page
    assert 'value="Clubavond december"' in page  # the form as it is now
    again = _form_as_shown(other, url)
    assert other.post(url, {**again, "name": "Kerstavond"}).status_code == 302
    t.refresh_from_db()
    assert t.name == "Kerstavond"
