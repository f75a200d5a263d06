"""A club night with real cards (Structure.in_room): the same rounds, sets, draw and
duplicate scoring as online, but each table plays the printed deals with real cards and
enters its results from a phone.

- The organizer prints the deals of a set (`deal_sheets`): per deal the dealer and the
  four hands, so every table lays out the same cards (in duplicate one sheet serves
  every table of the set).
- A player at the table (or an organizer) enters each deal in order: trump, the
  announcements, the points South/North counted (`enter_deal`). The server writes the
  score (engine.scoresheet), the tie factor carried as the preset says.
- When every deal is in, each side agrees with the sheet (`agree`; an organizer may
  agree for the table); then the table is finished exactly as an online table is
  (actions.finish_table) and the set moves on. Changing a deal takes back both sides'
  agreement.

A player sees only their own table's sheet while the set is played: the other tables'
results on the same cards stay hidden until the set is done (the travellers).
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils.translation import gettext_noop as N_

import engine
from engine.scoresheet import Line, LineError, check_line, deal_total, score_sheet
from game.cards import card_text

from . import actions
from .actions import NotAllowed, TournamentError
from .models import AuditLog, Structure, Table, TableSet, Tournament

LINE_FIELDS = ("trump", "points", "blind", "doublings", "all_tricks")
# Table.agreed: per side ("0", "1") who agreed (None: stand-ins); besides, "ended": the
# organizer who ended the table when time was up; "withdrawn": who changed which deal
# after an agreement (which that took back).
SIDES = ("0", "1")
TRUMP_CHOICES = ("S", "H", "D", "C")


def rules_of(structure: Structure) -> engine.RuleSet:
    return engine.get_rules(structure.rules_spec)


def deal_specs(tab: Table, structure: Structure) -> list[engine.DealSpec]:
    """The deals table `tab` plays (the same as an online table of that set would)."""
    from .tables import deal_source

    seed, rules = deal_source(tab, structure)
    rules = engine.get_rules(rules)
    return [engine.deal_for(seed, k, rules) for k in range(1, structure.deals + 1)]


def lines_of(tab: Table) -> list[Line]:
    return [Line(**{k: d[k] for k in LINE_FIELDS}) for d in tab.sheet]


def score_sheet_rows(tab: Table, structure: Structure) -> list[dict]:
    """The board rows of what the table has entered so far."""
    return score_sheet(rules_of(structure), deal_specs(tab, structure), lines_of(tab))


def totals_of(rows: list[dict]) -> list[int]:
    """What South/North and West/East wrote over the rows."""
    return [sum(r["written"][0] for r in rows), sum(r["written"][1] for r in rows)]


def side_of(tab: Table, user) -> int | None:
    """0 (South/North) or 1 (West/East) for a player seated at `tab`, else None."""
    if not getattr(user, "is_authenticated", False):
        return None
    for seat in tab.seats.all():
        if seat.entry_id is not None and seat.entry.player_id == user.pk:
            return seat.index % 2
    return None


def sides_with_people(tab: Table) -> set[int]:
    """The sides that have a player who ranks (a side of two stand-ins has nobody to
    agree: it agrees by itself)."""
    return {seat.index % 2 for seat in tab.seats.all() if seat.entry_id is not None}


def _fingerprint(value: Any) -> str:
    import hashlib
    import json

    return hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()[:16]


def sheet_state(tab: Table) -> str:
    """A short fingerprint of the sheet: what the phones at the table poll to see that
    somebody else entered, changed or agreed."""
    return _fingerprint([tab.sheet, tab.agreed, tab.finished])


def lines_state(tab: Table, number: int | None = None) -> str:
    """A fingerprint of what is entered: the whole sheet, or deal `number` alone ("" for
    a deal not entered). A form carries the one it was shown with: an entry or an
    agreement made on a sheet that somebody else changed meanwhile is refused."""
    if number is None:
        return _fingerprint(tab.sheet)
    return _fingerprint(tab.sheet[number - 1]) if 1 <= number <= len(tab.sheet) else ""


def _check_seen(tab: Table, seen: str | None, number: int | None = None) -> None:
    if seen is not None and seen != lines_state(tab, number):
        if number is None:
            raise TournamentError(
                N_("the sheet was changed meanwhile at the table: check it, then agree again")
            )
        raise TournamentError(
            N_("deal %(deal)s was entered meanwhile at the table: check it, then change it"),
            {"deal": number},
            field="deal",
        )


def _entered_already(tab: Table, user, number: int, line: Line) -> bool:
    """Deal `number` stands on the sheet as `line`, entered by `user`."""
    if not 1 <= number <= len(tab.sheet):
        return False
    stored = tab.sheet[number - 1]
    return stored.get("by") == user.pk and all(
        stored.get(k) == getattr(line, k) for k in LINE_FIELDS
    )


def ended_early(tab: Table, structure: Structure) -> bool:
    """Done with fewer deals than the set has: an organizer ended it when time was up."""
    return tab.finished and len(tab.sheet) < structure.deals


def sheet(tab: Table, structure: Structure) -> dict[str, Any]:
    """The table's score sheet as its page shows it: per deal the dealer and, once
    entered, what was entered and the written score; the totals; the next deal to
    enter; who agreed."""
    rules = rules_of(structure)
    specs = deal_specs(tab, structure)
    rows = score_sheet(rules, specs, lines_of(tab))
    totals = totals_of(rows)
    deals = []
    for spec in specs:
        k = spec.number
        entered = tab.sheet[k - 1] if k <= len(tab.sheet) else None
        row = rows[k - 1] if k <= len(rows) else None
        deals.append({"number": k, "dealer": spec.dealer, "entered": entered, "row": row})
    complete = len(rows) == structure.deals
    missing = {0, 1} - sides_with_people(tab)
    raw = tab.agreed or {}
    agreed = {k: raw[k] for k in SIDES if k in raw}
    withdrawn = raw.get("withdrawn")
    names = _names(
        {d.get("by") for d in tab.sheet}
        | set(agreed.values())
        | {raw.get("ended"), withdrawn["by"] if withdrawn else None}
    )
    for deal in deals:
        if deal["entered"] is not None:
            deal["by"] = names.get(deal["entered"].get("by"), "")
    if tab.finished:
        # An organizer's correction after the table was done lives on its board: the
        # sheet shows the score that counts, and what the table wrote.
        board = {b.get("deal"): b for b in tab.board or []}
        for deal in deals:
            row = board.get(deal["number"])
            if deal["row"] is not None and row and "original_written" in row:
                deal["corrected"] = list(row["written"])
        totals = totals_of(tab.board)
    return {
        "deals": deals,
        "totals": totals,
        "next": None if complete else len(rows) + 1,
        "complete": complete,
        # Per side, who agreed with the sheet (None: not yet).
        "agreed": [names.get(agreed[k], "") if k in agreed else None for k in SIDES],
        # Ended by an organizer when time was up (not agreed by the sides), and by whom.
        "ended_early": ended_early(tab, structure),
        "ended_by": names.get(raw.get("ended"), ""),
        # A change after an agreement: who changed which deal (the sides agree again).
        "withdrawn": {"by": names.get(withdrawn["by"], ""), "deal": withdrawn["deal"]}
        if withdrawn
        else None,
        "auto_agreed": sorted(missing),
        "total_points": {spec.number: deal_total(rules, spec) for spec in specs},
        "turned_trump": rules.trump_by_turned_card,
        "no_trump": rules.allow_no_trump,
        "blind": rules.blind_no_trump,
        "doublings": rules.max_doublings if rules.announcements else 0,
        "all_tricks": rules.all_tricks_doubles,
    }


def _names(user_ids) -> dict:
    from django.contrib.auth import get_user_model

    User = get_user_model()
    ids = [pk for pk in user_ids if pk is not None]
    return {u.pk: u.get_username() for u in User.objects.filter(pk__in=ids)}


def _locked_table(tournament_id: int, round_number: int, set_number: int, number: int) -> Table:
    from .tables import tables_at

    tab = (
        tables_at(tournament_id, round_number, set_number, number)
        .select_for_update(of=("self",))
        .select_related("table_set__round__tournament__structure")
        .first()
    )
    if tab is None:
        raise TournamentError(N_("there is no such table"))
    return tab


def _check_open(tab: Table, user) -> tuple[Tournament, int | None]:
    """The tournament and the user's side; refused unless the table is of a night in the
    room, still being played, and the user sits at it or organizes."""
    t = tab.table_set.round.tournament
    if not tab.in_room:
        raise TournamentError(N_("this table plays online: its score is not entered"))
    side = side_of(tab, user)
    if side is None and not actions.is_organizer(user, t):
        raise NotAllowed(N_("only the players at this table and the organizers enter its score"))
    if t.is_closed:
        raise TournamentError(N_("this table's sheet is closed: the tournament has closed"))
    if t.status != Tournament.Status.RUNNING:
        raise TournamentError(N_("the tournament is not running"))
    if ended_early(tab, t.structure):
        raise TournamentError(N_("this table's sheet is closed: an organizer ended the table"))
    if tab.finished:
        raise TournamentError(N_("this table's sheet is closed: both sides agreed with it"))
    if tab.table_set.status != TableSet.Status.PLAYING:
        raise TournamentError(N_("this table's sheet is closed: its set is over"))
    return t, side


def enter_deal(
    tournament_id: int, round_number: int, set_number: int, table_number: int, user,
    number: int, line: Line, seen: str | None = None,
) -> Table:  # fmt: skip
    """Enter (or change) deal `number` of a table's sheet. Deals go in order (a tie
    doubles the next deal); a change takes back both sides' agreement. `seen`: the
    deal's lines_state when the form was shown (refused if it changed since)."""
    with transaction.atomic():
        tab = _locked_table(tournament_id, round_number, set_number, table_number)
        t, _side = _check_open(tab, user)
        if _entered_already(tab, user, number, line):
            return tab  # the same form sent twice (a second tap on a slow network)
        structure = t.structure
        if not 1 <= number <= len(tab.sheet) + 1 or number > structure.deals:
            raise TournamentError(
                N_("enter the deals in order: deal %(next)s comes next"),
                {"next": min(len(tab.sheet) + 1, structure.deals)},
                field="deal",
            )
        _check_seen(tab, seen, number)
        specs = deal_specs(tab, structure)
        try:
            check_line(rules_of(structure), specs[number - 1], line)
        except LineError as exc:
            field = REFUSAL_FIELDS.get(exc.code)
            raise TournamentError(REFUSALS[exc.code], exc.params, field=field) from None
        entered = {k: getattr(line, k) for k in LINE_FIELDS}
        entered["by"] = user.pk  # an id, not a name: a deleted account's name goes
        sheet_now = [dict(d) for d in tab.sheet]
        if number <= len(sheet_now):
            sheet_now[number - 1] = entered
        else:
            sheet_now.append(entered)
        # A change takes back the agreements; the sheet says who changed which deal.
        agreed_before = any((tab.agreed or {}).get(k) is not None for k in SIDES)
        tab.sheet = sheet_now
        tab.agreed = {"withdrawn": {"by": user.pk, "deal": number}} if agreed_before else {}
        tab.save(update_fields=["sheet", "agreed"])
        _push_after_commit(t.pk)
    return tab


