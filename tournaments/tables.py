"""Reading a tournament of rounds and tables: standings (per set, round, overall), where
a player sits, every table's progress, and the structured export. No writes here: the
mutations are in tournaments/actions.py."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils.translation import gettext

import engine
from game.cards import card_text
from game.models import BotReason, Seat

from . import scoring
from .models import Entry, Round, Table, TableSeat, TableSet, Tournament
from .templatetags.tournament_tags import shown_hand

SEAT_NAMES = ("South", "West", "North", "East")


def _seat_rows(
    t: Tournament,
    round_number: int | None = None,
    set_number: int | None = None,
    through_round: int | None = None,
):
    # Only sets every table has finished: in duplicate the other tables of a set are
    # still playing the same deals, and nobody sees a result on a deal before its end.
    qs = TableSeat.objects.filter(
        table__table_set__round__tournament=t,
        table__table_set__status=TableSet.Status.DONE,
        entry__isnull=False,
        raw__isnull=False,
    )
    if round_number is not None:
        qs = qs.filter(table__table_set__round__number=round_number)
    if set_number is not None:
        qs = qs.filter(table__table_set__number=set_number)
    if through_round is not None:
        qs = qs.filter(table__table_set__round__number__lte=through_round)
    return list(qs.values_list("entry_id", "table_id", "index", "raw", "dup_mp", "dup_diff"))


def _seats_never_taken(t: Tournament) -> dict[tuple[int, int], int]:
    """(table id, seat index) → the person of the online tables' seats whose person never
    arrived: the bot played the seat from the set's start to its end
    (game.models.BotReason.ABSENT is given back on arrival, so it is still there only if
    they never came)."""
    return {
        (table_id, index): user_id
        for table_id, index, user_id in Seat.objects.filter(
            game__tournament_table__table_set__round__tournament=t,
            user__isnull=False,
            bot_control=True,
            bot_reason=BotReason.ABSENT,
        ).values_list("game__tournament_table__id", "index", "user_id")
    }


def standings(
    t: Tournament,
    round_number: int | None = None,
    set_number: int | None = None,
    through_round: int | None = None,
) -> list[dict[str, Any]]:
    """Entries best first, over the whole tournament or one round or one set: raw score
    (own team minus opponents, summed over sets), duplicate matchpoints and difference
    from the field. Ties: duplicate score, then head-to-head; entries still level share
    a rank, ordered by lot. Bots never rank; an entry cut after a round stays listed
    (below those still in, overall); an entry without a finished set, or whose every
    set the bot played because the person never came (`no_show`), has rank None.
    `through_round`: the overall standing as it stood at the end of that round (a cut
    made after it or later does not count yet)."""
    rows = _seat_rows(t, round_number, set_number, through_round)
    entries = {
        e.pk: e
        # By id: the lot that breaks the last ties must not depend on the ranks stored.
        for e in Entry.objects.filter(tournament=t)
        .exclude(status=Entry.Status.REMOVED)
        .select_related("player")
        .order_by("pk")
    }
    raw, mp, diff = defaultdict(int), defaultdict(float), defaultdict(float)
    sets, by_bot = defaultdict(int), defaultdict(int)
    never_came = _seats_never_taken(t)
    at_table: dict[int, list[tuple[int, int, int]]] = defaultdict(list)
    for entry_id, table_id, index, r, m, d in rows:
        raw[entry_id] += r
        mp[entry_id] += m or 0.0
        diff[entry_id] += d or 0.0
        sets[entry_id] += 1
        # The entry's present player's: whoever replaced a no-show did not fail to come.
        entry = entries.get(entry_id)  # None: removed
        by_bot[entry_id] += (
            entry is not None and never_came.get((table_id, index)) == entry.player_id
        )
        at_table[table_id].append((entry_id, index, r))

    tables_of: dict[int, list[int]] = defaultdict(list)
    for table_id, seated in at_table.items():
        for entry_id, _, _ in seated:
            tables_of[entry_id].append(table_id)

    def head_to_head(group: list[int]) -> dict[int, int]:
        """Each tied entry's net score in the sets where it sat against another of them."""
        members, out = set(group), defaultdict(int)
        for table_id in {tab for k in group for tab in tables_of[k]}:
            seated = at_table[table_id]
            for entry_id, index, r in seated:
                if entry_id in members and any(
                    o in members and (oi - index) % 2 for o, oi, _ in seated
                ):
                    out[entry_id] += r
        return out

    keys = [pk for pk in entries if pk in sets or (round_number is None and set_number is None)]
    # Overall, those cut rank below those still in (whatever their points).
    if round_number is None and set_number is None:
        out_after = {
            k: o
            for k in keys
            if (o := entries[k].out_after) is not None
            and (through_round is None or o < through_round)
        }
        still_in = [k for k in keys if k not in out_after]
        cut = sorted(out_after, key=lambda k: -out_after[k])
        groups = [still_in] + [
            [k for k in cut if out_after[k] == r]
            for r in sorted(set(out_after.values()), reverse=True)
        ]
    else:
        groups = [keys]

    def no_show(pk: int) -> bool:
        # Never came: the bot played every set of the entry (the person never opened a
        # table). Listed and marked, not ranked: no result of their own to rate.
        return bool(sets[pk]) and by_bot[pk] == sets[pk]

    def in_order(keys: list[int]) -> tuple[list[int], list[int]]:
        order, key_ranks = scoring.table_ranks(
            keys, [raw[k] for k in keys], [mp[k] for k in keys], head_to_head, t.seed
        )
        return [keys[i] for i in order], key_ranks

    ordered: list[int] = []
    ranks: list[int | None] = []  # level entries share a rank; the lot only orders them
    placed = 0  # ranked so far: the unranked take up no place
    for group in groups:
        # No set finished yet (before the first, or a tournament closed early), or never
        # came: listed, not ranked (a season or the ratings would count it a result).
        ranked = [k for k in group if sets[k] and not no_show(k)]
        unranked = [k for k in group if not sets[k] or no_show(k)]
        if ranked:
            keys, key_ranks = in_order(ranked)
            ordered.extend(keys)
            ranks.extend(placed + r for r in key_ranks)
            placed += len(ranked)
        if unranked:
            ordered.extend(in_order(unranked)[0])
            ranks.extend([None] * len(unranked))
    # Who played an entry's earlier sets before the organizer replaced them (of the sets
    # this standing counts: a round after the replacement names the newcomer alone).
    before: dict[int, set[str]] = defaultdict(set)
    for entry_id, name in TableSeat.objects.filter(
        table__table_set__round__tournament=t, table_id__in=at_table, played_by__isnull=False
    ).values_list("entry_id", f"played_by__{get_user_model().USERNAME_FIELD}"):
        before[entry_id].add(name)
    out = []
    for rank, pk in zip(ranks, ordered, strict=True):
        e = entries[pk]
        out.append(
            {
                "rank": rank,
                "no_show": no_show(pk),
                "entry": pk,
                "player": e.player.get_username(),
                "raw": raw[pk],
                "dup_mp": round(mp[pk], 2),
                "dup_diff": round(diff[pk], 2),
                "sets": sets[pk],
                "out_after": e.out_after,
                "before": sorted(before[pk] - {e.player.get_username()}),
            }
        )
    # The unranked after the ranked (stable: otherwise as ordered); all of them before
    # the first set, so the lot's order stands then.
    out.sort(key=lambda row: row["rank"] is None)
    return out


