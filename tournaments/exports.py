"""Exports: standings and travellers as CSV and JSON, every game record as one record
file (engine text format, several records in a row) and as a zip.

Organizer corrections (the audit log) travel with the standings in JSON and are a CSV
file of their own (one table per CSV file).

CSV files are written for the spreadsheet of the reader's language (`csv_style`): in
Dutch and French, Excel's defaults there: `;` between cells and decimal commas; otherwise
`,` and decimal points. Every file starts with a UTF-8 byte-order mark, without which
Excel (in any language) reads ♠♥♦♣ and accented names as another encoding. Seats and
trump suits are named in that language (Zuid, ♥ Harten). Every text cell that a
spreadsheet would take for a formula (OWASP: a first character `=`, `+`, `-`, `@`, tab
or carriage return) is written with a leading `'`, so a correction reason or a player
name is shown, never run.
"""

from __future__ import annotations

import csv
import html
import io
import json
import zipfile
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from game import actions as game_actions

from . import rankings
from .models import Entry, ExportArchive, TableSet, Tournament
from .ratings import with_places

STANDINGS_COLUMNS = [
    "rank", "player", "score", "game_score", "corrected", "matchpoints", "matchpoints_pct",
    "deal_matchpoints", "deal_matchpoints_pct", "deals_played", "score_per_deal", "finish_mode",
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
        "tie_carry": t.ties_double,
        "game_rules": t.game_rules,
        "bot_level": t.bot_level,
        "status": t.status,
        "seed_commitment": t.seed_commitment,
        "seed": t.seed if t.is_closed else None,
        "unfinished_rule": t.unfinished_rule,
        "ranking": t.ranking,
        "closed_at": t.closed_at.isoformat() if t.closed_at else None,
    }


# The audit entries that carry a table's results (a sheet agreed or ended, a finished
# table's deal corrected); their `before` or `after` names the round and set.
RESULT_ACTIONS = frozenset({"room_agree", "room_finish_early", "correct_table"})


def outside_sets_in_play(t: Tournament, logs) -> list:
    """The audit entries others may read while the tournament runs: one of RESULT_ACTIONS
    about a set still being played waits until that set is done, for it tells one
    table's results on cards other tables have still to play (in duplicate)."""
    logs = list(logs)
    if not t.has_tables or t.is_closed:
        return logs
    in_play = set(
        TableSet.objects.filter(round__tournament=t, status=TableSet.Status.PLAYING).values_list(
            "round__number", "number"
        )
    )

    def about_a_set_in_play(log) -> bool:
        if log.action not in RESULT_ACTIONS:
            return False
        for data in (log.before, log.after):
            if isinstance(data, dict) and "round" in data and "set" in data:
                return (data["round"], data["set"]) in in_play
        return False

    return [log for log in logs if not about_a_set_in_play(log)]


def _audit_logs(t: Tournament) -> tuple[list, dict[int, str]]:
    """The audit entries the exports list (not the close) and the names of the accounts
    their data names by id (a score sheet's "by")."""
    from django.contrib.auth import get_user_model

    logs = outside_sets_in_play(
        t, t.audit.select_related("actor", "entry__player").exclude(action="close")
    )
    ids = set().union(*(_user_ids(log.before) | _user_ids(log.after) for log in logs))
    users = get_user_model().objects.filter(pk__in=ids)
    return logs, {u.pk: u.get_username() for u in users}


# An invite code in the trail's data (a settings edit): the trail is read by more than
# the invited (the export page, the public API), so the code itself never shows.
INVITE_CODE_HIDDEN = "(hidden)"


def _trail_data(value: Any, names: dict[int, str]) -> Any:
    """An audit entry's before/after as the exports show it: accounts by name, an
    invite code hidden (that there was one stays: "" is none)."""
    data = _named(value, names)
    if isinstance(data, dict) and data.get("invite_code"):
        data = {**data, "invite_code": INVITE_CODE_HIDDEN}
    return data


def corrections(t: Tournament) -> list[dict[str, Any]]:
    logs, names = _audit_logs(t)
    return [
        {
            "when": log.created.isoformat(),
            "who": log.actor.get_username() if log.actor else None,
            "action": log.action,
            "entry": log.entry_id,
            "player": log.entry.player.get_username() if log.entry else None,
            "before": _trail_data(log.before, names),
            "after": _trail_data(log.after, names),
            "reason": log.reason,
        }
        for log in logs
    ]


def standings_json(t: Tournament) -> str:
    data = {
        "tournament": _info(t),
        "standings": rankings.standings(t),
        "corrections": corrections(t),
    }
    return json.dumps(data, indent=2, ensure_ascii=False)