# The sheet's form field each refusal is about (the page puts the refusal there).
REFUSAL_FIELDS = {
    "points": "points",
    "trump": "trump",
    "no_trump": "trump",
    "blind": "trump",
    "announcements": "doublings",
    "all_tricks": "all_tricks",
}
# engine.scoresheet's refusals (LineError.code), as messages marked for translation.
REFUSALS = {
    "points": N_("South/North's points must be 0 to %(total)s"),
    "trump": N_("choose a trump suit or no trump"),
    "no_trump": N_("these rules have no no-trump"),
    "blind": N_("blind no trump is a no-trump of the table presets only"),
    "announcements": N_("at most %(limit)s announcements (mee, tegen) in these rules"),
    "all_tricks": N_("a side with all eight tricks has all %(total)s points"),
}


def agree(
    tournament_id: int, round_number: int, set_number: int, table_number: int, user,
    seen: str | None = None,
) -> Table:  # fmt: skip
    """The user's side agrees with the complete sheet (an organizer not seated at the
    table agrees for both sides, kept in the audit trail). Once both sides agree the
    table is finished and the set moves on. `seen`: the sheet's lines_state as the user
    saw it (refused if a deal changed since)."""
    with transaction.atomic():
        tab = _locked_table(tournament_id, round_number, set_number, table_number)
        if _agreed_already(tab, user, seen):
            return tab  # the other side (or an organizer) was quicker: nothing to add
        t, side = _check_open(tab, user)
        _check_seen(tab, seen)
        structure = t.structure
        if len(tab.sheet) < structure.deals:
            raise TournamentError(
                N_("the sheet is not complete: deal %(next)s is still to be entered"),
                {"next": len(tab.sheet) + 1},
            )
        agreed = {k: v for k, v in (tab.agreed or {}).items() if k in SIDES}
        if side is None:
            agreed = {"0": user.pk, "1": user.pk}
            AuditLog.objects.create(
                tournament=t, actor=user, action="room_agree",
                before=None, after={"round": round_number, "set": set_number,
                                    "table": table_number, "sheet": tab.sheet},
                reason="",
            )  # fmt: skip
        else:
            agreed[str(side)] = user.pk
        for missing in {0, 1} - sides_with_people(tab):
            agreed.setdefault(str(missing), None)
        tab.agreed = agreed
        tab.save(update_fields=["agreed"])
        if {"0", "1"} <= set(agreed):
            _finish(tab, structure)
        _push_after_commit(t.pk)
    return tab