def cut_changes(t: Tournament) -> list[dict[str, Any]]:
    """The cuts already made that the standing no longer bears out (a correction of an
    earlier deal changed the order): per such round, who would have gone on instead and
    who went on in their place. The cut stands (the next round is drawn and played);
    the organizer decides what to do about it."""
    cut_rounds = sorted(
        set(
            Entry.objects.filter(tournament=t, out_after__isnull=False)
            .exclude(status=Entry.Status.REMOVED)
            .values_list("out_after", flat=True)
        )
    )
    changes = []
    for r in cut_rounds:
        rows = [row for row in standings(t, through_round=r) if (row["out_after"] or r) >= r]
        went_on = {row["entry"] for row in rows if row["out_after"] is None or row["out_after"] > r}
        now_on = rows[: len(went_on)]
        missed = [row["player"] for row in now_on if row["entry"] not in went_on]
        if missed:
            kept = {row["entry"] for row in now_on}
            lucky = [row["player"] for row in rows if row["entry"] in went_on - kept]
            changes.append({"round": r, "would_go_on": missed, "went_on_instead": lucky})
    return changes


def push_standings(tournament_id: int, rows: list[dict] | None = None) -> None:
    """Live: the overall standings and the current round/set to the tournament's group
    (the standings socket, tournaments/consumers.py)."""
    layer = get_channel_layer()
    t = Tournament.objects.filter(pk=tournament_id).first()
    if layer is None or t is None:
        return
    message = {
        "type": "standings",
        "version": t.rankings_version,
        "status": t.status,
        "rows": standings(t) if rows is None else rows,
        "progress": progress(t),
    }
    async_to_sync(layer.group_send)(t.group_name, {"type": "standings.update", "payload": message})


