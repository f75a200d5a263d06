"""Pages of a tournament of rounds and tables: the player's table and the standings,
the organizer's view of every table, the big screen for the room. Thin: reads come from
tournaments/tables.py, the one write (start) from tournaments/actions.py."""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.text import capfirst
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from . import actions, exports, tables
from .models import Entry, Round, TableSeat, TableSet, Tournament
from .views import _may_view, _require_organizer, _tournament

# The room's screen: seconds between two pages of standings longer than the screen.
SCREEN_EVERY = 10


def _seat_label(index: int) -> str:
    return [_("South"), _("West"), _("North"), _("East")][index]


def _require_tables(t) -> None:
    """These pages are of tournaments of rounds and tables only."""
    if not t.has_tables:
        raise Http404("not a tournament of tables")


def _context(
    request: HttpRequest, t, *, round_number=None, set_number=None, to_move: bool = False
) -> dict:
    _require_tables(t)
    seat = tables.my_seat(t, request.user)
    if seat is not None:
        seat["seat_label"] = _seat_label(seat["seat"])
    next_round = (
        Round.objects.filter(tournament=t, status=Round.Status.WAITING).order_by("number").first()
    )
    return {
        "t": t,
        "s": t.structure,
        "next_round": next_round,
        "seat": seat,
        "entry": actions.entry_of(request.user, t),
        "rows": tables.standings(t, round_number, set_number),
        "round_number": round_number,
        "set_number": set_number,
        "progress": tables.progress(t, to_move=to_move),
        "starts_at": next_round.starts_at if next_round else t.starts_at,
        "drawn": t.rounds.exists(),
        "stopped_sets": tables.stopped_sets(t),
        "is_organizer": actions.is_organizer(request.user, t),
        "overdue": _overdue(t),
        "ws_path": f"/ws/tournaments/{t.pk}/standings/",
    }


def _overdue(t) -> str:
    """Why the live start has passed without a draw, in the page's language ("" if it
    has not, or nothing is in the way)."""
    refusal = actions.overdue_start(t)
    return refusal.translated() if refusal is not None else ""


def _int(value) -> int | None:
    try:
        return int(value) if value not in (None, "") else None
    except (TypeError, ValueError):
        return None


def overview(request: HttpRequest, pk: int) -> HttpResponse:
    """The player's page: "you sit at table 7, North", and the standings (overall, or
    of one round or set with ?round=&set=), updated live."""
    t = _tournament(request, pk, invited=True)
    round_number, set_number = _int(request.GET.get("round")), _int(request.GET.get("set"))
    context = _context(request, t, round_number=round_number, set_number=set_number)
    if not context["drawn"]:
        # How many have signed up for how many places (names stay the organizer's); once
        # drawn the page shows tables instead, and its JSON refresh needs no count.
        context["signed_up"] = t.entries.exclude(status=Entry.Status.REMOVED).count()
    if set_number is not None:
        # The travellers of a finished set (never of one still being played).
        done = TableSet.objects.filter(
            round__tournament=t, round__number=round_number, number=set_number,
            status=TableSet.Status.DONE,
        ).exists()  # fmt: skip
        context["deal_numbers"] = range(1, t.structure.deals + 1) if done else ()
        context["set_stopped"] = f"{round_number}.{set_number}" in context["stopped_sets"]
    if context["entry"] is None and not context["drawn"]:
        # Who may sign up, and how (as on a solo tournament's page): a club's members
        # enter directly, others with the invite code the organizer's link carries.
        context["needs_code"] = bool(t.invite_code) and not (
            t.club is not None and actions.can_view_tournament(request.user, t)
        )
        context["invite_code"] = request.GET.get("code", "") if context["needs_code"] else ""
        context["full"] = context["signed_up"] >= t.capacity
    if context["entry"] is None and request.user.is_authenticated:
        # Someone the organizer replaced (their open table sent them here): who has
        # their place now.
        context["replaced_by"] = (
            t.audit.filter(action="replace_player", before__player=request.user.get_username())
            .order_by("-created")
            .values_list("after__player", flat=True)
            .first()
        )
        # "The sets you played stay yours" only to someone who finished a table.
        context["replaced_played"] = context["replaced_by"] is not None and (
            TableSeat.objects.filter(
                table__table_set__round__tournament=t, played_by=request.user
            ).exists()
        )
    if request.GET.get("format") == "json":
        return JsonResponse({"status": t.status, "seat": context["seat"], "rows": context["rows"]})
    return render(request, "tournaments/tables.html", context)