def _agreed_already(tab: Table, user, seen: str | None) -> bool:
    """Both sides agreed with the whole sheet the user saw, and the user may agree with
    it: agreeing again is what happened already (two phones, or an organizer, at once)."""
    t = tab.table_set.round.tournament
    if not tab.finished or ended_early(tab, t.structure):
        return False
    if side_of(tab, user) is None and not actions.is_organizer(user, t):
        return False
    return seen is None or seen == lines_state(tab)


def finish_early(
    tournament_id: int, round_number: int, set_number: int, table_number: int, user,
    seen: str | None = None,
) -> Table:  # fmt: skip
    """Time is up at a table that has not played every deal: an organizer ends it with
    the deals entered (at least one), for both sides, in the audit trail. In duplicate it
    gets the average on each deal it did not play (scoring.set_figures); its set score
    counts the deals it played."""
    with transaction.atomic():
        tab = _locked_table(tournament_id, round_number, set_number, table_number)
        t, _side = _check_open(tab, user)
        if not actions.is_organizer(user, t):
            raise NotAllowed(N_("only an organizer ends a table before every deal is played"))
        _check_seen(tab, seen)
        structure = t.structure
        if not tab.sheet:
            raise TournamentError(N_("enter at least one deal before ending the table"))
        if len(tab.sheet) >= structure.deals:
            raise TournamentError(N_("every deal is in: each side agrees with the sheet"))
        tab.agreed = {"0": user.pk, "1": user.pk, "ended": user.pk}
        tab.save(update_fields=["agreed"])
        AuditLog.objects.create(
            tournament=t, actor=user, action="room_finish_early",
            before=None, after={"round": round_number, "set": set_number,
                                "table": table_number, "deals": len(tab.sheet),
                                "of": structure.deals, "sheet": tab.sheet},
            reason="",
        )  # fmt: skip
        _finish(tab, structure)
        _push_after_commit(t.pk)
    return tab


