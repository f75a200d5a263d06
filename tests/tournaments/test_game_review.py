"""A finished game trick by trick ("step through your game"): the owner only, once the
game is over, South's view only (South's own cards and the cards played), for a solo
game and for a tournament entry's game while its tournament still runs."""

from __future__ import annotations

import re

import pytest

import engine
from game import actions as game_actions
from game.models import Game
from tests.helpers import wait_for_turn
from tests.tournaments.conftest import finish, joined

pytestmark = pytest.mark.usefixtures("live_game_db")

TRICK_CARDS = re.compile(r'data-trick-card="(\w\w)"')
HAND_CARDS = re.compile(r'data-card="(\w\w)"')
ANY_CARD = re.compile(r"\b([789TJQKA][SHDC])\b")


def _tricks(game: Game, seat: int = 0) -> list[tuple[int, list[str], list[str]]]:
    """Every trick of the stored game, replayed here apart from the page's code:
    (deal number, its cards in play order, `seat`'s hand when it started)."""
    g = engine.Game(game.seed, game.rules)
    out, hand = [], None
    for action in game.actions:
        seen = g.observation(seat)
        if seen["phase"] == "play" and not seen["current_trick"]["cards"]:
            hand = list(seen["hand"])
        deal, before = g.deal, len(g.deal.tricks)
        g.apply_action(action)
        if len(deal.tricks) > before:
            cards = [card for _, card in deal.tricks[-1].to_dict()["cards"]]
            out.append((deal.number, cards, hand))
    return out


def _finished_solo_game(user) -> Game:
    game = game_actions.create_game(user, seed="review-1")
    wait_for_turn(game.public_id)
    game_actions.autoplay(game.pk)
    return Game.objects.get(pk=game.pk)


def test_the_owner_steps_through_every_trick_seeing_only_south_s_cards(client, make_user):
    anna = make_user("anna")
    game = _finished_solo_game(anna)
    assert game.status == Game.Status.FINISHED
    tricks = _tricks(game)
    client.force_login(anna)
    url = f"/game/{game.public_id}/replay/"

    # The end dialog of the table and the home page's list lead here.
    assert (
        f'href="{url}" data-replay-link' in client.get(f"/game/{game.public_id}/").content.decode()
    )
    assert f'href="{url}" data-replay-link' in client.get("/").content.decode()

    first = client.get(url)
    assert first.status_code == 200
    body = first.content.decode()
    assert 'data-step="1"' in body and f'data-total="{len(tricks)}"' in body
    assert "data-step-prev" not in body and f'href="{url}?step=2"' in body

    for number, (deal, cards, hand) in enumerate(tricks, start=1):
        body = client.get(url, {"step": number}).content.decode()
        assert TRICK_CARDS.findall(body) == cards, number
        assert sorted(HAND_CARDS.findall(body)) == sorted(hand), number
        # Nothing else: every card named on the page is South's or on the table.
        assert set(ANY_CARD.findall(body)) <= set(hand) | set(cards), number
        assert f"Deel {deal}, slag" in body
    last = client.get(url, {"step": len(tricks)}).content.decode()
    assert "data-step-next" not in last and "data-deal-result" in last
    # Out of range or not a number: the nearest trick, never an error.
    assert 'data-step="1"' in client.get(url, {"step": "x"}).content.decode()
    assert f'data-step="{len(tricks)}"' in client.get(url, {"step": 10_000}).content.decode()


def test_a_person_at_another_seat_steps_through_their_own_cards(client, make_user):
    """At a table of people, West steps through West's game: West's hand, "Jij" on
    West's cards, and the deal's points of West's team first."""
    host, west = make_user("gastheer"), make_user("westelijk")
    game = game_actions.create_table(host, rules="flemish", bot_level="heuristic")
    game_actions.sit(game.public_id, west, 1)
    game_actions.add_bot(game.public_id, host, 2)
    game_actions.add_bot(game.public_id, host, 3)
    game_actions.start(game.public_id, host)
    game_actions.autoplay(Game.objects.get(pk=game.pk).pk)
    game = Game.objects.get(pk=game.pk)
    assert game.status == Game.Status.FINISHED
    tricks = _tricks(game, seat=1)
    client.force_login(west)
    client.cookies["django_language"] = "nl"
    url = f"/game/{game.public_id}/replay/"
    for number, (_deal, cards, hand) in enumerate(tricks[:8], start=1):
        body = client.get(url, {"step": number}).content.decode()
        assert TRICK_CARDS.findall(body) == cards, number
        assert sorted(HAND_CARDS.findall(body)) == sorted(hand), number
        assert set(ANY_CARD.findall(body)) <= set(hand) | set(cards), number
    body = client.get(url, {"step": 1}).content.decode()
    west_card = next(c for seat, c in _first_trick(game) if seat == 1)
    assert re.search(rf'review-seat">Jij</span>\s*<span[^>]*data-trick-card="{west_card}"', body)
    # The deal's points so far, West's team first.
    end_of_deal = client.get(url, {"step": 8}).content.decode()
    result = engine.Game(game.seed, game.rules)
    for action in game.actions:
        result.apply_action(action)
        if result.results:
            break
    wij, zij = result.results[0].card_points
    assert f"WIJ {zij} – ZIJ {wij}" in end_of_deal