def screen(request: HttpRequest, pk: int) -> HttpResponse:
    """The big screen for the room: standings, the set being played, the next start.
    Standings longer than the screen turn page by page, every ``?every=`` seconds
    (SCREEN_EVERY by default; 3 to 120)."""
    key = request.GET.get("key")
    t = get_object_or_404(Tournament.objects.select_related("club"), pk=pk) if key else None
    if t is not None and actions.screen_key_valid(t, key):
        # The organizer's screen link: no login on the room's computer (actions.screen_key).
        context = _context(request, t)
        context["ws_path"] += "?" + urlencode({"key": key})
        context["seat"] = context["entry"] = None  # whoever is logged in, the room's view
    else:
        t = _tournament(request, pk, invited=True)
        context = _context(request, t)
    every = _int(request.GET.get("every"))
    context["every"] = every if every is not None and 3 <= every <= 120 else SCREEN_EVERY
    return render(request, "tournaments/tables_screen.html", context)


@login_required
def organize(request: HttpRequest, pk: int) -> HttpResponse:
    """Every table's progress: which deal, whose turn, who is absent."""
    t = _tournament(request, pk)
    _require_organizer(request, t)
    # Whose turn it is at each table: for an organizer who does not play (tables.progress).
    context = _context(request, t, to_move=actions.entry_of(request.user, t) is None)
    if context["next_round"] is not None:
        context["next_draw"] = [
            [e.player.get_username() if e else None for e in table]
            for table in actions.next_draw(t)
        ]
    context["entries"] = (
        t.entries.filter(out_after__isnull=True)
        .exclude(status=Entry.Status.REMOVED)
        .select_related("player")
    )
    # What the organizer shares: the page where players sign up (with the invite code,
    # which lets a non-member in) and, for a club's tournament, the club's invite link.
    signup = request.build_absolute_uri(reverse("tournaments:tables", args=[t.pk]))
    if t.invite_code:
        signup += "?" + urlencode({"code": t.invite_code})
    context["share_url"] = signup
    # The room's screen: a link that needs no login on the computer behind it.
    context["screen_url"] = request.build_absolute_uri(
        reverse("tournaments:tables-screen", args=[t.pk])
        + "?"
        + urlencode({"key": actions.screen_key(t)})
    )
    if t.club is not None:
        context["club_join_url"] = request.build_absolute_uri(
            reverse("clubs:join") + "?" + urlencode({"code": t.club.invite_code})
        )
    if t.structure.cut_fraction:
        context["cut_percent"] = round(t.structure.cut_fraction * 100)
    audit = t.audit.select_related("actor", "entry__player")
    if context["entry"] is not None:  # an organizer who plays
        audit = exports.outside_sets_in_play(t, audit)
    context["audit"] = audit
    context["cut_changes"] = _cut_changes(t)
    return render(request, "tournaments/tables_organize.html", context)


def _cut_changes(t) -> list[dict]:
    """tables.cut_changes, read only where a deal has been corrected (nothing else at
    tables changes a finished round's order)."""
    if not t.audit.filter(action="correct_table").exists():
        return []
    return tables.cut_changes(t)


@login_required
@require_POST
def start(request: HttpRequest, pk: int) -> HttpResponse:
    t = _tournament(request, pk)
    _require_organizer(request, t)
    try:
        if t.rounds.exists():
            actions.start_next_round(t.pk, request.user)  # a round waiting for its time
        else:
            actions.start_tables(t.pk, request.user)
    except actions.TournamentError as exc:
        messages.error(request, capfirst(exc.translated()))
    return redirect("tournaments:tables-organize", pk=t.pk)


@login_required
@require_POST
def withdraw(request: HttpRequest, pk: int) -> HttpResponse:
    """ "I cannot come after all": the sign-up taken back before the draw."""
    t = _tournament(request, pk, invited=True)
    try:
        actions.withdraw(t.pk, request.user)
    except actions.TournamentError as exc:
        messages.error(request, capfirst(exc.translated()))
    else:
        messages.success(request, _("You are no longer signed up."))
        if not _may_view(request.user, t) and t.invite_code:
            # In by the invite link only: back to the page that link shows.
            url = reverse("tournaments:tables", args=[t.pk])
            return redirect(f"{url}?{urlencode({'code': t.invite_code})}")
    return redirect("tournaments:tables", pk=t.pk)