def current_set(t: Tournament) -> TableSet | None:
    return (
        TableSet.objects.filter(round__tournament=t)
        .select_related("round")
        .order_by("-round__number", "-number")
        .first()
    )


def my_seat(t: Tournament, user) -> dict[str, Any] | None:
    """Where `user` sits in the current set ("table 7, North"), or None (also once the
    tournament is closed: nothing is played any more)."""
    if t.is_closed:
        return None
    tset = current_set(t)
    if tset is None or not getattr(user, "is_authenticated", False):
        return None
    seat = (
        TableSeat.objects.filter(table__table_set=tset, entry__player=user)
        .select_related("table__game")
        .first()
    )
    if seat is None:
        return None
    tab = seat.table
    if tab.in_room:
        # Real cards: the player's page leads to the table's score sheet.
        href = reverse(
            "tournaments:tables-sheet", args=[t.pk, tset.round.number, tset.number, tab.number]
        )
    else:
        href = reverse("game", args=[tab.game.public_id])
    return {
        "round": tset.round.number,
        "set": tset.number,
        "table": tab.number,
        "seat": seat.index,
        "seat_name": SEAT_NAMES[seat.index],
        "game": str(tab.game.public_id) if tab.game_id else None,
        "room": tab.in_room,
        "href": href,
        # When the set ends (the bots then finish a table still playing), or None.
        "deadline": tset.deadline,
        # The set is over and the next one not drawn yet (a break between rounds).
        "done": tset.status == TableSet.Status.DONE,
        # The player's own table is done but others still play the set: (done, tables).
        "waiting": _tables_done(tset)
        if tab.finished and tset.status != TableSet.Status.DONE
        else None,
    }


def _tables_done(tset: TableSet) -> tuple[int, int]:
    """(tables of the set that have finished, tables of the set)."""
    finished = list(Table.objects.filter(table_set=tset).values_list("finished", flat=True))
    return sum(finished), len(finished)


def progress(t: Tournament, *, to_move: bool = False) -> dict[str, Any] | None:
    """The current set: per table the deal being played, who is absent (no socket open
    at their table), whose seat the bot plays and why (game.models.BotReason: "absent"
    until they arrive, "away", "clock", ...), done or not. Whose turn it is only with
    `to_move`, for an organizer who does not play: the seat to move after a trick is its
    winner, so following it at another table tells a player who took each trick of a
    deal they are still to play. Three flat queries (it is part of every standings
    push). None before the draw and once the tournament is closed."""

    from game.models import Seat

    from .room import SIDES  # Table.agreed: the sides, besides its notes

    if t.is_closed:
        return None
    tset = current_set(t)
    if tset is None:
        return None
    name_field = f"entry__player__{get_user_model().USERNAME_FIELD}"
    rows = list(
        Table.objects.filter(table_set=tset)
        .order_by("number")
        .values_list("pk", "number", "finished", "game_id", "game__state", "sheet", "agreed")
    )
    deals_per_set = t.structure.deals
    seats: dict[int, list] = defaultdict(list)
    for table_id, index, entry_id, name in (
        TableSeat.objects.filter(table__table_set=tset)
        .order_by("index")
        .values_list("table_id", "index", "entry_id", name_field)
    ):
        seats[table_id].append((index, entry_id, name))
    people = {
        (game_id, index): (bot_control, connections, reason)
        for game_id, index, bot_control, connections, reason in Seat.objects.filter(
            game_id__in=[r[3] for r in rows], user__isnull=False
        ).values_list("game_id", "index", "bot_control", "connections", "bot_reason")
    }
    tables = []
    for table_id, number, finished, game_id, state, sheet, agreed in rows:
        room = game_id is None
        state = state or {}
        if room:
            # Real cards: how many deals the table has entered, which sides agreed.
            state = {"deal_number": len(sheet or ()), "deals": deals_per_set}
        out = []
        for index, entry_id, name in seats[table_id]:
            bot_control, connections, reason = people.get((game_id, index), (False, 1, ""))
            person = entry_id is not None and not finished
            out.append(
                {
                    "seat": index,
                    "name": name or "",
                    "bot": entry_id is None,
                    # A person with no socket open at their table (while it plays).
                    "absent": person and not connections,
                    # The bot plays a person's seat, and why: "absent" (not arrived
                    # since the set's start), "replaced", "away", "clock", "left".
                    "bot_plays": person and bot_control,
                    "bot_reason": reason if person and bot_control else "",
                }
            )
        tables.append(
            {
                "table": number,
                "done": finished,
                "deal": state.get("deal_number"),
                "deals": state.get("deals"),
                "to_move": None if finished or not to_move else state.get("to_move"),
                "seats": out,
                "room": room,
                "agreed": sorted(int(k) for k in agreed or {} if k in SIDES) if room else None,
            }
        )
    return {
        "round": tset.round.number,
        "set": tset.number,
        "deadline": tset.deadline.isoformat() if tset.deadline else None,
        "tables": tables,
        "done": sum(1 for x in tables if x["done"]),
    }


