"""The new-tournament page makes a tournament of tables too (issue 12, from the
browser): the format chosen, the structure checked by actions.check_structure, each
refusal a clear message in the page's language at the field it concerns; the solo
tournament as before."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from tournaments.models import Structure, Tournament

pytestmark = pytest.mark.usefixtures("live_game_db")

BASE = {
    "name": "Kampioenschap",
    "rules": "flemish",
    "bot_level": "heuristic",
    "results_visibility": "after_finish",
    "unfinished_rule": "bot",
    "open_now": "on",
}


def tables_post(club, **extra):
    data = dict(BASE, club=club.pk, format="rotating", capacity=16, rounds=2, sets=3,
                set_deals=8, redraw="standing", clock=0, round_break=0)  # fmt: skip
    data.update(extra)
    return {k: v for k, v in data.items() if v is not None}


def test_the_form_offers_the_formats_and_the_table_fields(client, organizer, club):
    client.force_login(organizer)
    page = client.get("/tournaments/new/").content.decode()
    for value in ("solo-duplicate", "rotating", "writer-stays", "pairs"):
        assert f'value="{value}"' in page
    assert 'data-for-format="tables"' in page and 'data-for-format="solo"' in page
    for name in ("rounds", "sets", "set_deals", "duplicate", "in_room", "cut", "cut_percent",
                 "redraw", "clock", "set_minutes", "round_break", "starts_at"):  # fmt: skip
        assert f'name="{name}"' in page
    # The break says where its draw is shown: the organizer's view (the players' page
    # shows their table once it starts), not "for all to see".
    assert "je organisatorscherm toont intussen de loting" in page
    # The zone by both its names: a June window is CEST whatever month the form is in.
    assert "Tijdzone: Europe/Brussels (CET/CEST)" in page
    assert "Wisselende partners" in page or "wisselende partners" in page  # Dutch first
    assert "Sets per ronde" in page


def test_a_rotating_duplicate_knockout_is_made_from_the_form(client, organizer, club):
    client.force_login(organizer)
    start = timezone.now() + dt.timedelta(hours=2)
    response = client.post(
        "/tournaments/new/",
        tables_post(
            club, duplicate="on", cut=8, redraw="random", clock=30, set_minutes=40,
            round_break=5, tie_carry="own", starts_at=timezone.localtime(start).strftime(
                "%Y-%m-%dT%H:%M"),
        ),
    )  # fmt: skip
    t = Tournament.objects.get(name="Kampioenschap")
    assert response.status_code == 302
    assert response["Location"] == f"/tournaments/{t.pk}/tables/organize/"
    assert t.format == Tournament.Format.ROTATING and t.capacity == 16 and t.club == club
    assert t.status == Tournament.Status.OPEN  # open for sign-up, drawn at the start
    assert t.live_start and abs((t.starts_at - start).total_seconds()) < 60
    s = Structure.objects.get(tournament=t)
    assert (s.rounds, s.sets, s.deals, s.duplicate, s.cut, s.cut_fraction) == (
        2, 3, 8, True, 8, None,
    )  # fmt: skip
    assert (s.redraw, s.clock, s.set_minutes, s.round_break, s.tie_carry) == (
        "random", 30, 40, 5, False,
    )  # fmt: skip
    assert not t.deals.exists()  # a table tournament deals each set from its own seed
    page = client.get(response["Location"])
    assert page.status_code == 200 and "Nu loten en beginnen" in page.content.decode()


def test_a_cut_as_a_percentage_and_no_start_time(client, organizer, club):
    client.force_login(organizer)
    client.post(
        "/tournaments/new/",
        tables_post(club, format="writer-stays", capacity=16, sets=2, cut_percent=50),
    )
    t = Tournament.objects.get(name="Kampioenschap")
    assert t.format == "writer-stays" and t.structure.cut_fraction == 0.5
    assert t.structure.cut is None and t.starts_at is None and not t.live_start
    assert t.status == Tournament.Status.RUNNING  # open, started by the organizer


def test_a_night_in_the_room_is_made_from_the_form(client, organizer, club):
    client.force_login(organizer)
    response = client.post("/tournaments/new/", tables_post(club, in_room="on", duplicate="on"))
    assert response.status_code == 302
    t = Tournament.objects.get(name="Kampioenschap")
    assert t.structure.in_room and t.structure.duplicate


@pytest.mark.parametrize(
    "extra, field, message",
    [
        ({"sets": 2}, "sets", "gebruik 3 sets per ronde (of 6, 9; gevraagd: 2)"),
        ({"format": "writer-stays", "capacity": 6}, "capacity", "minstens 8 spelers"),
        (
            {"cut": 20},
            "cut",
            "Een cut van 20 is groter dan het veld van 16 spelers: kies hoogstens 16",
        ),
        ({"set_deals": 0}, "set_deals", "1 tot 100 delen (gevraagd: 0)"),
        ({"capacity": 3}, "capacity", "minstens 4 spelers (gevraagd: 3)"),
        ({"rounds": 1, "cut": 8}, "rounds", "2 rondes of meer"),
        ({"cut": 8, "cut_percent": 50}, "cut", "niet allebei"),
        ({"cut_percent": 100}, "cut_percent", "Een percentage van 1 tot 99"),
        ({"rounds": ""}, "rounds", "Dit veld is verplicht."),
        ({"rounds": 0}, "rounds", "minstens 1 ronde"),
        ({"in_room": "on", "clock": 30}, "clock", "met echte kaarten in de zaal is er geen klok"),
        ({"in_room": "on", "set_minutes": 20}, "set_minutes", "laat de deadline van de set leeg"),
        ({"duplicate": "on", "capacity": 4}, "duplicate", "met 4 spelers is er één tafel"),
    ],
)
def test_bad_table_input_says_why_in_dutch(client, organizer, club, extra, field, message):
    client.force_login(organizer)
    response = client.post("/tournaments/new/", tables_post(club, **extra))
    assert response.status_code == 200
    assert not Tournament.objects.exists()
    errors = response.context["form"].errors
    assert field in errors, errors
    assert message.lower() in " ".join(errors[field]).lower(), errors
    page = response.content.decode()
    assert "asked" not in page and "choose at most" not in page  # nothing left in English


def test_a_live_start_in_the_past_is_refused(client, organizer, club):
    client.force_login(organizer)
    past = timezone.localtime(timezone.now() - dt.timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M")
    response = client.post("/tournaments/new/", tables_post(club, starts_at=past))
    assert "starts_at" in response.context["form"].errors
    assert not Tournament.objects.exists()


def test_the_messages_follow_the_language(client, organizer, club):
    client.force_login(organizer)
    client.cookies["django_language"] = "en"
    response = client.post("/tournaments/new/", tables_post(club, sets=4))
    assert "use 3 sets a round (or 6, 9; asked: 4)" in " ".join(
        response.context["form"].errors["sets"]
    )
    client.cookies["django_language"] = "fr"
    response = client.post("/tournaments/new/", tables_post(club, sets=4))
    assert "3 manches par tour (ou 6, 9 ; demandé : 4)" in " ".join(
        response.context["form"].errors["sets"]
    )


def test_solo_is_unchanged_and_ignores_the_table_fields(client, organizer, club):
    client.force_login(organizer)
    # No format sent; a slip in the (hidden) table fields does not matter.
    data = dict(BASE, club=club.pk, capacity=12, deals=8, sets=2, cut=99, cut_percent=150)
    response = client.post("/tournaments/new/", data)
    t = Tournament.objects.get(name="Kampioenschap")
    assert response["Location"] == f"/tournaments/{t.pk}/manage/"
    assert t.format == Tournament.Format.SOLO_DUPLICATE and t.fixed_deals == 8
    assert not Structure.objects.filter(tournament=t).exists()
    assert t.deals.count() == 8


def test_a_slip_in_the_solo_fields_does_not_refuse_a_table_tournament(client, organizer, club):
    client.force_login(organizer)
    response = client.post("/tournaments/new/", tables_post(club, deals=0, ends_at="gisteren"))
    t = Tournament.objects.get(name="Kampioenschap")
    assert response["Location"] == f"/tournaments/{t.pk}/tables/organize/"
    assert t.ends_at is None and t.fixed_deals is None and t.structure.deals == 8


def test_a_solo_live_start_needs_a_start_time(client, organizer, club):
    """A live start (everybody begins together) without a time would never begin: the
    form says so at the start field, as the settings page does; the action refuses it."""
    from tournaments import actions

    client.force_login(organizer)
    data = dict(BASE, club=club.pk, capacity=12, live_start="on")
    page = client.post("/tournaments/new/", data).content.decode()
    assert "Een live start heeft een beginuur nodig" in page
    assert not Tournament.objects.filter(name="Kampioenschap").exists()
    with pytest.raises(actions.TournamentError, match="needs a start time"):
        actions.create_tournament(organizer, name="Live", club=club, live_start=True)


def test_the_create_form_sent_twice_makes_one_tournament(client, organizer, club):
    """Back in the browser and Send again (or a reload that sends the form again): the
    tournament the form made is shown, not a second one made."""
    import re

    client.force_login(organizer)
    key = re.compile(r'name="form_key" value="([^"]+)"')
    data = dict(BASE, club=club.pk, capacity=12)
    data["form_key"] = key.search(client.get("/tournaments/new/").content.decode()).group(1)
    first = client.post("/tournaments/new/", data)
    again = client.post("/tournaments/new/", data, follow=True)
    t = Tournament.objects.get(name="Kampioenschap")
    assert again.redirect_chain[-1][0] == first["Location"] == f"/tournaments/{t.pk}/manage/"
    assert "Dit formulier werd al verstuurd" in again.content.decode()
    fresh = key.search(client.get("/tournaments/new/").content.decode()).group(1)
    client.post("/tournaments/new/", {**data, "form_key": fresh})
    assert Tournament.objects.filter(name="Kampioenschap").count() == 2  # a new form
    # Back, a value changed, and sent again: a new tournament was asked for.
    client.post("/tournaments/new/", {**data, "capacity": 14})
    assert Tournament.objects.filter(name="Kampioenschap", capacity=14).count() == 1