def traveller(request: HttpRequest, pk: int, round_number: int, set_number: int, number: int):
    """Deal `number` of a finished set at every table (hands, trump, points, the play)."""
    t = _tournament(request, pk)
    _require_tables(t)
    data = tables.traveller(t, round_number, set_number, number)
    if data is None:
        raise Http404("no such deal in a finished set")
    seats = [_seat_label(i) for i in range(4)]
    for row in data["rows"]:
        row["hand_rows"] = [
            {"seat": seats[i], "name": row["names"][i], "cards": row["hands"][i]} for i in range(4)
        ]
        row["dealer_name"] = seats[row["dealer"]]
    deals = t.structure.deals
    context = {
        "t": t,
        "s": t.structure,
        "d": data,
        "is_organizer": actions.is_organizer(request.user, t),
        "here": request.get_full_path(),
        "prev_number": number - 1 if number > 1 else None,
        "next_number": number + 1 if number < deals else None,
    }
    return render(request, "tournaments/tables_traveller.html", context)


@login_required
@require_POST
def replace(request: HttpRequest, pk: int) -> HttpResponse:
    """The organizer replaces a player who leaves (entry, the newcomer's username, why)."""
    from django.contrib.auth import get_user_model

    t = _tournament(request, pk)
    _require_organizer(request, t)
    User = get_user_model()
    new_user = User.objects.filter(
        **{User.USERNAME_FIELD: request.POST.get("username", "").strip()}
    ).first()
    entry_id = _int(request.POST.get("entry"))
    if new_user is None or entry_id is None or not t.entries.filter(pk=entry_id).exists():
        messages.error(request, _("Choose a player and the username of an existing account."))
        return redirect("tournaments:tables-organize", pk=t.pk)
    old_name = t.entries.select_related("player").get(pk=entry_id).player.get_username()
    try:
        actions.replace_player(entry_id, request.user, new_user, request.POST.get("reason", ""))
    except actions.TournamentError as exc:
        messages.error(request, capfirst(exc.translated()))
    else:
        names = {"old": old_name, "new": new_user.get_username()}
        messages.success(request, _("%(new)s takes the place of %(old)s.") % names)
    return redirect("tournaments:tables-organize", pk=t.pk)


def table_replay(request: HttpRequest, pk: int, round_number: int, set_number: int, number: int):
    """One table's game of a finished set, deal after deal: the hands, the trump, the
    play trick by trick and the scores (the travellers link here for each table)."""
    t = _tournament(request, pk)
    _require_tables(t)
    data = tables.table_game(t, round_number, set_number, number)
    if data is None:
        raise Http404("no such table in a finished set")
    seats = [_seat_label(i) for i in range(4)]
    empty = _("stand-in") if data["in_room"] else _("bot")
    names = [name or empty for name in data["names"]]
    for deal in data["deals"]:
        deal["dealer_name"] = seats[deal["dealer"]]
        deal["hand_rows"] = [
            {"seat": seats[i], "name": names[i], "cards": deal["hands"][i]} for i in range(4)
        ]
        for trick in deal["tricks"]:
            trick["plays"] = [(seats[seat], names[seat], card) for seat, card in trick["cards"]]
            trick["winner_name"] = seats[trick["winner"]] if trick["winner"] is not None else ""
    seating = list(zip(seats, names, data["bots"], strict=True))
    context = {"t": t, "s": t.structure, "g": data, "seating": seating}
    return render(request, "tournaments/tables_game.html", context)


def _results_allowed(request: HttpRequest, t) -> None:
    from .views import _require_results

    _require_tables(t)
    _require_results(request, t)


def results_print(request: HttpRequest, pk: int) -> HttpResponse:
    """The printable results: standings overall and per round, every finished set's
    table results, the corrections (only finished sets: see table_exports)."""
    from . import table_exports

    t = _tournament(request, pk)
    _results_allowed(request, t)
    context = table_exports.results_context(t)
    context["csv_kinds"] = list(table_exports.CSV_FILES)
    return render(request, "tournaments/tables_results_print.html", context)


def results_pdf(request: HttpRequest, pk: int) -> HttpResponse:
    """The printable results as PDF; the same gates as the page."""
    from .views import load_pdf, pdf_unavailable, stored_results_pdf

    t = _tournament(request, pk)
    _results_allowed(request, t)
    print_url = reverse("tournaments:tables-results", args=[t.pk])
    if load_pdf() is None:
        return pdf_unavailable(request, print_url)
    return stored_results_pdf(request, t, print_url)