def _first_trick(game: Game) -> list[tuple[int, str]]:
    g = engine.Game(game.seed, game.rules)
    for action in game.actions:
        g.apply_action(action)
        if g.deal.tricks:
            return [(seat, card) for seat, card in g.deal.tricks[0].to_dict()["cards"]]
    return []


def test_nobody_else_and_no_unfinished_game(client, make_user):
    anna, bert = make_user("anna"), make_user("bert")
    game = _finished_solo_game(anna)
    url = f"/game/{game.public_id}/replay/"
    assert client.get(url).status_code == 404  # anonymous
    client.force_login(bert)
    assert client.get(url).status_code == 404  # not the owner
    client.force_login(anna)
    running = game_actions.create_game(anna, seed="review-2")
    assert client.get(f"/game/{running.public_id}/replay/").status_code == 404
    body = client.get("/").content.decode()
    assert f"/game/{running.public_id}/replay/" not in body


def test_a_tournament_game_once_finished_for_its_player_only(client, make_tournament, make_user):
    t = make_tournament(results_visibility="after_finish")
    anna, bert = make_user("anna"), make_user("bert")
    entry_a, entry_b = joined(t, anna, bert)
    url = f"/game/{entry_a.game.public_id}/replay/"
    client.force_login(anna)
    assert client.get(url).status_code == 404  # not finished yet
    assert "data-replay-link" not in client.get(f"/tournaments/{t.pk}/").content.decode()
    game = finish(entry_a)
    assert client.get(url).status_code == 200
    assert f'href="{url}" data-replay-link' in client.get(f"/tournaments/{t.pk}/").content.decode()
    # The seed stays sealed while the tournament runs: no record link on the page.
    assert "record.txt" not in client.get(url).content.decode()
    assert game.owner == anna
    client.force_login(bert)  # another entrant, still playing: never someone else's game
    assert client.get(url).status_code == 404


def test_the_review_speaks_to_you_and_counts_one_point(client, make_user):
    """'Jij deelt' and 'Jij wint de slag' for the viewer's own seat (it read 'You deals',
    'You wins' in English), and one point in the singular."""
    from game import review

    anna = make_user("anna-review")
    game = _finished_solo_game(anna)
    steps = review.trick_steps(game.seed, game.rules, list(game.actions), 0)
    client.force_login(anna)
    url = f"/game/{game.public_id}/replay/"
    seen = set()
    for number, step in enumerate(steps, start=1):
        body = client.get(url, {"step": number}).content.decode()
        if step.dealer == 0:
            assert "Jij deelt" in body and "Jij deelt ·" in re.sub(r"\s+", " ", body)
            seen.add("deal")
        if step.winner == 0:
            assert "Jij wint de slag" in body and "Zuid wint" not in body
            seen.add("win")
        if step.points == 1:
            assert "(1 punt)" in body and "(1 punten)" not in body
            seen.add("one")
    assert seen == {"deal", "win", "one"}, seen


@pytest.mark.parametrize("rules", ["french", "flemish"])
def test_a_deals_tricks_add_up_to_its_points(rules):
    """French counts a point a trick besides the cards, and the turned card for the
    dealer's side: each trick's points and the running "this deal so far" include them,
    so the last trick's total is the deal's."""
    import random

    g, rnd = engine.Game("review-adds-up", rules), random.Random(7)
    while not g.is_terminal():
        g.apply_action(rnd.choice(g.legal_actions()))
    from game.review import trick_steps

    steps = trick_steps("review-adds-up", rules, list(g.actions))
    by_deal: dict[int, list] = {}
    for step in steps:
        by_deal.setdefault(step.deal, []).append(step)
    assert len(by_deal) > 1
    for played in by_deal.values():
        result = played[-1].result  # the deal's as the engine scored it
        assert played[-1].deal_points == list(result["card_points"]), result
        # Each step adds its trick's points to the side that won it.
        for before, step in zip(played, played[1:], strict=False):
            gained = [a - b for a, b in zip(step.deal_points, before.deal_points, strict=True)]
            assert sorted(gained) == [0, step.points], step
