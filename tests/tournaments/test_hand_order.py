"""Issue 10, item 14: the hands on the deal and traveller pages are sorted as the table
sorts a hand (static/js/table/cards.js): by suit, the trump first when it is known, and
by rank, high to low (10 A K Q J 9 8 7)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from django.conf import settings

import engine
from engine.cards import CARD_TEXT
from tournaments.templatetags.tournament_tags import sort_hand

pytestmark = pytest.mark.usefixtures("live_game_db")

HAND = ["9D", "7H", "8C", "JS", "TH", "AS", "KD", "QC"]


def test_sorted_by_suit_and_rank_trump_first():
    assert sort_hand(HAND) == ["AS", "JS", "TH", "7H", "QC", "8C", "KD", "9D"]
    assert sort_hand(HAND, "D") == ["KD", "9D", "AS", "JS", "TH", "7H", "QC", "8C"]
    assert sort_hand(HAND, "C") == ["QC", "8C", "TH", "7H", "AS", "JS", "KD", "9D"]


@pytest.mark.skipif(not shutil.which("node"), reason="needs node to run the table's JS")
def test_the_same_order_as_the_table():
    """The table's own sortHand, run by node, on every card and every trump."""
    cards = list(CARD_TEXT)
    module = Path(settings.BASE_DIR) / "static" / "js" / "table" / "cards.js"
    script = (
        f"import {{ sortHand }} from {json.dumps(module.as_uri())};"
        f"const cards = {json.dumps(cards)};"
        "console.log(JSON.stringify([null, 'S', 'H', 'D', 'C'].map((t) => sortHand(cards, t))));"
    )
    out = subprocess.run(
        ["node", "--input-type=module", "-e", script], capture_output=True, text=True, check=True
    ).stdout
    table = json.loads(out)
    assert table == [sort_hand(cards, t) for t in (None, "S", "H", "D", "C")]


def shown_hands(html: str) -> list[list[str]]:
    """The hands of a page, as displayed ("10♥"), in the order shown."""
    cells = re.findall(r'<dd class="t-hand">(.*?)</dd>', html, re.S)
    return [re.sub(r"<[^>]+>", "", c).split() for c in cells]


def displayed(cards) -> list[str]:
    return [engine.Card.parse(c).display() for c in cards]


def test_traveller_hands_sorted_with_the_trump_everyone_played(make_tournament, fake_entry, client):
    t = make_tournament(seed="sorted-hands")
    alice = fake_entry(t, "alice", 10, {1: 40})  # both played deal 1 in hearts
    fake_entry(t, "bert", 5, {1: 20})
    client.force_login(alice.player)
    html = client.get(f"/tournaments/{t.pk}/deal/1/").content.decode()
    deal = t.deals.get(number=1)
    assert shown_hands(html) == [displayed(sort_hand(deal.hands[s], "H")) for s in range(4)]
    assert "data-hand-order" in html
    # With another trump in one result the trump is not one: suits in the plain order.
    alice.deal_results.filter(number=1).update(trump="S")
    html = client.get(f"/tournaments/{t.pk}/deal/1/").content.decode()
    assert shown_hands(html) == [displayed(sort_hand(deal.hands[s])) for s in range(4)]


def test_deal_pages_put_the_turned_cards_suit_first(make_tournament, client, organizer):
    t = make_tournament(seed="sorted-malilla", rules="malilla")
    client.force_login(organizer)
    html = client.post(f"/tournaments/{t.pk}/manage/deals/").content.decode()
    deals = list(t.deals.all()[:40])
    assert deals and all(d.turned for d in deals)
    hands = shown_hands(html)
    assert len(hands) == 4 * len(deals)
    for k, d in enumerate(deals):
        trump = engine.Card.parse(d.turned).suit
        for s in range(4):
            assert hands[4 * k + s] == displayed(sort_hand(d.hands[s], trump))
