"""Issue 10, item 12: rankings a player can read. Every column says what it holds (a
per-deal figure per deal, the number of deals shown), a line explains them, and the
organizer may rank by the Neuberg matchpoint percentage instead of the score, which is
fair when entries play different numbers of deals. Page, live rows, exports and the API
carry the same figures."""

from __future__ import annotations

import csv
import html as htmllib
import importlib
import io
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from django.apps import apps
from django.conf import settings

from tournaments import actions, exports, rankings, scoring
from tournaments.models import AuditLog, Entry, Tournament

pytestmark = pytest.mark.usefixtures("live_game_db")

# E = 3, a top is 4 on a deal all three played. "lang" plays four deals and ends with
# the best score; "kort" two deals, with the best cards on both; "derde" four, worst.
# Deals 1, 2: 45, 30, 20 → kort 4, lang 2, derde 0 (A = E: Neuberg changes nothing).
# Deals 3, 4: lang 30, derde 20 → 2, 0 among 2, Neuberg (MP + 1)·3/2 − 1 = 3.5, 0.5.
# Sums: lang 11 of 4 tops of 4 = 68.75 %, kort 8 of 2 × 4 = 100 %, derde 1 of 16 = 6.25 %.
FIELD = [
    ("lang", 60, {1: 30, 2: 30, 3: 30, 4: 30}),
    ("kort", 40, {1: 45, 2: 45}),
    ("derde", -20, {1: 20, 2: 20, 3: 20, 4: 20}),
]
PCT = {"lang": 68.75, "kort": 100.0, "derde": 6.25}
TOTAL = {"lang": 11.0, "kort": 8.0, "derde": 1.0}
PER_DEAL = {"lang": 15.0, "kort": 20.0, "derde": -5.0}
BY_SCORE = ["lang", "kort", "derde"]
BY_MATCHPOINTS = ["kort", "lang", "derde"]


def pure(by: str) -> scoring.Rankings:
    names = [n for n, _, _ in FIELD]
    results = [(n, k, p) for n, _, pts in FIELD for k, p in pts.items()]
    return scoring.rank(
        scores=[s for _, s, _ in FIELD],
        deals_played=[len(pts) for _, _, pts in FIELD],
        result_entry=[names.index(n) for n, _, _ in results],
        result_deal=[k for _, k, _ in results],
        result_points=[p for _, _, p in results],
        by=by,
    )


def test_the_percentage_is_per_deal_played_and_ranks_when_chosen():
    names = [n for n, _, _ in FIELD]
    for by, order in ((scoring.BY_SCORE, BY_SCORE), (scoring.BY_MATCHPOINTS, BY_MATCHPOINTS)):
        got = pure(by)
        assert dict(zip(names, got.deal_matchpoints_pct.tolist(), strict=True)) == PCT
        assert dict(zip(names, got.deal_matchpoints.tolist(), strict=True)) == TOTAL
        assert sorted(names, key=lambda n: got.rank[names.index(n)]) == order


def test_ties_and_an_entry_without_deals():
    # Equal scores: the higher percentage first (not the longer game's bigger sum).
    got = scoring.rank(
        scores=[10, 10, 5], deals_played=[3, 1, 0], result_entry=[0, 0, 0, 1],
        result_deal=[1, 2, 3, 1], result_points=[30, 30, 30, 40],
    )  # fmt: skip
    # E = 3, top 4. Deal 1: 30 and 40 → 0, 2 among 2, Neuberg 0.5, 3.5; deals 2, 3: the
    # first alone, (0 + 1)·3/1 − 1 = 2 each. Sums 4.5 (three deals) and 3.5 (one).
    assert got.deal_matchpoints.tolist() == [4.5, 3.5, 0.0]
    assert got.deal_matchpoints_pct.tolist()[:2] == [37.5, 87.5]
    assert got.rank == [2, 1, 3]
    assert scoring.changed([None], got.deal_matchpoints_pct[2:]).tolist() == [False]


@pytest.fixture
def field(make_tournament, fake_entry):
    def make(ranking: str = "score"):
        t = make_tournament(seed=f"columns-{ranking}", ranking=ranking)
        entries = {n: fake_entry(t, n, s, pts) for n, s, pts in FIELD}
        rankings.recompute(t.pk)
        return Tournament.objects.get(pk=t.pk), entries

    return make