def corrections_of(board: list[dict]) -> dict[int, tuple[list[int], list[int]]]:
    """A finished table's corrected deals: deal number -> (written now, as played)."""
    return {
        b["deal"]: (list(b["written"]), list(b["original_written"]))
        for b in board or ()
        if "original_written" in b
    }


def _announcements(actions: list[str]) -> list[str]:
    return [a for a in actions if not (len(a) == 2 or a.startswith("trump:"))]


def export(t: Tournament, reveal: bool | None = None) -> dict[str, Any]:
    """The whole structure (docs/tournament-export.md): rounds -> sets -> tables ->
    seats (player or bot) -> deals (dealer, hands per seat, trump, announcements, card
    points, written score), and the standings per set, per round and overall.

    The hands, plays and seeds are secret until the tournament closes (`reveal`
    defaults to that): before, deals carry only their results."""
    from . import exports

    reveal = t.is_closed if reveal is None else reveal
    s = t.structure
    rounds_out = []
    for rnd in Round.objects.filter(tournament=t).order_by("number"):
        sets_out = []
        for tset in TableSet.objects.filter(round=rnd).order_by("number"):
            tables_out = []
            for tab in (
                Table.objects.filter(table_set=tset)
                .select_related("game")
                .prefetch_related("seats__entry__player", "seats__played_by")
                .order_by("number")
            ):
                game = tab.game
                seed, rules = deal_source(tab, s)
                played = played_deals(tab, s)
                corrected = corrections_of(tab.board)
                deals = []
                for d in played:
                    spec = engine.deal_for(seed, d.number, rules) if reveal else None
                    r = d.result
                    written, original = corrected.get(d.number, (list(r["written"]), None))
                    deals.append(
                        {
                            "number": d.number,
                            "dealer": r["dealer"],
                            "hands": [list(h) for h in spec.texts()] if reveal else None,
                            "trump": r["trump"] or None,
                            "no_trump": r["no_trump"],
                            "announcements": _announcements(d.actions) if reveal else None,
                            "multiplier": r["multiplier"],
                            "card_points": list(r["card_points"]),
                            "written": written,
                            # An organizer's correction: the score as played (else null).
                            "written_original": original,
                            "actions": d.actions if reveal else None,
                        }
                    )
                tables_out.append(
                    {
                        "table": tab.number,
                        "game": str(game.public_id) if game else None,
                        "in_room": tab.in_room,
                        "seed": seed if reveal else None,
                        "rules": rules,
                        "finished": tab.finished,
                        "seats": [
                            {
                                "seat": seat.index,
                                "direction": SEAT_NAMES[seat.index],
                                "player": seat.player.get_username() if seat.entry_id else None,
                                "bot": seat.entry_id is None,
                                "raw": seat.raw,
                                "dup_mp": seat.dup_mp,
                                "dup_diff": seat.dup_diff,
                            }
                            for seat in sorted(tab.seats.all(), key=lambda x: x.index)
                        ],
                        "deals": deals,
                    }
                )
            sets_out.append(
                {
                    "set": tset.number,
                    "seed": tset.seed if reveal else None,
                    # A set still being played when the tournament closed stopped
                    # where it stood, unscored (actions._close_tables).
                    "status": "stopped"
                    if t.is_closed and tset.status != TableSet.Status.DONE
                    else tset.status,
                    "tables": tables_out,
                    "standings": standings(t, rnd.number, tset.number),
                }
            )
        rounds_out.append(
            {
                "round": rnd.number,
                "status": rnd.status,
                "sets": sets_out,
                "standings": standings(t, rnd.number),
            }
        )
    return {
        "tournament": export_info(t),
        "rounds": rounds_out,
        "standings": standings(t),
        # The audit trail: corrections (with the score before and after, and why),
        # replacements, removals.
        "corrections": exports.corrections(t),
    }


