"""Pages of a club night with real cards (tournaments/room.py): a table's score sheet,
entered from a phone by the players at that table, and the deals the organizer prints.
Thin: reads and writes are room.py's."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.text import capfirst
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache

from engine.scoresheet import Line

from . import actions, room, tables
from .models import AuditLog, Table, TableSet, Tournament
from .table_views import _int, _require_tables, _seat_label
from .views import _require_organizer, _tournament


def _room_table(t, round_number: int, set_number: int, number: int) -> Table:
    tab = (
        tables.tables_at(t, round_number, set_number, number)
        .select_related("table_set__round")
        .prefetch_related("seats__entry__player", "seats__played_by")
        .first()
    )
    if tab is None or not tab.in_room:
        raise Http404("no such table of a night in the room")
    return tab


class BadDoublings(ValueError):
    """The doublings the form sent are not a number."""


def _trump_from(post) -> tuple[str | None, bool]:
    """The form's trump choice: (the suit sent, or None for no trump; blind)."""
    trump = post.get("trump", "")
    return (None if trump in ("none", "blind") else trump), trump == "blind"


def _line_from(post) -> Line:
    """The deal as the form sent it; ValueError for points that are not a number,
    BadDoublings for doublings that are not one."""
    trump, blind = _trump_from(post)
    if trump is not None and trump not in room.TRUMP_CHOICES:
        trump = trump or "?"  # refused by name by the scoresheet
    points = int(post.get("points", ""))
    try:
        doublings = int(post.get("doublings") or 0)
    except ValueError:
        raise BadDoublings from None
    return Line(trump, points, blind, doublings, post.get("all_tricks") == "on")


DRAFT_KEY = "sheet_draft"  # a refused deal's form, in the session until shown once


def _keep_draft(request: HttpRequest, tab: Table, error: str, field: str | None) -> None:
    """What a refused deal's form sent, for the form shown next (a phone that lost the
    chosen trump to a typo in the points had to choose it again), with the refusal: the
    form shows it at the field it is about (`field`: points, trump, doublings,
    all_tricks), where a phone's reader is taken (the form is far down the page)."""
    post = request.POST
    trump, blind = _trump_from(post)
    points = post.get("points", "").strip()
    doublings = post.get("doublings", "")
    request.session[DRAFT_KEY] = {
        "table": tab.pk,
        "deal": _int(post.get("deal")),
        "trump": trump,
        "blind": blind,
        "points": int(points) if points.lstrip("-").isdigit() else "",
        "doublings": int(doublings) if doublings.isdigit() else None,
        "all_tricks": post.get("all_tricks") == "on",
        "error": error,
        "error_field": field or "",
    }


def _take_draft(request: HttpRequest, tab: Table, number: int | None) -> dict | None:
    """The refused form for the deal shown (`number`), once. A refusal whose form is not
    shown (the table was finished meanwhile) is said at the top of the page instead."""
    draft = request.session.pop(DRAFT_KEY, None)
    if draft and draft.get("table") == tab.pk and draft.get("deal") == number:
        return draft
    if draft and draft.get("error"):
        messages.error(request, draft["error"])
    return None


