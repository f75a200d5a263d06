"""Every entry of a tournament plays the same deals against the same bots."""

from __future__ import annotations

import pytest

import engine
from tests.tournaments.conftest import finish, play_to_end
from tournaments import actions
from tournaments.models import DealResult, TournamentDeal

pytestmark = pytest.mark.usefixtures("live_game_db")


def test_opening_stores_the_deals_generated_from_the_seed(make_tournament):
    t = make_tournament(seed="stored-deals-seed")
    deals = list(TournamentDeal.objects.filter(tournament=t))
    assert len(deals) == engine.get_rules(t.rules).max_deals
    for d in deals[:5]:
        spec = engine.deal_for("stored-deals-seed", d.number, t.rules)
        assert d.dealer == spec.dealer
        assert d.hands == spec.texts()


def play_other_first_card_then_finish(entry, user):
    """This South's first card differs from the bot's choice when it can; then autoplay."""
    from game import actions as game_actions
    from game.models import Game

    game = Game.objects.get(pk=entry.game_id)
    state = game.state
    if state["to_move"] == 0 and len(state["legal"]) > 1:
        game_actions.apply_action(game.public_id, user, state["legal"][-1], game.seq)
    return finish(entry)


def test_entries_play_identical_deals_with_the_tournament_seed(make_tournament, make_user, club):
    t = make_tournament(seed="same-cards-for-all")
    players = [make_user(n) for n in ("anna", "ben")]
    entries = []
    for p in players:
        club.members.add(p)
        entries.append(actions.join(t.pk, p))
    for e in entries:
        assert e.game.seed == t.seed and e.game.rules == t.rules
    # Different South play: the second entry's South takes the first legal card.
    finish(entries[0])
    play_other_first_card_then_finish(entries[1], players[1])
    first = {r.number: r for r in DealResult.objects.filter(entry=entries[0])}
    second = {r.number: r for r in DealResult.objects.filter(entry=entries[1])}
    common = sorted(set(first) & set(second))
    assert common and common[0] == 1
    for k in common:
        assert first[k].dealer == second[k].dealer == engine.deal_for(t.seed, k).dealer
    for e in entries:
        e.refresh_from_db()
        assert e.status == "finished"
        assert e.score == e.game.final_score
        assert e.deals_played == len(first if e == entries[0] else second)


def test_same_plays_meet_the_same_bot_replies(make_tournament, make_user, club):
    t = make_tournament(seed="bots-are-duplicate-fair")
    anna, ben = make_user("anna"), make_user("ben")
    club.members.add(anna, ben)
    e1, e2 = actions.join(t.pk, anna), actions.join(t.pk, ben)
    g1, g2 = play_to_end(e1, anna), finish(e2)
    # The same South choices (table moves vs. autoplay) meet the same bot replies.
    assert g1.actions == g2.actions
    assert g1.final_score == g2.final_score


@pytest.mark.parametrize("preset", list(engine.PRESETS))
def test_every_preset_plays_a_tournament_entry_to_the_end(preset, make_tournament, make_user):
    from tests.tournaments.conftest import joined

    t = make_tournament(seed=f"preset-{preset}", rules=preset)
    assert (
        t.deals.count() == engine.get_rules(preset).max_deals * engine.get_rules(preset).max_games
    )
    (entry,) = joined(t, make_user("anna"))
    game = finish(entry)
    entry.refresh_from_db()
    assert entry.status == "finished" and entry.score == game.final_score
    results = list(DealResult.objects.filter(entry=entry))
    assert results and all(len(r.play.tricks) == 8 and r.play.actions for r in results)
    assert TournamentDeal.objects.get(tournament=t, number=1).par is not None