def export_info(t: Tournament) -> dict[str, Any]:
    """A tournament of tables as its exports describe it (the seed once closed)."""
    s = t.structure
    return {
        "id": t.pk,
        "name": t.name,
        "format": t.format,
        "status": t.status,
        "rules": s.rules_spec,
        "rounds": s.rounds,
        "sets": s.sets,
        "deals": s.deals,
        "duplicate": s.duplicate,
        "tie_carry": s.ties_double,
        "cut": s.cut,
        "cut_fraction": s.cut_fraction,
        "redraw": s.redraw,
        "seed_commitment": t.seed_commitment,
        "seed": t.seed if t.is_closed else None,
    }


def stopped_sets(t: Tournament) -> list[str]:
    """The sets ("round.set") a tournament of tables closed before they finished: they
    stopped where they stood, unscored (actions._close_tables). Empty while it runs."""
    return unfinished_sets(t) if t.is_closed else []


def unfinished_sets(t: Tournament) -> list[str]:
    """The sets ("round.set") drawn and not finished."""
    return [
        f"{r}.{k}"
        for r, k in TableSet.objects.filter(round__tournament=t)
        .exclude(status=TableSet.Status.DONE)
        .order_by("round__number", "number")
        .values_list("round__number", "number")
    ]


def seat_names(tab: Table, empty: str = "") -> list[str]:
    """The four seats' players' names, seat 0..3 (`empty` for a seat without one: a bot,
    or a stand-in in the room); the seats' players prefetched by the caller."""
    names = [empty] * 4
    for seat in tab.seats.all():
        if seat.entry_id:
            names[seat.index] = seat.player.get_username()
    return names


def played_deals(tab: Table, structure=None) -> list:
    """The deals played at `tab` (replays.PlayedDeal: number, result, tricks, actions).
    A table of a night in the room has no play: its results as entered (the board once
    agreed), announcements from what was entered, no tricks."""
    from . import replays

    if not tab.in_room:
        game = tab.game
        return replays.split_deals(game.seed, game.rules, list(game.actions))[1]
    from . import room

    structure = structure or tab.table_set.round.tournament.structure
    rows = tab.board if tab.finished else room.score_sheet_rows(tab, structure)
    return [
        replays.PlayedDeal(
            number=r["deal"], result=r, tricks=[],
            actions=(["blind"] if r.get("blind") else []) + ["mee", "tegen"][: r["doublings"]],
        )
        for r in rows
    ]  # fmt: skip


def deal_source(tab: Table, structure=None) -> tuple[str, str]:
    """(seed, rules) of the deals `tab` plays, online or in the room."""
    if not tab.in_room:
        return tab.game.seed, tab.game.rules
    from .actions import table_seed

    structure = structure or tab.table_set.round.tournament.structure
    return table_seed(tab.table_set.seed, tab.number, structure.duplicate), structure.rules_spec


def _hands_shown(spec, result: dict) -> list[list[str]]:
    """The four hands of a played deal as the table shows one ("A♥"): by suit, the trump
    first, then by rank, high to low."""
    trump = None if result["no_trump"] else result["trump"]
    return [shown_hand(h, trump) for h in spec.texts()]