@login_required
@never_cache
def sheet(request: HttpRequest, pk: int, round_number: int, set_number: int, number: int):
    """A table's score sheet: the players at the table (and the organizers) enter each
    deal and agree with the sheet; nobody else sees it while the set is played."""
    t = _tournament(request, pk)
    _require_tables(t)
    tab = _room_table(t, round_number, set_number, number)
    side = room.side_of(tab, request.user)
    organizer = actions.is_organizer(request.user, t)
    if side is None and not organizer:
        raise Http404("not your table")
    here = reverse("tournaments:tables-sheet", args=[t.pk, round_number, set_number, number])
    if side is None and _unseen_by_a_playing_organizer(request.user, t, tab):
        if request.method == "POST" and request.POST.get("action") == "look":
            AuditLog.objects.create(
                tournament=t, actor=request.user, action="sheet_seen_playing",
                after={"round": round_number, "set": set_number, "table": number}, reason="",
            )  # fmt: skip
            return redirect(here)
        if request.method == "POST" or request.GET.get("format") == "json":
            raise PermissionDenied(_("You play in this tournament: look at the sheet first."))
        context = {"t": t, "tab": tab, "round_number": round_number, "set_number": set_number}
        return render(request, "tournaments/tables_sheet_confirm.html", context)
    if side is None and tab.sheet and _in_play(t, tab):
        # An organizer who does not play reads results on cards other tables of the set
        # may still have to play: they can no longer be put in as a replacement.
        if actions.entry_of(request.user, t) is None:
            actions.mark_seen(t, request.user)
    if request.method == "POST":
        try:
            if request.POST.get("action") == "finish_early":
                seen = request.POST.get("seen")
                room.finish_early(t.pk, round_number, set_number, number, request.user, seen)
            elif request.POST.get("action") == "agree":
                seen = request.POST.get("seen")
                done = room.agree(t.pk, round_number, set_number, number, request.user, seen)
                if done.finished:
                    messages.success(request, _("Both sides agree: this table is done."))
            else:
                deal = _int(request.POST.get("deal"))
                try:
                    line = _line_from(request.POST)
                except BadDoublings:
                    refusal = _("Choose the announcements from the list.")
                    _keep_draft(request, tab, refusal, "doublings")
                    return redirect(f"{here}?deal={deal or ''}")
                except ValueError:
                    _keep_draft(request, tab, _("Enter the points as a whole number."), "points")
                    return redirect(f"{here}?deal={deal or ''}")
                room.enter_deal(
                    t.pk, round_number, set_number, number, request.user, deal or 0, line,
                    request.POST.get("seen"),
                )  # fmt: skip
        except actions.TournamentError as exc:
            # A deal refused by the rules keeps what was sent; one entered meanwhile by
            # someone else (field "deal") shows what is there now.
            if request.POST.get("action") not in ("finish_early", "agree") and exc.field != "deal":
                _keep_draft(request, tab, capfirst(exc.translated()), exc.field)
            else:
                messages.error(request, capfirst(exc.translated()))
            return redirect(f"{here}?deal={request.POST.get('deal', '')}")
        return redirect(here)
    state = room.sheet_state(tab)
    if request.GET.get("format") == "json":
        return JsonResponse({"state": state})
    data = room.sheet(tab, t.structure)
    seats = [_seat_label(i) for i in range(4)]
    names = tables.seat_names(tab, _("stand-in"))
    for deal in data["deals"]:
        deal["dealer_name"] = seats[deal["dealer"]]
    # The form: the next deal, or the one asked for (?deal=k) to change it.
    asked = _int(request.GET.get("deal"))
    editing = None
    is_open = (
        not tab.finished
        and tab.table_set.status == "playing"
        and t.status == Tournament.Status.RUNNING
    )
    if is_open:
        if asked is not None and 1 <= asked <= len(tab.sheet) + 1 and asked <= t.structure.deals:
            editing = data["deals"][asked - 1]
        elif data["next"] is not None:
            editing = data["deals"][data["next"] - 1]
    draft = _take_draft(request, tab, editing["number"] if editing else None)
    context = {
        "t": t,
        "tab": tab,
        "d": data,
        "seating": list(zip(seats, names, strict=True)),
        "side": side,
        "is_organizer": organizer,
        "editing": editing,
        # The form's values: a refused form's as sent, else what the sheet holds.
        "shown": draft or (editing or {}).get("entered"),
        "refusal": draft,
        "total": data["total_points"][editing["number"]] if editing else None,
        "doubling_choices": range(data["doublings"] + 1),
        "round_number": round_number,
        "set_number": set_number,
        "state": state,
        "sheet_seen": room.lines_state(tab),
        "deal_seen": room.lines_state(tab, editing["number"]) if editing else "",
        "open": is_open,
    }
    return render(request, "tournaments/tables_sheet.html", context)


def _in_play(t, tab: Table) -> bool:
    """The table's set is being played (its sheet tells results on cards still to play)."""
    return not t.is_closed and tab.table_set.status == TableSet.Status.PLAYING


def _unseen_by_a_playing_organizer(user, t, tab: Table) -> bool:
    """An organizer who plays, at another table's sheet while its set is played: that
    sheet tells results on cards they may still have to play (in duplicate), so they
    look only when they must (a table asks for help), once per table and on the record
    (the tournament's log, for every player to see), as with the deals to print."""
    if not _in_play(t, tab):
        return False
    if actions.entry_of(user, t) is None:
        return False
    where = {"after__round": tab.table_set.round.number, "after__set": tab.table_set.number}
    return not t.audit.filter(
        action="sheet_seen_playing", actor=user, after__table=tab.number, **where
    ).exists()


