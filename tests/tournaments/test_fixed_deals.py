"""Solo tournaments of fixed deals (issue 12, item 1): "to 101" or "N deals", and the
tie-carry option, from the form and `create_tournament --deals D` through the entries'
games, the table, standings, exports and the API."""

from __future__ import annotations

import io
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command

import engine
from engine import records
from tournaments import actions, rankings
from tournaments.models import DealResult, Entry, Tournament

pytestmark = pytest.mark.usefixtures("live_game_db")

API = "/api/v1"


def run(*args) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def created(out: str) -> Tournament:
    return Tournament.objects.get(pk=int(re.search(r"id: (\d+)", out).group(1)))


def test_a_tournament_of_six_deals_simulated_closed_and_exported(club, organizer, client):
    t = created(
        run(
            "create_tournament", "--name", "Zes spellen", "--club", club.slug, "--seed",
            "six-deals", "--deals", "6", "--tie", "own", "--open", "--organizer",
            organizer.username,
        )
    )  # fmt: skip
    assert t.fixed_deals == 6 and t.tie_carry is False
    assert t.game_rules == "flemish deals=6 tie=own"
    # Only the deals the games can reach are stored: 1..6.
    assert list(t.deals.values_list("number", flat=True)) == [1, 2, 3, 4, 5, 6]

    run("simulate_tournament", str(t.pk), "--players", "3")
    entries = list(Entry.objects.filter(tournament=t).select_related("game").order_by("pk"))
    assert len(entries) == 3 and all(e.status == Entry.Status.FINISHED for e in entries)
    for e in entries:
        assert e.game.rules == "flemish deals=6 tie=own"
        eng = engine.Game.replay(e.game.seed, e.game.rules, e.game.actions)
        # Exactly six deals, whatever the scores: no boom, no deal more.
        assert eng.outcome.reason == "deals" and len(eng.results) == 6
        assert e.deals_played == 6 and e.game.final_score == eng.score_for(0)
        assert list(DealResult.objects.filter(entry=e).values_list("number", flat=True)) == [
            1,
            2,
            3,
            4,
            5,
            6,
        ]
    # Everybody played the same deals: every deal's traveller has the whole field.
    assert rankings.played_deal_numbers(t) == [1, 2, 3, 4, 5, 6]
    for k in range(1, 7):
        assert len(rankings.traveller(t, k)) == 3

    run("close_tournament", str(t.pk))
    data = json.loads(run("export_tournament", str(t.pk), "--format", "json"))
    info = data["tournament"]
    assert (info["deals"], info["tie_carry"], info["game_rules"]) == (
        6, False, "flemish deals=6 tie=own",
    )  # fmt: skip
    assert {r["deals_played"] for r in data["standings"]} == {6}
    # The records: each game carries its options and replays with them.
    recs = records.read_many(run("export_tournament", str(t.pk), "--format", "records"))
    assert len(recs) == 3
    for rec in recs:
        assert rec.tags["Options"] == "deals=6 tie=own" and rec.tags["Termination"] == "deals"
        assert len(rec.deals) == 6

    # The API shows a club's closed tournament when its results are for everyone.
    Tournament.objects.filter(pk=t.pk).update(results_audience="everyone")
    api = client.get(f"{API}/tournaments/{t.pk}/").json()
    assert api["tournament"]["deals"] == 6 and api["tournament"]["tie_carry"] is False
    travellers = client.get(f"{API}/tournaments/{t.pk}/travellers/").json()
    assert [(d["deal"], d["played_by"]) for d in travellers["deals"]] == [
        (k, 3) for k in range(1, 7)
    ]
    page = client.get(f"/tournaments/{t.pk}/standings/").content.decode()
    assert "6 delen, elk deel op zich" in page


def test_create_tournament_refuses_a_deal_count_of_zero(club, organizer):
    with pytest.raises(CommandError, match="--deals must be 1 to 100"):
        run("create_tournament", "--name", "Nul", "--club", club.slug, "--deals", "0")
    assert not Tournament.objects.filter(name="Nul").exists()
    with pytest.raises(actions.TournamentError, match="1 to 100 deals"):
        actions.create_tournament(organizer, name="Nul", club=club, deals=0)


def test_a_tournament_to_101_is_unchanged(make_tournament):
    t = make_tournament(seed="still-101")
    assert t.fixed_deals is None and t.tie_carry and t.game_rules == "flemish"
    assert t.deals.count() == 40


