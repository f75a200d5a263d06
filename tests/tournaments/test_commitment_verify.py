"""The seed commitment is published at open; the seed at close, with a verify page."""

from __future__ import annotations

import pytest

import engine
from tournaments import actions

pytestmark = pytest.mark.usefixtures("live_game_db")


def test_commitment_shown_when_open_and_seed_kept_secret(make_tournament, make_user, client, club):
    t = make_tournament(seed="geheim-zaad-42")
    assert t.seed_commitment == engine.commitment("geheim-zaad-42")
    anna = make_user("anna")
    club.members.add(anna)
    client.force_login(anna)
    for url in (f"/tournaments/{t.pk}/", f"/tournaments/{t.pk}/verify/"):
        page = client.get(url).content.decode()
        assert t.seed_commitment in page
        assert "geheim-zaad-42" not in page


def test_verify_page_after_close_recomputes_commitment_and_deals(
    make_tournament, organizer, client
):
    t = make_tournament(seed="geheim-zaad-42", results_audience="everyone")  # logged out
    actions.close_tournament(t.pk, organizer)
    page = client.get(f"/tournaments/{t.pk}/verify/").content.decode()
    assert "geheim-zaad-42" in page
    assert "data-commitment-ok" in page and "data-deals-ok" in page


def test_verify_page_flags_a_tampered_deal(make_tournament, organizer, client):
    t = make_tournament(seed="geheim-zaad-42", results_audience="everyone")  # logged out
    actions.close_tournament(t.pk, organizer)
    deal = t.deals.get(number=3)
    deal.hands = [deal.hands[1], deal.hands[0], deal.hands[2], deal.hands[3]]
    deal.save()
    page = client.get(f"/tournaments/{t.pk}/verify/").content.decode()
    assert "data-deals-ok" not in page and "data-commitment-ok" in page


def test_opening_a_draft_publishes_the_commitment_and_stores_the_deals(
    make_tournament, organizer, make_user, client, club
):
    t = make_tournament(open_now=False)
    anna = make_user("anna")
    club.members.add(anna)
    client.force_login(anna)
    assert client.get(f"/tournaments/{t.pk}/").status_code == 404  # drafts: organizers only
    assert t.deals.count() == 0
    client.force_login(organizer)
    assert "data-commitment" not in client.get(f"/tournaments/{t.pk}/").content.decode()
    assert client.post(f"/tournaments/{t.pk}/manage/open/").status_code == 302
    t.refresh_from_db()
    assert t.status == "running" and t.opened_at is not None and t.deals.count() == 40
    client.force_login(anna)
    page = client.get(f"/tournaments/{t.pk}/").content.decode()
    assert "data-commitment" in page and t.seed_commitment in page and t.seed not in page
