"""Exports: standings and travellers as CSV and JSON, every game record as one record
file (engine text format, several records in a row) and as a zip.

Organizer corrections (the audit log) travel with the standings in both formats.
"""

from __future__ import annotations

import csv
import io
import json
import zipfile
from typing import Any

from game import actions as game_actions

from . import rankings
from .models import ExportArchive, Tournament

STANDINGS_COLUMNS = [
    "rank", "player", "score", "game_score", "corrected", "matchpoints", "matchpoints_pct",
    "deal_matchpoints", "deals_played", "finish_mode",
]  # fmt: skip
TRAVELLER_COLUMNS = [
    "deal", "player", "dealer", "trump", "wij_points", "zij_points", "multiplier",
    "wij_written", "zij_written", "matchpoints", "neuberg",
]  # fmt: skip


def _info(t: Tournament) -> dict[str, Any]:
    return {
        "id": t.pk,
        "name": t.name,
        "club": t.club.name if t.club else None,
        "format": t.format,
        "rules": t.rules,
        "deals": t.fixed_deals,
        "tie_carry": t.tie_carry,
        "game_rules": t.game_rules,
        "bot_level": t.bot_level,
        "status": t.status,
        "seed_commitment": t.seed_commitment,
        "seed": t.seed if t.is_closed else None,
        "unfinished_rule": t.unfinished_rule,
        "closed_at": t.closed_at.isoformat() if t.closed_at else None,
    }


def corrections(t: Tournament) -> list[dict[str, Any]]:
    return [
        {
            "when": log.created.isoformat(),
            "who": log.actor.get_username() if log.actor else None,
            "action": log.action,
            "entry": log.entry_id,
            "before": log.before,
            "after": log.after,
            "reason": log.reason,
        }
        for log in t.audit.select_related("actor").exclude(action="close")
    ]


def standings_json(t: Tournament) -> str:
    data = {
        "tournament": _info(t),
        "standings": rankings.standings(t),
        "corrections": corrections(t),
    }
    return json.dumps(data, indent=2, ensure_ascii=False)


def standings_csv(t: Tournament) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(STANDINGS_COLUMNS)
    for row in rankings.standings(t):
        writer.writerow([row[c] for c in STANDINGS_COLUMNS])
    fixes = corrections(t)
    if fixes:
        writer.writerow([])
        writer.writerow(["correction", "who", "when", "entry", "before", "after", "reason"])
        for c in fixes:
            writer.writerow(
                [c["action"], c["who"], c["when"], c["entry"], json.dumps(c["before"]),
                 json.dumps(c["after"]), c["reason"]]
            )  # fmt: skip
    return out.getvalue()


def travellers(t: Tournament) -> list[dict[str, Any]]:
    return [
        {"deal": k, "results": rankings.traveller(t, k)} for k in rankings.played_deal_numbers(t)
    ]


def travellers_json(t: Tournament) -> str:
    return json.dumps({"tournament": _info(t), "travellers": travellers(t)}, indent=2)


def travellers_csv(t: Tournament) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(TRAVELLER_COLUMNS)
    for trav in travellers(t):
        for r in trav["results"]:
            writer.writerow(
                [r["deal"], r["player"], r["dealer"], r["trump"], r["card_points"][0],
                 r["card_points"][1], r["multiplier"], r["written"][0], r["written"][1],
                 r["matchpoints"], r["neuberg"]]
            )  # fmt: skip
    return out.getvalue()


def records_text(t: Tournament) -> str:
    """Every game of the tournament as one record file in the engine's text format, one
    record after another (`engine.records.read_many` and `python -m engine replay` read
    it back), each tagged with the tournament (Event), its club (Site) and the player."""
    from engine import records

    site = t.club.name if t.club_id else "Manillen"
    parts = []
    for entry in t.entries.select_related("player", "game", "game__owner").order_by("pk"):
        game = entry.game
        tags = {**game_actions.record_tags(game), "Event": t.name, "Site": site}
        parts.append(records.write_text(game_actions.replay(game), tags))
    if not parts:
        return f"; {t.name}: no games (nobody entered this tournament)\n"
    return "\n".join(parts)


def records_zip(t: Tournament) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        entries = t.entries.select_related("player", "game").order_by("pk")
        for entry in entries:
            name = f"{entry.pk:04d}-{entry.player.get_username()}.txt"
            zf.writestr(name, game_actions.record_text(entry.game))
        if entries:
            zf.writestr("records.txt", records_text(t))
        zf.writestr("standings.json", standings_json(t))
    return buf.getvalue()


def build_records_zip(tournament_id: int) -> int | None:
    """Store the records zip of a closed tournament (idempotent); returns its size."""
    t = Tournament.objects.filter(pk=tournament_id).first()
    if t is None or not t.is_closed:
        return None
    version = t.rankings_version
    data = records_zip(t)
    ExportArchive.objects.update_or_create(
        tournament=t, kind="records.zip", defaults={"rankings_version": version, "data": data}
    )
    return len(data)


def stored_or_built_records_zip(t: Tournament) -> bytes:
    archive = ExportArchive.objects.filter(
        tournament=t, kind="records.zip", rankings_version=t.rankings_version
    ).first()
    return bytes(archive.data) if archive is not None else records_zip(t)