def table_rows(html: str) -> list[list[str]]:
    """The standings table's cells as text (tags stripped), one list per row."""
    body = html.split("data-standings", 1)[1].split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", body, re.S)
    cells = [re.findall(r"<td[^>]*>(.*?)</td>", r, re.S) for r in rows]
    return [[re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", c)).strip() for c in row] for row in cells]


def standings_page(client, t, entries, lang="en"):
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = lang
    client.force_login(entries["lang"].player)  # finished: may see the standings
    response = client.get(f"/tournaments/{t.pk}/standings/")
    assert response.status_code == 200
    return response.content.decode()


def test_the_page_shows_deals_per_deal_figures_and_explains_them(field, client):
    t, entries = field()
    html = standings_page(client, t, entries)
    head = html.split("data-standings", 1)[1].split("</thead>", 1)[0]
    assert re.findall(r"<th[^>]*>([^<]+)</th>", head) == [
        "Rank", "Player", "Score", "Deals", "Score per deal", "MP %",
    ]  # fmt: skip
    assert 'class="num t-ranked" aria-sort="descending">Score<' in head
    assert table_rows(html) == [
        ["1", "lang", "60", "4", "15.0", "68.8%"],
        ["2", "kort", "40", "2", "20.0", "100.0%"],
        ["3", "derde", "-20", "4", "-5.0", "6.3%"],
    ]
    legend = re.search(r"data-standings-legend>(.*?)</p>", html, re.S).group(1)
    assert "Deals = deals played" in legend and "score per deal = score ÷ deals" in legend
    assert "percentage of the maximum over the deals played" in legend
    assert "Ranked by score" in legend
    # No column holds a total under a per-deal name any more ("MP per deel": 173.4).
    assert "Deal MP" not in html


def test_dutch_names_say_per_deal_for_per_deal_figures(field, client):
    t, entries = field()
    html = standings_page(client, t, entries, lang="nl")
    head = html.split("data-standings", 1)[1].split("</thead>", 1)[0]
    assert re.findall(r"<th[^>]*>([^<]+)</th>", head) == [
        "Plaats", "Speler", "Score", "Delen", "Score per deel", "MP %",
    ]  # fmt: skip
    assert table_rows(html)[1] == ["2", "kort", "40", "2", "20,0", "100,0%"]


def test_the_organizer_may_rank_by_the_matchpoint_percentage(field, client):
    t, entries = field("matchpoints")
    html = standings_page(client, t, entries)
    assert [r[1] for r in table_rows(html)] == BY_MATCHPOINTS
    assert 'class="num t-ranked" aria-sort="descending">MP %<' in html
    assert "Ranked by MP % (fair when entries play different numbers of deals)" in html


def test_the_panel_switches_the_ranking_logged_until_close(field, client, organizer):
    t, entries = field()
    client.force_login(organizer)
    panel = client.get(f"/tournaments/{t.pk}/manage/").content.decode()
    assert "data-ranking-form" in panel
    client.post(f"/tournaments/{t.pk}/manage/ranking/", {"ranking": "matchpoints"})
    t.refresh_from_db()
    assert t.ranking == "matchpoints"
    ranked = Entry.objects.filter(tournament=t).order_by("rank")
    assert [e.player.username for e in ranked] == BY_MATCHPOINTS
    log = AuditLog.objects.get(tournament=t, action="ranking")
    assert (log.before, log.after) == ({"ranking": "score"}, {"ranking": "matchpoints"})
    response = client.post(f"/tournaments/{t.pk}/manage/ranking/", {"ranking": "nonsense"})
    assert response.status_code == 302
    t.refresh_from_db()
    assert t.ranking == "matchpoints"
    actions.close_tournament(t.pk, organizer)
    with pytest.raises(actions.TournamentError):
        actions.set_ranking(t.pk, organizer, "score")
    assert Tournament.objects.get(pk=t.pk).ranking == "matchpoints"


def test_the_create_form_offers_the_ranking(client, organizer, club):
    client.force_login(organizer)
    response = client.post(
        "/tournaments/new/",
        {"name": "Neuberg-avond", "club": club.pk, "rules": "flemish", "bot_level": "heuristic",
         "capacity": 10, "results_visibility": "after_finish", "unfinished_rule": "bot",
         "ranking": "matchpoints"},
    )  # fmt: skip
    assert response.status_code == 302
    assert Tournament.objects.get(name="Neuberg-avond").ranking == "matchpoints"


def test_exports_api_and_live_rows_carry_the_same_figures(field, client, organizer):
    t, entries = field("matchpoints")
    rows = rankings.standings(t)
    assert [(r["player"], r["deal_matchpoints_pct"], r["score_per_deal"]) for r in rows] == [
        (n, PCT[n], PER_DEAL[n]) for n in BY_MATCHPOINTS
    ]
    data = json.loads(exports.standings_json(t))
    assert data["tournament"]["ranking"] == "matchpoints"
    assert data["standings"] == rows
    csv_rows = list(csv.DictReader(io.StringIO(exports.standings_csv(t, exports.csv_style("en")))))
    assert [(r["player"], r["deal_matchpoints_pct"], r["score_per_deal"]) for r in csv_rows] == [
        (n, str(PCT[n]), str(PER_DEAL[n])) for n in BY_MATCHPOINTS
    ]
    actions.close_tournament(t.pk, organizer)
    Tournament.objects.filter(pk=t.pk).update(results_audience="everyone")  # a public API read
    api = client.get(f"/api/v1/tournaments/{t.pk}/standings/").json()
    assert api["tournament"]["ranking"] == "matchpoints"
    assert [r["deal_matchpoints_pct"] for r in api["standings"]] == [PCT[n] for n in BY_MATCHPOINTS]


def test_the_migration_fills_the_percentage_of_entries_ranked_before(field):
    t, entries = field()
    Entry.objects.filter(tournament=t).update(deal_matchpoints_pct=None)
    migration = importlib.import_module("tournaments.migrations.0006_ranking_option")
    migration.fill_deal_pct(apps, None)
    got = dict(
        Entry.objects.filter(tournament=t).values_list("player__username", "deal_matchpoints_pct")
    )
    assert got == PCT


def test_the_profile_shows_the_same_percentage(field, client):
    t, entries = field()
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    client.force_login(entries["lang"].player)
    html = client.get("/accounts/profile/").content.decode()
    assert "68.8%" in html  # the standings' MP %, not the score's 100 %


# The live table (static/tournaments/standings.js) run by node on a minimal DOM: it gets
# one pushed message and renders its rows; they must read as the server's page does.
LIVE_JS = """
const made = [];
const el = (tag) => {
  const e = { tag, children: [], dataset: {}, className: "", textContent: "", colSpan: 1,
    appendChild(c) { this.children.push(c); return c; },
    append(...cs) { this.children.push(...cs); },
    replaceChildren(...cs) { this.children = cs; } };
  if (tag === "template") {
    // innerHTML's text, as one node (what the cell reads as text).
    Object.defineProperty(e, "innerHTML", {
      set(v) {
        e.content = { childNodes: [{ children: [], textContent: v.replace(/<[^>]+>/g, "") }] };
      },
    });
  }
  made.push(e);
  return e;
};
const body = el("tbody");
const table = el("table");
Object.assign(table.dataset, DATASET);
table.querySelector = (s) => (s === "tbody" ? body : null);
let socket = null;
globalThis.window = { WebSocket: true };
globalThis.location = { protocol: "http:", host: "testserver" };
globalThis.setTimeout = () => {};
globalThis.document = {
  documentElement: { lang: LANG },
  querySelector: (s) => (s === "[data-standings]" ? table : null),
  createElement: el,
};
globalThis.WebSocket = class { constructor(url) { socket = this; } };
await import(MODULE);
socket.onmessage({ data: JSON.stringify({ type: "standings", version: 99, rows: ROWS }) });
const text = (e) => (e.children.length ? e.children.map(text).join("") : e.textContent);
console.log(JSON.stringify(body.children.map((tr) => tr.children.map((td) => text(td).trim()))));
"""


@pytest.mark.skipif(not shutil.which("node"), reason="needs node to run the live table's JS")
@pytest.mark.parametrize("lang", ["en", "nl"])
def test_the_live_table_shows_what_the_page_shows(field, client, lang):
    t, entries = field()
    Entry.objects.filter(pk=entries["kort"].pk).update(finish_mode="bot")  # with its tag
    html = standings_page(client, t, entries, lang=lang)
    bot_mark = htmllib.unescape(re.search(r'data-bot-mark="([^"]*)"', html).group(1))
    dataset = {
        "ws": "/ws/",
        "version": "0",
        "me": "",
        "playerUrl": "/players/-/",
        "botMark": bot_mark,
    }
    module = Path(settings.BASE_DIR) / "static" / "tournaments" / "standings.js"
    script = (
        LIVE_JS.replace("DATASET", json.dumps(dataset))
        .replace("LANG", json.dumps(lang))
        .replace("MODULE", json.dumps(module.as_uri()))
        .replace("ROWS", json.dumps(rankings.standings(t)))
    )
    out = subprocess.run(
        ["node", "--input-type=module", "-e", script], capture_output=True, text=True, check=True
    ).stdout
    live = json.loads(out)
    assert live == table_rows(html)
    assert live[1][1] == "kort bot" and live[0][1] == "lang"


def test_the_score_per_deal_is_rounded_once_from_the_total(make_tournament, fake_entry, client):
    """63 over 13 deals is 4.846: the page showed 4.9 (the 2 decimals of score_per_deal,
    4.85, rounded again). Shown from the total itself, halves away from zero."""
    t = make_tournament(seed="per-deal-once")
    entries = {
        "dertien": fake_entry(t, "dertien", 63, dict.fromkeys(range(1, 14), 30)),
        "twintig": fake_entry(t, "twintig", -3, dict.fromkeys(range(1, 21), 20)),
    }
    rankings.recompute(t.pk)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    client.force_login(entries["dertien"].player)
    rows = table_rows(client.get(f"/tournaments/{t.pk}/standings/").content.decode())
    assert [r[4] for r in rows] == ["4.8", "-0.2"]
    # The machine-readable figure keeps its 2 decimals.
    assert [r["score_per_deal"] for r in rankings.standings(t)] == [4.85, -0.15]
