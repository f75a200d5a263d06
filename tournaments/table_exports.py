"""CSV files and the printable results of a tournament of rounds and tables.

The same conventions as the solo exports (tournaments/exports.py): one table per CSV
file, a byte-order mark, `;` + decimal commas for Dutch and French readers, formula-like
text neutralised, players named (never ids alone), a bot's seat marked "(bot)" (at a
night in the room "(stand-in)": a person without an entry) and never ranked. The JSON
form of the whole structure is tables.export (docs/tournament-export.md).

Only finished sets are in these files: while any table of a set still plays, in
duplicate the others hold the same cards, and nobody sees a result on a deal before its
end. The hands are in the deals file once the tournament is closed (as in the JSON).
"""

from __future__ import annotations

from typing import Any

from django.utils import translation

import engine

from . import scoring, tables
from .exports import CsvStyle, _csv, csv_style, outside_sets_in_play, seat_name, trump_name
from .models import Round, Table, TableSet, Tournament
from .templatetags.tournament_tags import shown_hand

BOT = "(bot)"  # a seat filled by a bot; usernames cannot hold parentheses
STAND_IN = "(stand-in)"  # the same seat at a night in the room: a person with real cards
STANDING_COLUMNS = [
    "rank", "player", "score", "dup_mp", "dup_diff", "sets", "out_after", "played_before",
]  # fmt: skip
DEAL_COLUMNS = [
    "round", "set", "table", "deal", "south", "west", "north", "east", "dealer", "trump",
    "multiplier", "ns_points", "ew_points", "ns_written", "ew_written", "corrected",
    "ns_written_played", "ew_written_played",
]  # fmt: skip
DUPLICATE_DEAL_COLUMNS = ["ns_dup_mp", "ns_dup_diff", "ew_dup_mp", "ew_dup_diff"]
HAND_COLUMNS = ["south_hand", "west_hand", "north_hand", "east_hand"]


def _standing_columns(t: Tournament) -> list[str]:
    if t.structure.duplicate:
        return STANDING_COLUMNS
    return [c for c in STANDING_COLUMNS if not c.startswith("dup_")]


def _standing_cells(row: dict, columns: list[str]) -> list[Any]:
    # played_before: who played the entry's earlier sets (the organizer replaced them).
    values = dict(row, score=row["raw"], played_before=" ".join(row["before"]))
    return [values[c] for c in columns]


def done_sets(t: Tournament):
    return (
        TableSet.objects.filter(round__tournament=t, status=TableSet.Status.DONE)
        .select_related("round")
        .order_by("round__number", "number")
    )


def standings_csv(t: Tournament, style: CsvStyle | None = None) -> str:
    """Overall: rank, player, score (own team − opponents, summed over the sets), and in
    duplicate the matchpoints and the difference from the field; the round after which
    a cut left a player out."""
    style = style or csv_style()
    columns = _standing_columns(t)
    rows: list[list[Any]] = [list(columns)]
    rows += [_standing_cells(r, columns) for r in tables.standings(t)]
    return _csv(rows, style)


def round_standings_csv(t: Tournament, style: CsvStyle | None = None) -> str:
    """The standings of each round (its finished sets), one after another."""
    style = style or csv_style()
    columns = _standing_columns(t)
    rows: list[list[Any]] = [["round", *columns]]
    for number in (
        Round.objects.filter(tournament=t).order_by("number").values_list("number", flat=True)
    ):
        rows += [[number, *_standing_cells(r, columns)] for r in tables.standings(t, number)]
    return _csv(rows, style)


def set_standings_csv(t: Tournament, style: CsvStyle | None = None) -> str:
    """The standings of each finished set."""
    style = style or csv_style()
    columns = _standing_columns(t)
    rows: list[list[Any]] = [["round", "set", *columns]]
    for tset in done_sets(t):
        rows += [
            [tset.round.number, tset.number, *_standing_cells(r, columns)]
            for r in tables.standings(t, tset.round.number, tset.number)
        ]
    return _csv(rows, style)


def deal_figures(boards: list[list[dict]]) -> list[list[tuple[float, float]]] | None:
    """Duplicate, per table and deal: South/North's matchpoints and difference from the
    other tables' average on that deal (West/East have top − mp and −diff). None with
    fewer than two tables."""
    if len(boards) < 2:
        return None
    written = scoring.written_by_deal(boards)
    out: list[list[tuple[float, float]]] = [[] for _ in boards]
    for k in range(written.shape[1]):
        figures = scoring.set_figures(written[:, k : k + 1, :], duplicate=True)
        for i in range(len(boards)):
            out[i].append((float(figures.mp[i, 0]), float(figures.diff[i, 0])))
    return out