def _set_asked(request: HttpRequest, t) -> tuple[int, int]:
    """?round=R&set=S of the pages that print a set, the current set by default."""
    current = tables.current_set(t)
    round_number = _int(request.GET.get("round")) or (current.round.number if current else 1)
    set_number = _int(request.GET.get("set")) or (current.number if current else 1)
    return round_number, set_number


@login_required
@never_cache
def deals(request: HttpRequest, pk: int) -> HttpResponse:
    """The deals of a set to print (organizers only): ?round=R&set=S, the current set by
    default. In duplicate every set can be printed before the night. As with a solo
    tournament's deals (views.manage_deals): never for an organizer who plays in it
    before it closes, and looking (confirmed once) rules the organizer out of entering."""
    t = _tournament(request, pk)
    _require_tables(t)
    _require_organizer(request, t)
    round_number, set_number = _set_asked(request, t)
    s = t.structure
    if not (1 <= round_number <= s.rounds and 1 <= set_number <= s.sets):
        raise Http404("no such round and set")
    data = room.deal_sheets(t, round_number, set_number)
    if not t.is_closed and data is not None:  # nothing shown: nothing to ask or log
        playing = actions.entry_of(request.user, t) is not None  # (removed: may come back)
        if playing and not t.structure.in_room:
            # Online the server deals: an organizer who plays has nothing to print.
            raise PermissionDenied(
                _("You have an entry in this tournament: the deals stay hidden.")
            )
        if not actions.has_seen(t, request.user):
            if request.method != "POST":
                back = reverse("tournaments:tables-organize", args=[t.pk])
                context = {"t": t, "back_url": back, "playing": playing}
                return render(request, "tournaments/manage_deals_confirm.html", context)
            actions.mark_seen(t, request.user)
            if playing:
                # Real cards must be printed by someone, at a small club perhaps by the
                # organizer who plays: allowed, but on the record for everyone.
                AuditLog.objects.create(
                    tournament=t, actor=request.user, action="deals_seen_playing",
                    after={"player": request.user.get_username()}, reason="",
                )  # fmt: skip
            return redirect(request.get_full_path())
    if data is None:  # without duplicate each table has its own deals: known once drawn
        data = {"round": round_number, "set": set_number, "sheets": [], "not_drawn": True}
    seats = [_seat_label(i) for i in range(4)]
    for block in data["sheets"]:
        for deal in block["deals"]:
            deal["dealer_name"] = seats[deal["dealer"]]
            deal["hand_rows"] = [{"seat": seats[i], "cards": deal["hands"][i]} for i in range(4)]
    context = {
        "t": t, "s": s, "d": data,
        "rounds": range(1, s.rounds + 1), "sets": range(1, s.sets + 1),
    }  # fmt: skip
    return render(request, "tournaments/tables_deals.html", context)


@login_required
@never_cache
def paper(request: HttpRequest, pk: int) -> HttpResponse:
    """Score sheets on paper for the drawn tables of a set (organizers only): ?round=R&
    set=S, the current set by default."""
    t = _tournament(request, pk)
    _require_tables(t)
    _require_organizer(request, t)
    if not t.structure.in_room:
        raise Http404("not a night in the room")
    round_number, set_number = _set_asked(request, t)
    sheets = room.paper_sheets(t, round_number, set_number)
    seats = [_seat_label(i) for i in range(4)]
    stand_in = _("stand-in")
    for sheet in sheets or []:
        sheet["seating"] = [
            {"seat": seats[i], "name": name or stand_in} for i, name in enumerate(sheet["names"])
        ]
        sheet["deals"] = [
            {"number": k, "dealer": seats[dealer]}
            for k, dealer in enumerate(sheet["dealers"], start=1)
        ]
    s = t.structure
    rules = room.rules_of(s)
    context = {
        "t": t, "s": s, "sheets": sheets, "round_number": round_number, "set_number": set_number,
        "rounds": range(1, s.rounds + 1), "sets": range(1, s.sets + 1),
        "doublings": bool(rules.announcements and rules.max_doublings),
    }  # fmt: skip
    return render(request, "tournaments/tables_paper.html", context)