# --- CSV ---------------------------------------------------------------------------------

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")  # OWASP's CSV injection rule
SEMICOLON_LANGUAGES = ("nl", "fr")  # Excel there splits on ";" and reads "2,5"
SEPARATORS = {"semicolon": ";", "comma": ","}


@dataclass(frozen=True)
class CsvStyle:
    delimiter: str
    decimal: str
    language: str = "en"  # of the words in the cells (seats, suits, yes/no)


def csv_style(language: str | None = None, sep: str | None = None) -> CsvStyle:
    """The CSV dialect for a reader of `language` (default: the active one): `;` and
    decimal commas in Dutch and French, `,` otherwise; `sep` ("semicolon" or "comma",
    the choice on the export page) overrides the separator. Always a byte-order mark:
    Excel reads a CSV file without one in the computer's legacy code page."""
    lang = (language or translation.get_language() or "en").split("-")[0].lower()
    if sep in SEPARATORS:
        semicolon = SEPARATORS[sep] == ";"
    else:
        semicolon = lang in SEMICOLON_LANGUAGES
    if lang not in {code for code, _name in settings.LANGUAGES}:
        lang = settings.LANGUAGE_CODE.split("-")[0]
    return CsvStyle(";", ",", lang) if semicolon else CsvStyle(",", ".", lang)