def _finish(tab: Table, structure: Structure) -> None:
    """The table is done with what its sheet holds: its board, each seat's set score."""
    rows = score_sheet_rows(tab, structure)
    totals = totals_of(rows)
    actions.finish_table(tab, rows, lambda seat: totals[seat % 2] - totals[(seat + 1) % 2])


def _push_after_commit(tournament_id: int) -> None:
    from . import tables

    transaction.on_commit(lambda: tables.push_standings(tournament_id))


def deal_sheets(t: Tournament, round_number: int, set_number: int) -> dict[str, Any] | None:
    """What the organizer prints for a set: per deal the dealer and the four hands (as
    a table shows them: by suit, high to low). In duplicate one set of deals serves every
    table (and is known before the set is drawn); otherwise each drawn table has its own.
    None for a set that does not exist (or is not drawn yet, without duplicate)."""
    from .templatetags.tournament_tags import shown_hand

    s = t.structure
    if not (1 <= round_number <= s.rounds and 1 <= set_number <= s.sets):
        return None
    rules = rules_of(s)
    set_seed = actions.set_seed(t, round_number, set_number)
    tset = TableSet.objects.filter(
        round__tournament=t, round__number=round_number, number=set_number
    ).first()
    drawn = list(tset.tables.order_by("number").values_list("number", flat=True)) if tset else []
    if s.duplicate:
        sources = [(None, set_seed)]
    elif drawn:
        sources = [(n, actions.table_seed(set_seed, n, False)) for n in drawn]
    else:
        return None

    def deals(seed: str) -> list[dict]:
        out = []
        for k in range(1, s.deals + 1):
            spec = engine.deal_for(seed, k, rules)
            trump = spec.turned.suit if spec.turned is not None else None
            out.append(
                {
                    "number": k,
                    "dealer": spec.dealer,
                    "hands": [shown_hand(h, trump) for h in spec.texts()],
                    "turned": card_text(spec.turned) if spec.turned is not None else "",
                }
            )
        return out

    copies = len(drawn)
    if not copies:
        # Not drawn yet: as many tables as the set being played has (a cut only shrinks
        # the field), or as the sign-ups fill before the first draw.
        from .tables import current_set

        latest = current_set(t)
        copies = latest.tables.count() if latest else -(-actions._entries_in(t).count() // 4)
    return {
        "round": round_number,
        "set": set_number,
        "tables": copies or None,
        "sheets": [{"table": n, "deals": deals(seed)} for n, seed in sources],
    }


def paper_sheets(t: Tournament, round_number: int, set_number: int) -> list[dict] | None:
    """Blank score sheets to print for the drawn tables of a set (a table without a
    phone writes on paper; an organizer then enters it): per table the players by seat
    and per deal its dealer. No cards. None if the set is not drawn."""
    from .tables import seat_names

    tset = TableSet.objects.filter(
        round__tournament=t, round__number=round_number, number=set_number
    ).first()
    if tset is None:
        return None
    structure = t.structure
    out = []
    for tab in tset.tables.order_by("number").prefetch_related(
        "seats__entry__player", "seats__played_by"
    ):
        out.append(
            {
                "table": tab.number,
                "names": seat_names(tab),
                "dealers": [spec.dealer for spec in deal_specs(tab, structure)],
            }
        )
    return out