def deal_rows(t: Tournament) -> list[dict[str, Any]]:
    """One row per table per deal of every finished set, in play order."""
    duplicate = t.structure.duplicate
    reveal = t.is_closed
    out = []
    for tset in done_sets(t):
        tabs = list(
            Table.objects.filter(table_set=tset)
            .select_related("game")
            .prefetch_related("seats__entry__player", "seats__played_by")
            .order_by("number")
        )
        figures = deal_figures([tab.board for tab in tabs]) if duplicate else None
        for i, tab in enumerate(tabs):
            names = tables.seat_names(tab, STAND_IN if tab.in_room else BOT)
            seed, rules = tables.deal_source(tab, t.structure)
            for b in tab.board:
                row = {
                    "round": tset.round.number,
                    "set": tset.number,
                    "table": tab.number,
                    "deal": b["deal"],
                    "names": names,
                    "dealer": b["dealer"],
                    "trump": "none" if b.get("no_trump") else (b.get("trump") or ""),
                    "multiplier": b.get("multiplier", 1),
                    "card_points": list(b["card_points"]),
                    "written": list(b["written"]),
                    "written_original": b.get("original_written"),
                    "figures": figures[i][b["deal"] - 1] if figures else None,
                    "hands": None,
                }
                if reveal:
                    spec = engine.deal_for(seed, b["deal"], rules)
                    # As a table shows a hand: by suit, the trump first, high to low.
                    row["hands"] = [" ".join(shown_hand(h, row["trump"])) for h in spec.texts()]
                out.append(row)
    return out


def deals_csv(t: Tournament, style: CsvStyle | None = None) -> str:
    """Every deal at every table of the finished sets: who sat where (a bot marked),
    dealer, trump, multiplier, card points and written score per team (South/North =
    ns, West/East = ew), the score as played where the organizer corrected it, and in
    duplicate the matchpoints and difference from the field per deal; the four hands
    once the tournament is closed."""
    style = style or csv_style()
    with translation.override(style.language):
        duplicate = t.structure.duplicate
        top = None
        columns = list(DEAL_COLUMNS)
        if duplicate:
            columns += DUPLICATE_DEAL_COLUMNS
        columns += HAND_COLUMNS
        rows: list[list[Any]] = [columns]
        tables_per_set: dict[tuple[int, int], int] = {}
        data = deal_rows(t)
        for r in data:
            key = (r["round"], r["set"])
            tables_per_set[key] = max(tables_per_set.get(key, 0), r["table"])
        for r in data:
            original = r["written_original"]
            cells = [
                r["round"], r["set"], r["table"], r["deal"], *r["names"], seat_name(r["dealer"]),
                trump_name(r["trump"]), r["multiplier"], r["card_points"][0], r["card_points"][1],
                r["written"][0], r["written"][1], original is not None,
                original[0] if original else None, original[1] if original else None,
            ]  # fmt: skip
            if duplicate:
                if r["figures"] is None:
                    cells += [None] * 4
                else:
                    mp, diff = r["figures"]
                    top = 2.0 * (tables_per_set[(r["round"], r["set"])] - 1)
                    cells += [mp, diff, top - mp, 0.0 - diff]
            cells += r["hands"] or [None] * 4
            rows.append(cells)
        return _csv(rows, style)


CSV_FILES = {
    "standings.csv": standings_csv,
    "round-standings.csv": round_standings_csv,
    "set-standings.csv": set_standings_csv,
    "deals.csv": deals_csv,
}


# --- the printable results (HTML, and PDF through tournaments/pdf.py) ---------------------


def results_context(t: Tournament) -> dict[str, Any]:
    """The printable page: overall standings, then per round its standings and per
    finished set every table's result (seats, set score, duplicate figures, a mark where
    the organizer corrected a deal), and the audit trail."""
    sets_by_round: dict[int, list[dict]] = {}
    for tset in done_sets(t):
        tabs = []
        for tab in (
            Table.objects.filter(table_set=tset)
            .prefetch_related("seats__entry__player", "seats__played_by")
            .order_by("number")
        ):
            seats = sorted(tab.seats.all(), key=lambda x: x.index)
            by_index = {x.index: x for x in seats}
            names = [
                by_index[i].player.get_username()
                if i in by_index and by_index[i].entry_id
                else None
                for i in range(4)
            ]
            ns, ew = by_index.get(0), by_index.get(1)
            tabs.append(
                {
                    "number": tab.number,
                    "names": names,
                    "ns_raw": ns.raw if ns else None,
                    "ew_raw": ew.raw if ew else None,
                    "ns_mp": ns.dup_mp if ns else None,
                    "ew_mp": ew.dup_mp if ew else None,
                    "ns_diff": ns.dup_diff if ns else None,
                    "ew_diff": ew.dup_diff if ew else None,
                    "corrected": sorted(tables.corrections_of(tab.board)),
                }
            )
        sets_by_round.setdefault(tset.round.number, []).append(
            {
                "number": tset.number,
                "tables": tabs,
                "rows": tables.standings(t, tset.round.number, tset.number),
            }
        )
    rounds = [
        {"number": number, "rows": tables.standings(t, number), "sets": sets}
        for number, sets in sorted(sets_by_round.items())
    ]
    return {
        "t": t,
        "s": t.structure,
        "rows": tables.standings(t),
        "rounds": rounds,
        # A close is news here only when it stopped sets before they finished.
        "audit": [
            log
            for log in outside_sets_in_play(t, t.audit.select_related("actor", "entry__player"))
            if log.action != "close" or (log.after or {}).get("stopped")
        ],
    }