def traveller(t: Tournament, round_number: int, set_number: int, number: int) -> dict | None:
    """Deal `number` of a finished set at every table: the trump choice, announcements,
    card points and written score, the duplicate matchpoints of South/North on it, the
    hands and the play trick by trick. None if the set is not finished (in duplicate the
    other tables are still playing those cards) or has no such deal."""
    import numpy as np

    tset = (
        TableSet.objects.filter(round__tournament=t, round__number=round_number, number=set_number)
        .select_related("round")
        .first()
    )
    if tset is None or tset.status != TableSet.Status.DONE:
        return None
    rows = []
    every_table = []  # written per table of the set, NaN where it did not play the deal
    for tab in (
        Table.objects.filter(table_set=tset)
        .select_related("game")
        .prefetch_related("seats__entry__player", "seats__played_by")
        .order_by("number")
    ):
        game = tab.game
        seed, rules = deal_source(tab, t.structure)
        deal = next((d for d in played_deals(tab, t.structure) if d.number == number), None)
        if deal is None:
            every_table.append([np.nan, np.nan])
            continue
        names = seat_names(tab, gettext("stand-in") if tab.in_room else "bot")
        spec = engine.deal_for(seed, number, rules)
        r = deal.result
        written, original = corrections_of(tab.board).get(number, (list(r["written"]), None))
        every_table.append(written)
        rows.append(
            {
                "table": tab.number,
                "game": str(game.public_id) if game else None,
                "names": names,
                "dealer": r["dealer"],
                "trump": "none" if r["no_trump"] else (r["trump"] or ""),
                "announcements": _announcements(deal.actions),
                "multiplier": r["multiplier"],
                "card_points": list(r["card_points"]),
                "written": written,
                "written_original": original,  # before an organizer's correction
                "hands": _hands_shown(spec, r),
                # The replay, trick by trick: who played which card.
                "tricks": [
                    [(names[seat], card_text(c)) for seat, c in trick["cards"]]
                    for trick in deal.tricks
                ],
            }
        )
    if not rows:
        return None
    if t.structure.duplicate and len(every_table) > 1:
        from . import scoring

        # As the set counts it: a table that did not play the deal is compared with nobody.
        figures = scoring.set_figures(np.array(every_table, dtype=float)[:, None, :], True)
        played = [i for i, w in enumerate(every_table) if not np.isnan(w[0])]
        for row, i in zip(rows, played, strict=True):
            row["mp"], row["diff"] = float(figures.mp[i, 0]), float(figures.diff[i, 0])
    return {"round": round_number, "set": set_number, "number": number, "rows": rows}


def tables_at(tournament, round_number: int, set_number: int, number: int):
    """Table `number` of set `set_number` of round `round_number` (a queryset: empty if
    there is none); `tournament` a Tournament or its id."""
    return Table.objects.filter(
        table_set__round__tournament=tournament,
        table_set__round__number=round_number,
        table_set__number=set_number,
        number=number,
    )


def table_game(t: Tournament, round_number: int, set_number: int, table_number: int) -> dict | None:
    """The replay of one table's game of a finished set, deal after deal: who sat where,
    the dealer, the four hands, trump, announcements, the play trick by trick (with the
    trick's winner and points), card points and the written score (and the score as
    played, where the organizer corrected it). None while any table of the set still
    plays (in duplicate they hold the same cards)."""
    tab = (
        tables_at(t, round_number, set_number, table_number)
        .select_related("game", "table_set")
        .prefetch_related("seats__entry__player", "seats__played_by")
        .first()
    )
    if tab is None or tab.table_set.status != TableSet.Status.DONE:
        return None
    game = tab.game
    names = seat_names(tab)
    bots = [False] * 4
    for seat in tab.seats.all():
        bots[seat.index] = seat.entry_id is None
    seed, rules = deal_source(tab, t.structure)
    corrected = corrections_of(tab.board)
    deals = []
    for d in played_deals(tab, t.structure):
        spec = engine.deal_for(seed, d.number, rules)
        r = d.result
        written, original = corrected.get(d.number, (list(r["written"]), None))
        deals.append(
            {
                "number": d.number,
                "dealer": r["dealer"],
                "trump": "none" if r["no_trump"] else (r["trump"] or ""),
                "announcements": _announcements(d.actions),
                "multiplier": r["multiplier"],
                "card_points": list(r["card_points"]),
                "written": written,
                "written_original": original,
                "hands": _hands_shown(spec, r),
                "tricks": [
                    {
                        "cards": [(seat, card_text(c)) for seat, c in trick["cards"]],
                        "winner": trick.get("winner"),
                        "points": trick.get("points", 0),
                    }
                    for trick in d.tricks
                ],
            }
        )
    return {
        "round": round_number,
        "set": set_number,
        "table": table_number,
        "game": str(game.public_id) if game else None,
        "in_room": tab.in_room,
        "names": names,
        "bots": bots,
        "deals": deals,
    }
