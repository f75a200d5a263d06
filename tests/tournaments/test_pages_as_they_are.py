"""Pages that tell the state as it is: a tournament of tables open for sign-up until its
draw, a close pressed on a stale page, the club form's address opened directly."""

from __future__ import annotations

from django.urls import reverse

from tournaments import actions


def test_a_tournament_of_tables_is_open_for_sign_up_until_its_draw(
    client, club, organizer, make_user
):
    t = actions.create_tables_tournament(
        organizer, name="Avond", club=club, fmt="rotating", players=4, sets=3, deals=1,
        open_now=True,
    )  # fmt: skip
    client.cookies["django_language"] = "nl"
    client.force_login(organizer)
    for url in ("tournaments:tables", "tournaments:tables-organize"):
        page = client.get(reverse(url, args=[t.pk])).content.decode()
        assert "<dd data-status>inschrijving open</dd>" in page, url
    for i in range(4):
        user = make_user(f"p{i}")
        club.members.add(user)
        actions.join(t.pk, user)
    actions.start_tables(t.pk, organizer)
    page = client.get(reverse("tournaments:tables", args=[t.pk])).content.decode()
    assert "<dd data-status>bezig</dd>" in page
    # One table: the progress line says so in the singular.
    organize = client.get(reverse("tournaments:tables-organize", args=[t.pk])).content.decode()
    assert "Ronde 1, set 1: 0 van 1 tafel klaar." in organize


def test_a_second_close_says_it_was_closed_already(client, make_tournament, organizer):
    t = make_tournament()
    client.cookies["django_language"] = "nl"
    client.force_login(organizer)
    url = reverse("tournaments:manage-action", args=[t.pk, "close"])
    first = client.post(url, follow=True).content.decode()
    assert "Het toernooi is gesloten; de sleutel is bekendgemaakt." in first
    assert "was al gesloten" not in first
    second = client.post(url, follow=True).content.decode()
    assert "Het toernooi was al gesloten, om" in second
    assert "Het toernooi is gesloten; de sleutel" not in second


def test_the_new_club_address_opened_directly_leads_to_the_form(client, organizer):
    client.force_login(organizer)
    response = client.get(reverse("clubs:create"))
    assert response.status_code == 302 and response["Location"] == reverse("clubs:list")


def test_ranked_by_matchpoints_the_panel_says_what_a_correction_changes(
    client, make_tournament, organizer
):
    t = make_tournament()
    client.force_login(organizer)
    url = reverse("tournaments:manage", args=[t.pk])
    assert "data-mp-correction-note" not in client.get(url).content.decode()
    actions.set_ranking(t.pk, organizer, "matchpoints")
    assert "data-mp-correction-note" in client.get(url).content.decode()
