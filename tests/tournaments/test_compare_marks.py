"""Issue 10, item 13: the side-by-side replay marks the first divergence and the moves
after it with a side bar and a background, never with red text (red is the colour of
hearts and diamonds: a club shown red would read as a diamond)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings

from game import actions as game_actions
from game.models import Game
from tests.tournaments.conftest import finish, joined
from tournaments import replays
from tournaments.models import DealResult

pytestmark = pytest.mark.usefixtures("live_game_db")

CSS = Path(settings.BASE_DIR) / "static" / "tournaments" / "tournaments.css"


@pytest.fixture
def parted(make_tournament, make_user):
    """Two plays of deal 1 that part at South's first card (another legal card)."""
    t = make_tournament(seed="compare-seed-3")  # parts, as in test_compare
    anna, ben = make_user("anna"), make_user("ben")
    e_anna, e_ben = joined(t, anna, ben)
    finish(e_anna)
    game = Game.objects.get(pk=e_ben.game_id)
    game_actions.apply_action(game.public_id, ben, game.state["legal"][-1], game.seq)
    finish(e_ben)
    return t, anna, e_anna, e_ben


def rows(html: str) -> list[tuple[str, str]]:
    body = html.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    return re.findall(r"<tr([^>]*)>(.*?)</tr>", body, re.S)


def test_rows_after_the_divergence_are_marked_and_only_red_suits_are_red(parted, client):
    t, anna, e_anna, e_ben = parted
    mine = DealResult.objects.get(entry=e_anna, number=1).play.actions
    theirs = DealResult.objects.get(entry=e_ben, number=1).play.actions
    diff = replays.first_difference(mine, theirs)
    client.force_login(anna)
    html = client.get(f"/tournaments/{t.pk}/compare/1/?entry={e_ben.pk}").content.decode()
    marks = [
        "first" if "data-first-diff" in attrs else "after" if "data-after-diff" in attrs else ""
        for attrs, _ in rows(html)
    ]
    assert marks == [""] * diff + ["first"] + ["after"] * (len(marks) - diff - 1)
    assert len(marks) > diff + 1  # some moves follow the divergence
    assert "data-diff-legend" in html
    for _, cells in rows(html):
        # Red is for the suits that are red, in every row, after the divergence too.
        for red in re.findall(r'<span class="red">(.*?)</span>', cells):
            assert red in ("♥", "♦")
        assert not re.search(r'class="[^"]*red[^"]*">[^<]*[♠♣]', cells)


def test_the_divergence_styles_set_no_text_colour():
    css = CSS.read_text(encoding="utf-8")
    rules = re.findall(r"([^{}]*(?:first-diff|differs)[^{}]*)\{([^}]*)\}", css)
    assert rules, "no style for the divergence"
    for selector, body in rules:
        assert not re.search(r"(?<![-\w])color\s*:", body), selector
    bars = [body for selector, body in rules if "box-shadow" in body]
    assert len(bars) == 2  # a dark bar on the first divergence, a light one after
