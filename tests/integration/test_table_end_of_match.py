"""The table's end dialog after a match of several games (the table and french presets),
run by node on real observations: its score is the whole match's, the one saved and
ranked (engine score_for), from whichever seat; the title names the games won."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from django.conf import settings

import engine
from engine.bots import get_bot


def _node(script: str):
    """What a module script run by node prints, read as JSON."""
    run = subprocess.run(
        ["node", "--input-type=module", "-e", script], capture_output=True, text=True, check=True
    )
    return json.loads(run.stdout)


def _played_out(seed: str, rules: str) -> engine.Game:
    bot = get_bot("random")
    g = engine.Game(seed, rules)
    while not g.is_terminal():
        g.apply_action(bot.act(g.observation(g.to_move), b"m"))
    return g


@pytest.mark.skipif(not shutil.which("node"), reason="needs node to run the table's JS")
@pytest.mark.parametrize("rules", ["flemish-table", "french"])
def test_the_end_of_a_match_counts_every_game(rules):
    g = _played_out(f"match-{rules}", rules)
    assert g.outcome.reason == "match" and len(g.games) >= 2
    module = Path(settings.BASE_DIR) / "static" / "js" / "table" / "render.js"
    views = {seat: g.observation(seat) for seat in (0, 1)}
    script = f"""
import {{ renderEnd, setView }} from {json.dumps(module.as_uri())};
const words = {{won_match: "match won {{us}}-{{them}}", lost_match: "match lost {{us}}-{{them}}",
  draw: "draw"}};
const t = (k, p = {{}}) => (words[k] ?? k).replace(/\\{{(\\w+)\\}}/g, (m, x) => String(p[x]));
const out = {{}};
for (const [seat, state] of Object.entries({json.dumps(views)})) {{
  setView(Number(seat), null);
  const box = {{hidden: true, dataset: {{}}, attrs: {{}}, parts: {{}},
    setAttribute(k, v) {{ this.attrs[k] = v; }}, removeAttribute(k) {{ delete this.attrs[k]; }},
    querySelector(sel) {{ return (this.parts[sel] ??= {{textContent: "", focus() {{}}}}); }}}};
  renderEnd(box, state, t);
  out[seat] = [box.attrs["data-score"], box.parts["[data-end-title]"].textContent];
}}
console.log(JSON.stringify(out));
"""
    out = _node(script)
    won = g.outcome.games_won
    for seat in (0, 1):
        score, title = out[str(seat)]
        assert int(score) == g.score_for(seat) == views[seat]["score_for_seat"]
        us, them = won[seat % 2], won[1 - seat % 2]
        # The score is held on one line (word joiners round the dash).
        score_text = f"{us}\u2060-\u2060{them}"
        expected = "draw" if us == them else f"match {'won' if us > them else 'lost'} {score_text}"
        assert title == expected


@pytest.mark.skipif(not shutil.which("node"), reason="needs node to run the table's JS")
def test_a_single_game_is_no_match_on_the_board():
    """The board's per-game lines and "games won" are for matches: not for one game to
    101 or of fixed deals, which also end with one game won."""
    module = Path(settings.BASE_DIR) / "static" / "js" / "table" / "render.js"
    states = {
        "fixed": _played_out("single-fixed", "flemish deals=3").observation(0),
        "boom": _played_out("single-boom", "flemish").observation(0),
        "match": _played_out("single-match", "flemish-table").observation(0),
        "start": engine.Game("single-start", "french").observation(0),
    }
    script = f"""
import {{ isMatch }} from {json.dumps(module.as_uri())};
const states = {json.dumps(states)};
const out = Object.entries(states).map(([k, s]) => [k, isMatch(s)]);
console.log(JSON.stringify(Object.fromEntries(out)));
"""
    out = _node(script)
    assert out == {"fixed": False, "boom": False, "match": True, "start": False}
    assert states["fixed"]["games_won"] != [0, 0]  # what fooled the board before
