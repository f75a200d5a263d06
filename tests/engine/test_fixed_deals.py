"""Games of fixed deals ("N deals" instead of "to 101") and the tie-carry option: the
game ends exactly after deal N, the options travel in the rules text, the records
and the command line (issue 12, item 1)."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import Game, InvalidRecord, get_rules
from engine.bots import get_bot
from engine.records import read_json, read_text, write_json, write_text
from engine.rules import PRESETS
from tests.engine.test_cli import run


def play_random(g: Game, seed: bytes = b"fixed") -> Game:
    bot = get_bot("random")
    while not g.is_terminal():
        g.apply_action(bot.act(g.observation(g.to_move), seed))
    return g


# ------------------------------------------------------------------------ the rules text
def test_rules_text_round_trips_the_options():
    r = get_rules("flemish deals=12 tie=own")
    assert r.name == "flemish" and r.deals == 12 and r.tie_doubles_next is False
    assert r.options == {"deals": 12, "tie_carry": False}
    assert r.spec == "flemish deals=12 tie=own"
    assert get_rules(r.spec) == r
    assert get_rules("flemish", deals=12, tie_carry=False) == r
    # The preset itself has no options and its text is its name.
    assert get_rules("flemish").spec == "flemish" and get_rules("flemish").options == {}
    # tie=carry on a preset without tie doubling is an option; on flemish it is the preset.
    assert get_rules("french tie=carry").options == {"tie_carry": True}
    assert get_rules("flemish tie=carry") == get_rules("flemish")
    # The longest text fits the 32 characters a game row stores.
    assert max(len(get_rules(n, deals=100, tie_carry=False).spec) for n in PRESETS) <= 32


@pytest.mark.parametrize(
    "text, message",
    [
        ("flemish deals=0", "1 to 100 deals"),
        ("flemish deals=101", "1 to 100 deals"),
        ("flemish deals=x", "1 to 100 deals"),
        ("flemish tie=maybe", "tie=carry"),
        ("flemish boom=50", "unknown rules option"),
        ("flemish deals=8 deals=12", "given twice"),
        ("bridge deals=8", "unknown rules preset"),
    ],
)
def test_bad_options_are_refused_with_a_clear_message(text, message):
    with pytest.raises(ValueError, match=message):
        get_rules(text)


def test_a_deal_count_of_zero_is_refused_as_a_keyword_too():
    with pytest.raises(ValueError, match="1 to 100 deals"):
        get_rules("flemish", deals=0)


# ------------------------------------------------------------------------ the game
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10**6),
    deals=st.integers(1, 20),
    preset=st.sampled_from(sorted(PRESETS)),
    carry=st.sampled_from([None, True, False]),
)
def test_the_game_ends_exactly_after_deal_n(seed, deals, preset, carry):
    g = Game(seed, get_rules(preset, deals=deals, tie_carry=carry))
    bot = get_bot("random")
    while not g.is_terminal():
        assert g.deal_number <= deals
        obs = g.observation(g.to_move)
        assert obs["deals"] == deals and obs["target"] is None
        g.apply_action(bot.act(obs, b"p"))
    # Exactly N deals, one game (no boom, no match), whatever the scores reached.
    assert len(g.results) == deals == g.deal_number
    assert [r.number for r in g.results] == list(range(1, deals + 1))
    assert len(g.games) == 1 and g.outcome.reason == "deals"
    totals = (sum(r.written[0] for r in g.results), sum(r.written[1] for r in g.results))
    assert g.outcome.scores == totals
    a, b = totals
    assert g.outcome.winner == (0 if a > b else 1 if b > a else None)
    # The set's score: own total minus the opponents'.
    assert g.score_for(0) == a - b == -g.score_for(1) == g.score_for(2)
    assert Game.replay(seed, g.rules.spec, g.actions).results == g.results


def test_a_fixed_deal_game_passes_101_without_a_boom():
    g = play_random(Game("long-run", "flemish deals=40"))
    assert len(g.results) == 40 and max(g.outcome.scores) > 101


def test_every_game_of_the_same_seed_plays_the_same_deals():
    a = play_random(Game("same-deals", "flemish deals=8"), b"a")
    b = play_random(Game("same-deals", "flemish deals=8"), b"b")
    assert a.actions != b.actions
    assert [(r.number, r.dealer) for r in a.results] == [(r.number, r.dealer) for r in b.results]
    assert all(a.spec(k) == b.spec(k) for k in range(1, 9))


def _tied_game(spec: str) -> Game:
    """The first seeded random game of ``spec`` with a tie before its last deal."""
    for k in range(200):
        g = play_random(Game(f"tie-{k}", spec))
        if any(r.tied for r in g.results[:-1]):
            return g
    raise AssertionError("no tie in 200 games")  # pragma: no cover


def test_tie_carry_doubles_the_next_deal_and_own_does_not():
    carry = _tied_game("flemish deals=12")
    assert carry.rules.tie_doubles_next
    own = Game.replay(carry.seed, "flemish deals=12 tie=own", carry.actions)
    assert own.is_terminal() and len(own.results) == 12
    factor = 1
    for c, o in zip(carry.results, own.results, strict=True):
        # The same cards were played: the same card points, the same tie.
        assert c.card_points == o.card_points and c.tied == o.tied
        assert c.multiplier == o.multiplier * factor
        factor = min(factor * 2, 4) if c.tied else 1
    first_tie = next(i for i, r in enumerate(carry.results) if r.tied)
    after = first_tie + 1
    assert carry.results[after].multiplier == 2 * own.results[after].multiplier


def test_tie_own_keeps_every_deal_at_factor_one():
    g = _tied_game("flemish deals=12 tie=own")
    assert g.rules.tie_doubles_next is False
    # Replaying deal by deal, the factor a deal starts with is always 1.
    h = Game(g.seed, g.rules)
    for a in g.actions:
        assert h.deal.tie_factor == 1
        h.apply_action(a)


def test_the_preset_game_to_101_is_unchanged():
    g = play_random(Game("still-101", "flemish"))
    assert g.outcome.reason in ("boom", "deal_limit")
    assert g.observation(0)["deals"] is None and g.observation(0)["target"] == 101


# ------------------------------------------------------------------------ records
@pytest.mark.parametrize(
    "spec", ["flemish deals=6 tie=own", "flemish-table deals=5", "french deals=4"]
)
def test_record_round_trip_carries_the_options(spec):
    g = play_random(Game("rec-fixed", spec))
    text = write_text(g, {"Event": "fixed"})
    options = spec.split(" ", 1)[1]
    assert f'[Options "{options}"]' in text
    assert '[Termination "deals"]' in text and "[Games " not in text
    rec = read_text(text)
    assert rec.rules == spec
    again = rec.replay()
    assert again.rules == g.rules and again.results == g.results
    assert again.outcome == g.outcome
    data = json.loads(write_json(g, as_string=True))
    assert data["tags"]["Options"] == options
    assert read_json(data).replay().outcome == g.outcome


def test_a_preset_game_has_no_options_tag():
    g = play_random(Game("rec-plain"))
    assert "[Options" not in write_text(g)


def test_a_record_without_its_options_does_not_verify():
    g = play_random(Game("rec-cut", "flemish deals=4"))
    text = write_text(g)
    with pytest.raises(InvalidRecord):
        read_text(text.replace('[Options "deals=4"]\n', ""))
    with pytest.raises(InvalidRecord, match="bad Options"):
        read_text(text.replace("deals=4", "deals=0"))


def test_a_record_refuses_options_that_contradict_the_game():
    g = play_random(Game("rec-tag", "flemish deals=4"))
    with pytest.raises(ValueError, match="tag Options"):
        write_text(g, {"Options": "deals=5"})


# ------------------------------------------------------------------------ command line
def test_cli_selfplay_and_replay_with_fixed_deals(tmp_path):
    out = run(
        "selfplay", "--games", "1", "--deals", "8", "--tie", "own", "--quiet",
        "--record-dir", str(tmp_path),
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "rules flemish deals=8 tie=own" in out.stdout
    files = sorted(tmp_path.iterdir())
    assert len(files) == 2
    rec = read_text(files[0].read_text(encoding="utf-8"))
    assert len(rec.deals) == 8 and rec.tags["Termination"] == "deals"
    shown = run("replay", str(files[0]), "--lang", "en")
    assert shown.returncode == 0 and "(deals, " in shown.stdout


def test_cli_refuses_zero_deals():
    out = run("selfplay", "--deals", "0")
    assert out.returncode == 2 and "1 to 100 deals" in out.stderr


def test_the_tie_option_is_a_boolean_or_none():
    # A word ("own") is not taken for "true": the caller meant the opposite.
    with pytest.raises(TypeError, match="tie_carry"):
        get_rules("flemish", tie_carry="own")
    assert get_rules("flemish", tie_carry=False).spec == "flemish tie=own"
    assert get_rules("malilla", tie_carry=None).tie_doubles_next is False