def test_the_form_creates_a_tournament_of_twelve_deals(client, organizer, club, make_user):
    client.force_login(organizer)
    form = client.get("/tournaments/new/").content.decode()
    assert 'name="deals"' in form and 'name="tie_carry"' in form
    payload = {
        "name": "Twaalf", "club": club.pk, "rules": "flemish", "bot_level": "heuristic",
        "capacity": 12, "results_visibility": "after_finish", "unfinished_rule": "bot",
        "open_now": "on", "deals": "12", "tie_carry": "carry",
    }  # fmt: skip
    response = client.post("/tournaments/new/", payload)
    t = Tournament.objects.get(name="Twaalf")
    assert response.status_code == 302
    assert t.fixed_deals == 12 and t.tie_carry is True and t.game_rules == "flemish deals=12"
    assert t.deals.count() == 12
    assert "12 delen" in client.get(f"/tournaments/{t.pk}/").content.decode()

    # A player's table says which deal of how many it is.
    anna = make_user("anna")
    club.members.add(anna)
    entry = actions.join(t.pk, anna)
    assert entry.game.rules == "flemish deals=12"
    client.force_login(anna)
    table = client.get(f"/game/{entry.game.public_id}/").content.decode()
    assert "deel 1 van 12" in table
    state = client.get(f"/game/{entry.game.public_id}/state.json").json()["state"]
    assert state["deals"] == 12 and state["deal_number"] == 1


@pytest.mark.parametrize(
    "deals, message", [("0", "minstens 1 deel"), ("101", "hoogstens 100 delen")]
)
def test_the_form_refuses_a_bad_deal_count(client, organizer, club, deals, message):
    client.force_login(organizer)
    payload = {
        "name": "Fout", "club": club.pk, "rules": "flemish", "bot_level": "heuristic",
        "capacity": 12, "results_visibility": "after_finish", "unfinished_rule": "bot",
        "deals": deals, "tie_carry": "carry",
    }  # fmt: skip
    response = client.post("/tournaments/new/", payload)
    assert response.status_code == 200
    assert message in response.content.decode()
    assert not Tournament.objects.filter(name="Fout").exists()


@pytest.mark.skipif(not shutil.which("node"), reason="needs node to run the table's JS")
def test_the_table_script_says_deal_n_of_total_and_how_the_game_ended():
    """The table's own render functions, run by node on real observations: the toolbar
    counts "deal 2 of 3" (hidden in a game to 101), the end dialog names no boom."""
    from engine.bots import get_bot

    bot = get_bot("random")
    g = engine.Game("table-deals", "flemish deals=3")
    while g.deal_number < 2:
        g.apply_action(bot.act(g.observation(g.to_move), b"t"))
    mid = g.observation(0)
    while not g.is_terminal():
        g.apply_action(bot.act(g.observation(g.to_move), b"t"))
    end = g.observation(0)
    plain = engine.Game("table-101").observation(0)
    module = Path(settings.BASE_DIR) / "static" / "js" / "table" / "render.js"
    script = f"""
import {{ renderDealCount, renderEnd }} from {json.dumps(module.as_uri())};
const words = {{deal_of: "deal {{n}} of {{total}}", won: "boom won", lost: "boom lost",
  draw: "draw", won_deals: "won after the deals", lost_deals: "lost after the deals"}};
const t = (k, p = {{}}) => (words[k] ?? k).replace(/\\{{(\\w+)\\}}/g, (m, x) => String(p[x]));
const counter = (s) => {{ const n = {{hidden: false, textContent: ""}};
  renderDealCount(n, s, t); return n.hidden ? null : n.textContent; }};
const box = {{hidden: true, attrs: {{}}, parts: {{}},
  setAttribute(k, v) {{ this.attrs[k] = v; }}, removeAttribute(k) {{ delete this.attrs[k]; }},
  querySelector(sel) {{ return (this.parts[sel] ??= {{textContent: "", focus() {{}}}}); }}}};
renderEnd(box, {json.dumps(end)}, t);
console.log(JSON.stringify([counter({json.dumps(mid)}), counter({json.dumps(plain)}),
  box.parts["[data-end-title]"].textContent, box.attrs["data-score"]]));
"""
    out = subprocess.run(
        ["node", "--input-type=module", "-e", script], capture_output=True, text=True, check=True
    ).stdout
    mid_text, plain_text, title, score = json.loads(out)
    assert mid_text == "deal 2 of 3" and plain_text is None
    wij, zij = end["outcome"]["scores"]
    expected = {0: "won after the deals", 1: "lost after the deals", None: "draw"}
    assert title == expected[end["outcome"]["winner"]] and int(score) == wij - zij