def safe_cell(value: Any, style: CsvStyle) -> str:
    """One CSV cell: numbers as numbers (decimal comma where the style has one), yes/no
    in words, text that could start a formula neutralised with a leading quote."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value).replace(".", style.decimal)
    text = str(value)
    if text.startswith(FORMULA_STARTS):
        return "'" + text
    return text


def _csv(rows: list[list[Any]], style: CsvStyle) -> str:
    with translation.override(style.language):
        return _csv_text(rows, style)


def _csv_text(rows: list[list[Any]], style: CsvStyle) -> str:
    out = io.StringIO()
    out.write("\ufeff")  # every file: see csv_style
    writer = csv.writer(out, delimiter=style.delimiter, lineterminator="\r\n")
    for row in rows:
        writer.writerow([safe_cell(v, style) for v in row])
    return out.getvalue()


def seat_name(seat: int | None) -> str:
    names = (_("South"), _("West"), _("North"), _("East"))
    return names[seat] if seat is not None and 0 <= seat < 4 else ""


SUITS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


def suit_name(suit: str) -> str:
    """ "H" → "Harten" in Dutch (the page's language); "" for what is not a suit."""
    names = {
        "S": _("Spades"),
        "H": _("Hearts"),
        "D": _("Diamonds"),
        "C": pgettext("card suit", "Clubs"),
    }
    return names.get(suit, "")


def trump_name(trump: str) -> str:
    """ "H" → "♥ Harten" in Dutch, "none" → "Zonder troef", "" (no trump chosen) → ""."""
    if trump in SUITS:
        return f"{SUITS[trump]} {suit_name(trump)}"
    if trump == "none":
        return _("No trump")
    return trump or ""


def _finish_mode(mode: str) -> str:
    labels = {
        "played": _("played"),
        "bot": _("finished by the bot"),
        "as_played": _("scored as played so far"),
    }
    return labels.get(mode, mode)


def standings_csv(t: Tournament, style: CsvStyle | None = None) -> str:
    style = style or csv_style()
    with translation.override(style.language):
        return _standings_csv(t, style)


def _standings_csv(t: Tournament, style: CsvStyle) -> str:
    rows: list[list[Any]] = [list(STANDINGS_COLUMNS)]
    for row in rankings.standings(t):
        values = dict(row, finish_mode=_finish_mode(row.get("finish_mode") or ""))
        rows.append([values[c] for c in STANDINGS_COLUMNS])
    return _csv(rows, style)


SEASON_COLUMNS = ["rank", "player", "tournaments", "total", "average", "best"]


def season_csv(season, style: CsvStyle | None = None) -> str:
    """A club season's standing (tournaments/seasons.py), best first."""
    from . import seasons

    style = style or csv_style()
    rows: list[list[Any]] = [list(SEASON_COLUMNS)]
    for r in seasons.standings(season)["rows"]:
        rows.append([r["rank"], r["player"], r["events"], r["total"], r["average"], r["best"]])
    return _csv(rows, style)


def ratings_csv(ratings, style: CsvStyle | None = None) -> str:
    """A ratings list (Rating rows, best first, players selected) as the page shows it."""
    style = style or csv_style()
    rows: list[list[Any]] = [["rank", "player", "rating", "tournaments"]]
    for rank, r in with_places(ratings):  # an equal rating shares the place above it
        rows.append([rank, r.player.get_username(), round(r.value, 1), r.events])
    return _csv(rows, style)


CORRECTION_COLUMNS = [
    "when", "who", "action", "description", "entry", "player", "before", "after", "reason",
]  # fmt: skip


def audit_description(log, t: Tournament) -> str:
    """What an organizer's action did, as one plain-text sentence in the active language:
    the organizer's pages' own wording (templates/tournaments/_audit_what.html, the one
    source of the audit log's sentences on screen, in print and here)."""
    from django.template.loader import render_to_string

    text = render_to_string("tournaments/_audit_what.html", {"log": log, "t": t})
    return " ".join(html.unescape(text).split())


def _user_ids(value: Any) -> set[int]:
    """The accounts an audit entry's data names by id: who entered each deal of a score
    sheet ("by", tournaments/room.py)."""
    if isinstance(value, dict):
        found = {v for k, v in value.items() if k == "by" and type(v) is int}
        return found.union(*(_user_ids(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(_user_ids(v) for v in value))
    return set()


def _named(value: Any, names: dict[int, str]) -> Any:
    """`value` with every account id of _user_ids replaced by that account's name."""
    if isinstance(value, dict):
        return {
            k: names.get(v, v) if k == "by" and type(v) is int else _named(v, names)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_named(v, names) for v in value]
    return value


def corrections_csv(t: Tournament, style: CsvStyle | None = None) -> str:
    """The organizer's corrections (audit log), a table of its own; times are local.
    Each row says what happened as the organizer's pages say it (description, in the
    reader's language); before and after keep the data (JSON), accounts by name."""
    style = style or csv_style()
    logs, names = _audit_logs(t)
    rows: list[list[Any]] = [list(CORRECTION_COLUMNS)]
    with translation.override(style.language):
        for log in logs:
            rows.append([
                timezone.localtime(log.created).strftime("%Y-%m-%d %H:%M:%S"),
                log.actor.get_username() if log.actor else None,
                log.action,
                audit_description(log, t),
                log.entry_id,
                log.entry.player.get_username() if log.entry else None,
                json.dumps(_trail_data(log.before, names), ensure_ascii=False),
                json.dumps(_trail_data(log.after, names), ensure_ascii=False),
                log.reason,
            ])  # fmt: skip
    return _csv(rows, style)


def travellers(t: Tournament, only: set[int] | None = None) -> list[dict[str, Any]]:
    """Every deal's traveller, or those of the deals in `only` (what a reader may see
    before close: the deals their own game reached, views._deals_shown_to)."""
    return [
        {"deal": k, "results": rows}
        for k, rows in rankings.travellers(t).items()
        if only is None or k in only
    ]


def travellers_json(t: Tournament, only: set[int] | None = None) -> str:
    return json.dumps({"tournament": _info(t), "travellers": travellers(t, only)}, indent=2)


def travellers_csv(
    t: Tournament, style: CsvStyle | None = None, only: set[int] | None = None
) -> str:
    style = style or csv_style()
    with translation.override(style.language):
        return _travellers_csv(t, style, only)


def _travellers_csv(t: Tournament, style: CsvStyle, only: set[int] | None) -> str:
    rows: list[list[Any]] = [list(TRAVELLER_COLUMNS)]
    for trav in travellers(t, only):
        for r in trav["results"]:
            rows.append(
                [r["deal"], r["player"], seat_name(r["dealer"]), trump_name(r["trump"]),
                 r["card_points"][0], r["card_points"][1], r["multiplier"], r["written"][0],
                 r["written"][1], r["matchpoints"], r["neuberg"]]
            )  # fmt: skip
    return _csv(rows, style)


def entry_record_tags(entry: Entry) -> dict[str, str]:
    """The tags of an entry's record: who played and when (game.actions.record_tags), the
    tournament as Event and its club as Site. Add a tag here and every record export
    (records.txt, the zip's files) carries it; the engine adds seed, rules and result."""
    t = entry.tournament
    return {
        **_game_tags(entry.game),
        "Event": t.name,
        "Site": t.club.name if t.club_id else "Manillen",
    }


def entry_record(entry: Entry) -> str:
    """The entry's game as a text record (engine format), tagged with entry_record_tags."""
    from engine import records

    return records.write_text(game_actions.replay(entry.game), entry_record_tags(entry))


def _seats_prefetch():
    return game_actions.seats_prefetch("game__seats")


def _game_tags(game) -> dict[str, str]:
    """game.actions.record_tags with the seats prefetched (_seats_prefetch): a record
    export asked one query per game for them."""
    return game_actions.record_tags(game, game_actions.prefetched_seats(game))


def _entries(t: Tournament):
    """The entries whose games the record exports hold: those with a result, as in the
    standings (a removed entry's game, or the empty game of one who did not play, is in
    no export of the results)."""
    return (
        t.entries.filter(status=Entry.Status.FINISHED)
        .select_related("player", "game", "game__owner", "tournament__club")
        .prefetch_related(_seats_prefetch())
        .order_by("pk")
    )


def _records_file(t: Tournament, texts: list[str]) -> str:
    if not texts:
        from engine.records import one_line

        if t.has_tables and t.structure.in_room:
            why = "played in the room with real cards: its results are in the other exports"
        elif t.entries.exists():
            why = "no game with a result"
        else:
            why = "nobody entered this tournament"
        return f"; {one_line(t.name)}: no games ({why})\n"
    return "\n".join(texts)


def records_text(t: Tournament) -> str:
    """Every game of the tournament as one record file in the engine's text format, one
    record after another (`engine.records.read_many` and `python -m engine replay` read
    it back), each tagged with the tournament (Event), its club (Site) and the player."""
    if t.has_tables:
        return _records_file(t, [text for _, text in table_records(t)])
    return _records_file(t, [entry_record(entry) for entry in _entries(t)])


def table_records(t: Tournament) -> list[tuple[str, str]]:
    """A tournament of tables: every table's game as (file name, record), in play order,
    each record naming its round, set and table besides the tournament and the four
    players (or bots)."""
    from engine import records

    from .models import Table

    out = []
    # A night in the room has no record of play: its results are in the other exports.
    tables = (
        Table.objects.filter(table_set__round__tournament=t, game__isnull=False)
        .select_related(
            "game", "game__owner", "game__tournament_entry", "table_set__round__tournament__club"
        )
        .prefetch_related(_seats_prefetch())
        .order_by("table_set__round__number", "table_set__number", "number")
    )
    for tab in tables:
        rnd, k = tab.table_set.round.number, tab.table_set.number
        tags = {
            **_game_tags(tab.game),
            "Event": t.name,
            "Site": t.club.name if t.club_id else "Manillen",
            "Round": str(rnd),
            "Set": str(k),
            "Table": str(tab.number),
        }
        text = records.write_text(game_actions.replay(tab.game), tags)
        out.append((f"r{rnd}-s{k}-t{tab.number:03d}.txt", text))
    return out


def records_zip(t: Tournament) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        texts = []
        if t.has_tables:
            for name, text in table_records(t):
                texts.append(text)
                zf.writestr(name, text)
        for entry in _entries(t) if not t.has_tables else ():
            text = entry_record(entry)
            texts.append(text)
            zf.writestr(f"{entry.pk:04d}-{entry.player.get_username()}.txt", text)
        if texts:
            zf.writestr("records.txt", _records_file(t, texts))
        if t.has_tables:
            import json

            from . import tables

            zf.writestr("tournament.json", json.dumps(tables.export(t), ensure_ascii=False))
        else:
            zf.writestr("standings.json", standings_json(t))
    return buf.getvalue()


# What a stored records zip holds, as its archive's stamp: raise it when that changes, and
# the zips kept by an earlier release are built again instead of served (version 2: the
# games with a result only, see _entries).
RECORDS_ZIP_FORMAT = "records-2"


def build_records_zip(tournament_id: int) -> int | None:
    """Store the records zip of a closed tournament (idempotent); returns its size."""
    t = Tournament.objects.filter(pk=tournament_id).first()
    if t is None or not t.is_closed:
        return None
    return len(_store_records_zip(t, t.rankings_version, records_zip(t)))


def _store_records_zip(t: Tournament, version: int, data: bytes) -> bytes:
    ExportArchive.objects.update_or_create(
        tournament=t,
        kind="records.zip",
        defaults={"rankings_version": version, "stamp": RECORDS_ZIP_FORMAT, "data": data},
    )
    return data


def stored_or_built_records_zip(t: Tournament) -> bytes:
    """The kept zip if it was built from the rankings as they stand, by this release's
    rules (RECORDS_ZIP_FORMAT); else built now, and kept for the next download once the
    tournament is closed."""
    version = t.rankings_version
    archive = ExportArchive.objects.filter(
        tournament=t, kind="records.zip", rankings_version=version, stamp=RECORDS_ZIP_FORMAT
    ).first()
    if archive is not None:
        return bytes(archive.data)
    data = records_zip(t)
    return _store_records_zip(t, version, data) if t.is_closed else data