def export(request: HttpRequest, pk: int, kind: str) -> HttpResponse:
    """CSV files of a tournament of tables (table_exports.CSV_FILES, and the audit
    trail as corrections.csv), in the reader's spreadsheet style (?sep= overrides)."""
    from . import table_exports
    from .views import _download

    t = _tournament(request, pk)
    _results_allowed(request, t)
    files = {**table_exports.CSV_FILES, "corrections.csv": exports.corrections_csv}
    if kind not in files:
        raise Http404("no such export")
    style = exports.csv_style(request.LANGUAGE_CODE, request.GET.get("sep"))
    return _download(files[kind](t, style), "text/csv; charset=utf-8", f"tournament-{t.pk}-{kind}")


@login_required
@require_POST
def correct(request: HttpRequest, pk: int) -> HttpResponse:
    """The organizer corrects the written score of a deal at a table (round, set,
    table, deal, the two teams' written points), with a reason. Back to the page it
    was sent from (?next=, the traveller's form), else the organizer's view."""
    t = _tournament(request, pk)
    _require_organizer(request, t)
    fields = ["round", "set", "table", "deal", "written_ns", "written_ew"]
    values = [_int(request.POST.get(name)) for name in fields]
    if any(v is None for v in values):
        messages.error(request, _("Give the round, set, table, deal and both written scores."))
    else:
        r, k, table, deal, ns, ew = values
        try:
            actions.correct_table_deal(
                t.pk, request.user, r, k, table, deal, (ns, ew), request.POST.get("reason", "")
            )
        except actions.TournamentError as exc:
            messages.error(request, capfirst(exc.translated()))
        else:
            messages.success(request, _("The score is corrected and the standings recomputed."))
            for c in _cut_changes(t):
                messages.warning(
                    request, render_to_string("tournaments/_cut_change.html", {"c": c}).strip()
                )
    back = request.POST.get("next", "")
    if back and url_has_allowed_host_and_scheme(
        back, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return redirect(back)
    return redirect("tournaments:tables-organize", pk=t.pk)


@login_required
@require_POST
def seat_to_bot(request: HttpRequest, pk: int) -> HttpResponse:
    """The organizer lets the bot play a person's seat at a table of the set (a player
    who holds the table up); back to the organizer's view."""
    t = _tournament(request, pk)
    _require_organizer(request, t)
    values = [_int(request.POST.get(name)) for name in ("round", "set", "table", "seat")]
    if any(v is None for v in values) or not 0 <= values[3] <= 3:
        messages.error(request, _("Give the round, set, table and seat."))
    else:
        try:
            actions.seat_to_bot(t.pk, request.user, *values)
        except actions.TournamentError as exc:
            messages.error(request, capfirst(exc.translated()))
        else:
            messages.success(request, _("The bot plays the seat until its player takes it back."))
    return redirect("tournaments:tables-organize", pk=t.pk)


@login_required
@require_POST
def play_as_rotating(request: HttpRequest, pk: int) -> HttpResponse:
    """The organizer plays a writer-stays tournament as rotating partners (before the
    draw: too few players came for two tables)."""
    t = _tournament(request, pk)
    _require_organizer(request, t)
    try:
        actions.play_as_rotating(t.pk, request.user, request.POST.get("reason", ""))
    except actions.TournamentError as exc:
        messages.error(request, capfirst(exc.translated()))
    else:
        messages.success(request, _("The tournament is now played as rotating partners."))
    return redirect("tournaments:tables-organize", pk=t.pk)


@login_required
@require_POST
def move_start(request: HttpRequest, pk: int) -> HttpResponse:
    """The organizer moves the live start (a datetime-local, in the site's time zone)."""
    from django import forms

    from .forms import LOCAL_INPUT

    t = _tournament(request, pk)
    _require_organizer(request, t)
    field = forms.DateTimeField(input_formats=[LOCAL_INPUT, "%Y-%m-%d %H:%M"])
    raw = request.POST.get("starts_at", "")
    try:
        starts_at = field.clean(raw)
    except forms.ValidationError as exc:
        # A time the clocks skip or pass twice (the nights of the changes) is a date and a
        # time all the same: Django's own words say which.
        written = raw.strip() and any(c.code == "ambiguous_timezone" for c in exc.error_list)
        text = exc.messages[0] if written else _("Give the new start time as a date and a time.")
        messages.error(request, text)
        return redirect("tournaments:tables-organize", pk=t.pk)
    try:
        actions.move_start(t.pk, request.user, starts_at)
    except actions.TournamentError as exc:
        messages.error(request, capfirst(exc.translated()))
    else:
        messages.success(request, _("The start time is moved."))
    return redirect("tournaments:tables-organize", pk=t.pk)
