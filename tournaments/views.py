"""HTTP views: thin wrappers around tournaments/actions.py, rankings and exports.

Gates: a club tournament is visible to its members; results (standings, travellers,
other entries' plays, exports) only to those `actions.can_see_results` allows. An
organizer who looks at results or deals before close is recorded in deals_seen_by.
"""

from __future__ import annotations

import hashlib
import json
import logging
import secrets
from fractions import Fraction
from functools import partial, wraps
from urllib.parse import quote, urlencode

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db.models import F, Q
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.text import capfirst
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST, require_safe

import engine
from game.cards import card_text

from . import actions, exports, rankings, replays, scoring
from .forms import (
    STRUCTURE_FIELDS,
    ClubForm,
    CorrectionForm,
    EditTournamentForm,
    JoinClubForm,
    RemovalForm,
    SeasonForm,
    TournamentForm,
)
from .models import Club, DealPlay, DealResult, Entry, Structure, Tournament, TournamentDeal
from .templatetags.tournament_tags import SUIT_SYMBOLS, shown_hand

logger = logging.getLogger(__name__)

SEATS = (gettext_lazy("South"), gettext_lazy("West"), gettext_lazy("North"), gettext_lazy("East"))


# --- helpers -------------------------------------------------------------------------------


def _tournament(request: HttpRequest, pk: int, *, invited: bool = False) -> Tournament:
    """The tournament if the user may see it: a club's members and organizers, and
    whoever entered it (a non-member enters a club tournament with its invite code).
    `invited`: the page of an open tournament is also shown to whoever brings its code
    (?code=… in the organizer's invite link, or the code posted to join)."""
    t = get_object_or_404(Tournament.objects.select_related("club"), pk=pk)
    if _may_view(request.user, t):
        return t
    if invited and _brings_invite_code(request, t):
        return t
    raise Http404("no such tournament")


def _may_view(user, t: Tournament) -> bool:
    return actions.can_view_tournament(user, t) or actions.entry_of(user, t) is not None


def _brings_invite_code(request: HttpRequest, t: Tournament) -> bool:
    code = (request.POST.get("invite_code") or request.GET.get("code") or "").strip()
    return bool(
        t.invite_code
        and code == t.invite_code
        and t.status in (Tournament.Status.OPEN, Tournament.Status.RUNNING)
    )


class LookFirst(Exception):
    """Someone without an entry (an organizer) is about to see an open solo tournament's
    results, which rules them out of entering: they are asked first (a GET, maybe a link
    from another site, must not decide that for them). tournaments.middleware renders the
    question; `look` records the answer."""

    def __init__(self, tournament: Tournament) -> None:
        super().__init__(tournament.pk)
        self.tournament = tournament


def _results_allowed(request: HttpRequest, t: Tournament) -> bool:
    allowed = actions.can_see_results(request.user, t)
    if allowed and actions.entry_of(request.user, t) is None:
        # GET/HEAD: what a link, a preview can send; a POST is the answer.
        if request.method in ("GET", "HEAD") and actions.must_choose_to_look(request.user, t):
            raise LookFirst(t)
        actions.mark_seen(t, request.user)  # an organizer who looks can no longer enter
    return allowed


@login_required
@require_POST
def look(request: HttpRequest, pk: int) -> HttpResponse:
    """The answer to LookFirst: recorded as having looked, then to the page asked for."""
    t = _tournament(request, pk)
    if actions.can_see_results(request.user, t) and actions.entry_of(request.user, t) is None:
        actions.mark_seen(t, request.user)
    target = request.POST.get("next", "")
    if not target.startswith(f"/tournaments/{t.pk}/") or not url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}
    ):
        target = reverse("tournaments:standings", args=[t.pk])
    return redirect(target)


def _results_already_open(request: HttpRequest, t: Tournament) -> bool:
    """Results a page may show inline without ruling an organizer out: the viewer's own
    game is finished, the tournament is closed, or they have looked already."""
    return actions.results_open_to(request.user, t)


def _require_results(request: HttpRequest, t: Tournament) -> None:
    if not _results_allowed(request, t):
        raise PermissionDenied(_("Results are visible after you finish your own game."))


def _require_organizer(request: HttpRequest, t: Tournament) -> None:
    if not actions.is_organizer(request.user, t):
        raise PermissionDenied(_("Only the tournament's organizers can do this."))


def account_required(view):
    """Logged in with a real account. A guest (quick play, no password) is sent to sign
    up first, and comes back here afterwards: clubs and tournaments are run by accounts
    (the header shows guests no Clubs link; the pages were still open to them)."""

    @wraps(view)
    def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if not request.user.has_usable_password():
            back = request.get_full_path() if request.method == "GET" else reverse("clubs:list")
            return redirect(f"{reverse('signup')}?{urlencode({'next': back})}")
        return view(request, *args, **kwargs)

    return login_required(wrapped)


def _entry_or_404(t: Tournament, entry_id) -> Entry:
    return get_object_or_404(
        Entry.objects.select_related("player", "game"), tournament=t, pk=entry_id
    )


# --- list, detail, join ----------------------------------------------------------------------


def _split_closed(tournaments) -> tuple[list[Tournament], list[Tournament]]:
    """A list of tournaments as shown: those that can still be played, then the closed."""
    current, finished = [], []
    for t in tournaments:
        (finished if t.is_closed else current).append(t)
    return current, finished


def tournament_list(request: HttpRequest) -> HttpResponse:
    day = actions.day_tournament()
    # Public ones, and a club's closed tournaments whose results are open to everyone.
    visible = Q(club__isnull=True) | Q(
        status=Tournament.Status.CLOSED, results_audience=Tournament.Audience.EVERYONE
    )
    if request.user.is_authenticated:
        visible |= actions.own_tournaments_q(request.user) | Q(created_by=request.user)
    tournaments = Tournament.objects.filter(visible).filter(day__isnull=True).select_related("club")
    tournaments = tournaments[:50]
    current, finished = _split_closed(t for t in tournaments if _may_view(request.user, t))
    context = {
        "day": day,
        "day_standings": rankings.standings(day) if _results_already_open(request, day) else None,
        "day_entry": actions.entry_of(request.user, day),
        "current": current,
        "finished": finished,
        "earlier_days": Tournament.objects.filter(day__lt=day.day).order_by("-day")[:7],
    }
    return render(request, "tournaments/list.html", context)


def day_today(request: HttpRequest) -> HttpResponse:
    return redirect("tournaments:detail", pk=actions.day_tournament().pk)


@require_safe
def calendar(request: HttpRequest, pk: int) -> HttpResponse:
    """The tournament as a calendar file, for whoever may see its page."""
    from . import calendar as ical

    t = _tournament(request, pk, invited=True)
    if ical.event_times(t) is None:
        raise Http404("nothing to put in a calendar")
    page = reverse("tournaments:tables" if t.has_tables else "tournaments:detail", args=[t.pk])
    code = request.GET.get("code", "") if _brings_invite_code(request, t) else ""
    url = request.build_absolute_uri(page + (f"?code={quote(code)}" if code else ""))
    response = HttpResponse(
        ical.ics(t, url=url, host=request.get_host()), content_type="text/calendar; charset=utf-8"
    )
    response["Content-Disposition"] = f'attachment; filename="manillen-{t.pk}.ics"'
    return response


def detail(request: HttpRequest, pk: int) -> HttpResponse:
    t = _tournament(request, pk, invited=True)
    if t.has_tables:  # rounds and tables: their own page (tournaments/table_views.py)
        target = reverse("tournaments:tables", args=[t.pk])
        return redirect(f"{target}?{request.GET.urlencode()}" if request.GET else target)
    entry = actions.entry_of(request.user, t)
    allowed = _results_already_open(request, t)
    now = timezone.now()
    context = {
        "t": t,
        "entry": entry,
        "results_allowed": allowed,
        # An organizer may look, but looking rules them out: a link, not the table.
        "may_look": not allowed and actions.can_see_results(request.user, t),
        "standings": rankings.standings(t) if allowed else None,
        "is_organizer": actions.is_organizer(request.user, t),
        "entries_count": t.entries.exclude(status=Entry.Status.REMOVED).count(),
        "seen_deals": actions.has_seen(t, request.user),
        "invite_code": request.GET.get("code", "") if _brings_invite_code(request, t) else "",
        # A club's members enter without the code; others (and everyone, for a
        # tournament without a club) need it.
        "needs_code": bool(t.invite_code)
        and not (t.club is not None and actions.can_view_tournament(request.user, t)),
        # Outside the play window the page says so instead of a button that is refused.
        "not_started": bool(t.starts_at and now < t.starts_at),
        "window_over": bool(t.ends_at and now >= t.ends_at),
    }
    return render(request, "tournaments/detail.html", context)


@login_required
@require_POST
def join(request: HttpRequest, pk: int) -> HttpResponse:
    if request.POST.get("invite_code", "").strip():  # actions.join checks the code
        t = get_object_or_404(Tournament.objects.select_related("club"), pk=pk)
    else:
        t = _tournament(request, pk)
    code = request.POST.get("invite_code", "").strip()
    may_view = actions.can_view_tournament(request.user, t)
    # A code that does not match, where the code is what lets the player in, is named
    # as such (not "this tournament is for the club's members").
    needs_code = bool(t.invite_code) and not (t.club is not None and may_view)
    if needs_code and code and code != t.invite_code and actions.entry_of(request.user, t) is None:
        messages.error(request, capfirst(_("unknown invite code")))
        return redirect("tournaments:detail", pk=t.pk) if may_view else redirect("tournaments:list")
    try:
        entry = actions.join(t.pk, request.user, code)
    except actions.CannotJoin as exc:
        messages.error(request, capfirst(exc.translated()))
        if may_view:
            return redirect("tournaments:detail", pk=t.pk)
        if _brings_invite_code(request, t):
            # The page is shown to them only with the code: keep it in the address,
            # or the message ("the tournament is full") would land on a 404.
            page = reverse("tournaments:detail", args=[t.pk])
            return redirect(f"{page}?{urlencode({'code': code})}")
        return redirect("tournaments:list")  # the page would be a 404 for them
    if entry.game_id is None:  # a tournament of tables: the draw seats the entry later
        return redirect("tournaments:tables", pk=t.pk)
    return redirect("game", game_id=entry.game.public_id)


# --- results -------------------------------------------------------------------------------


def standings(request: HttpRequest, pk: int) -> HttpResponse:
    t = _tournament(request, pk)
    if t.has_tables:
        return redirect("tournaments:tables", pk=t.pk)
    _require_results(request, t)
    rows = rankings.standings(t)
    if request.GET.get("format") == "json":
        return JsonResponse(
            {
                "version": t.rankings_version,
                "status": t.status,
                "pending": rankings.pending(rows),
                "rows": rows,
            }
        )
    style = exports.csv_style(request.LANGUAGE_CODE, request.GET.get("sep"))
    csv_sep = "semicolon" if style.delimiter == ";" else "comma"
    context = {
        "t": t,
        "rows": rows,
        "pending": rankings.pending(rows),
        "deal_numbers": _travellers_shown(t, actions.entry_of(request.user, t)),
        "ws_path": f"/ws/tournaments/{t.pk}/standings/",
        "csv_sep": csv_sep,
        # The CSV links follow the choice of separator once it was made on this page.
        "csv_query": f"?sep={csv_sep}" if request.GET.get("sep") in exports.SEPARATORS else "",
    }
    return render(request, "tournaments/standings.html", context)


def traveller(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    t = _tournament(request, pk)
    if t.has_tables:  # the solo pages' way of comparing: a tournament of tables has its own
        return redirect("tournaments:tables", pk=t.pk)
    _require_results(request, t)
    deal = get_object_or_404(TournamentDeal, tournament=t, number=number)
    entry = actions.entry_of(request.user, t)
    played = _travellers_shown(t, entry)
    if number not in played and entry is not None and not t.is_closed:
        raise PermissionDenied(_("You see a deal's results once you have played it."))
    rows = rankings.traveller(t, number)
    context = {
        # Step through the deals without going back to the standings each time.
        "prev_number": max((k for k in played if k < number), default=None),
        "next_number": min((k for k in played if k > number), default=None),
        "t": t,
        "deal": deal,
        "rows": rows,
        "field": t.entries.filter(status=Entry.Status.FINISHED).count(),
        "my_entry_id": entry.pk if entry else None,
        "hands": _hands_display(deal, trump := _known_trump(deal, rows)),
        "trump": trump,
        "dealer_name": SEATS[deal.dealer],
        "par": deal.par,
    }
    return render(request, "tournaments/traveller.html", context)


def _travellers_shown(t: Tournament, entry: Entry | None) -> list[int]:
    """The deals whose travellers are linked: every deal played. Before close an entrant
    sees only the deals their own game reached: the hands of the others are for those
    still to play them (a short game must not show a throwaway account every deal)."""
    played = rankings.played_deal_numbers(t)
    if entry is None or t.is_closed:
        return played
    own = set(DealResult.objects.filter(entry=entry).values_list("number", flat=True))
    return [k for k in played if k in own]


def _known_trump(deal: TournamentDeal, rows: list[dict] | None = None) -> str | None:
    """The deal's trump when it is the same for everyone: the turned card's suit, else
    the one trump every result shown was played in; None when unknown or not one."""
    if deal.turned:
        return engine.Card.parse(deal.turned).suit
    trumps = {r["trump"] for r in rows or []}
    if len(trumps) == 1 and (trump := trumps.pop()) in SUIT_SYMBOLS:
        return trump
    return None


def _hands_display(deal: TournamentDeal, trump: str | None = None) -> list[dict]:
    """The four hands as the table shows one: by suit (the trump first when known) and
    rank, high to low."""
    return [
        {
            "seat": SEATS[s],
            "cards": shown_hand(deal.hands[s], trump),
        }
        for s in range(4)
    ]


@login_required
def compare(request: HttpRequest, pk: int) -> HttpResponse:
    """Per deal: your result beside the field's (average, best) and the bots' par."""
    t = _tournament(request, pk)
    if t.has_tables:  # the solo pages' way of comparing: a tournament of tables has its own
        return redirect("tournaments:tables", pk=t.pk)
    entry = actions.entry_of(request.user, t)
    if entry is None or not entry.is_finished:
        raise PermissionDenied(_("Compare after you have finished your own game."))
    _require_results(request, t)
    entries, field = rankings.field_points(t)
    pars = dict(TournamentDeal.objects.filter(tournament=t).values_list("number", "par"))
    rows = []
    for r in entry.deal_results.all():
        pts = field.get(r.number, [])
        par = pars.get(r.number) or {}
        rows.append(
            {
                "number": r.number,
                "trump": r.trump or ("none" if r.no_trump else ""),
                "mine": r.card_points[0],
                "written": r.written,
                "neuberg": rankings.neuberg_of(pts, r.card_points[0], entries),
                "played_by": len(pts),
                "field_avg": scoring.half_up(Fraction(int(sum(pts)), len(pts)))
                if len(pts)
                else None,
                "field_best": int(max(pts)) if len(pts) else None,
                "par": (par.get("card_points") or [None])[0],
            }
        )
    others = (
        t.entries.filter(status=Entry.Status.FINISHED).exclude(pk=entry.pk).select_related("player")
    )
    return render(
        request,
        "tournaments/compare.html",
        # A deal's top in Neuberg matchpoints: 2 for each other entry of the field.
        {"t": t, "entry": entry, "rows": rows, "others": others, "mp_top": 2 * max(0, entries - 1)},
    )


@login_required
def compare_deal(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    """Side-by-side replay of your play of a deal and another entry's."""
    t = _tournament(request, pk)
    if t.has_tables:  # the solo pages' way of comparing: a tournament of tables has its own
        return redirect("tournaments:tables", pk=t.pk)
    entry = actions.entry_of(request.user, t)
    if entry is None or not entry.is_finished:
        raise PermissionDenied(_("Compare after you have finished your own game."))
    _require_results(request, t)
    mine = get_object_or_404(DealResult, entry=entry, number=number)
    candidates = (
        DealResult.objects.filter(
            entry__tournament=t, entry__status=Entry.Status.FINISHED, number=number
        )
        .exclude(entry=entry)
        .select_related("entry__player")
    )
    other = None
    other_id = request.GET.get("entry")
    if other_id:
        other = next((c for c in candidates if str(c.entry_id) == other_id), None)
    other = other or (candidates[0] if candidates else None)
    # The plays (a whole deal each) live apart from the results: read only these two.
    plays = dict(
        DealPlay.objects.filter(result__in=[r for r in (mine, other) if r]).values_list(
            "result_id", "actions"
        )
    )
    mine_actions = plays.get(mine.pk, [])
    other_actions = plays.get(other.pk, []) if other else []
    seats_mine = _action_seats(t, number, mine_actions)
    seats_other = _action_seats(t, number, other_actions) if other else []
    diff = replays.first_difference(mine_actions, other_actions) if other else None
    length = max(len(mine_actions), len(other_actions) if other else 0)
    tricks = _trick_numbers(mine_actions if len(mine_actions) >= length else other_actions)
    steps = []
    for i in range(length):
        steps.append(
            {
                "index": i + 1,
                "trick": tricks[i],
                "trick_start": i == 0 or tricks[i] != tricks[i - 1],
                "mine": _step(mine_actions, seats_mine, i),
                "other": _step(other_actions, seats_other, i) if other else None,
                "first_diff": diff == i,
                "differs": diff is not None and i >= diff,
            }
        )
    context = {
        "t": t,
        "number": number,
        "mine": mine,
        "other": other,
        "candidates": candidates,
        "steps": steps,
        "first_diff": None if diff is None else diff + 1,
    }
    return render(request, "tournaments/compare_deal.html", context)


def _trick_numbers(deal_actions: list[str]) -> list[int | None]:
    """Trick 1..8 for each card action; None for trump choice and announcements."""
    out: list[int | None] = []
    cards = 0
    for a in deal_actions:
        if len(a) == 2:
            out.append(cards // 4 + 1)
            cards += 1
        else:
            out.append(None)
    return out


def _action_seats(t: Tournament, number: int, deal_actions: list[str]) -> list[int]:
    """Who made each action of a deal (replayed on the deal alone)."""
    deal = engine.Deal.from_spec(engine.deal_for(t.seed, number, t.rules), t.rules)
    seats = []
    for a in deal_actions:
        seats.append(deal.to_move)
        if deal.phase == "play":
            deal.play(a)
        else:
            deal.apply_action(a)
    return seats


def _step(deal_actions: list[str], seats: list[int], i: int) -> dict | None:
    if i >= len(deal_actions):
        return None
    a = deal_actions[i]
    text = a
    said = {
        "mee": _("is in"),
        "tegen": _("is against"),
        "pass": _("passes"),
        "look": _("looks"),
        "blind": _("blind"),
    }
    if len(a) == 2:
        text = card_text(a)
    elif a in said:  # the table's words, not the engine's ("mee", "look")
        text = said[a]
    elif a.startswith("trump:"):
        suit = a.split(":", 1)[1]
        text = (
            _("trump: no trump")
            if suit == "none"
            else _("trump: %s") % (SUIT_SYMBOLS.get(suit, suit))
        )
    return {"seat": SEATS[seats[i]], "action": a, "text": text}


def verify(request: HttpRequest, pk: int) -> HttpResponse:
    """The commitment always; after close the seed, and every stored deal recomputed."""
    t = _tournament(request, pk)
    if t.has_tables:  # the solo pages' way of comparing: a tournament of tables has its own
        return redirect("tournaments:tables", pk=t.pk)
    context = {"t": t, "revealed": t.is_closed}
    if t.is_closed:
        stored = list(t.deals.all())
        mismatched = [
            d.number
            for d in stored
            if replays.spec_as_dict(engine.deal_for(t.seed, d.number, t.rules))
            != {"number": d.number, "dealer": d.dealer, "hands": d.hands, "turned": d.turned}
        ]
        context.update(
            {
                "recomputed": engine.commitment(t.seed),
                "commitment_ok": engine.verify_commitment(t.seed, t.seed_commitment),
                "deals_checked": len(stored),
                "mismatched": mismatched,
                "first_deal": _hands_display(stored[0]) if stored else None,
            }
        )
    return render(request, "tournaments/verify.html", context)


# --- exports -------------------------------------------------------------------------------


def _download(body, content_type: str, filename: str) -> HttpResponse:
    response = HttpResponse(body, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def export(request: HttpRequest, pk: int, kind: str) -> HttpResponse:
    t = _tournament(request, pk)
    _require_results(request, t)
    if t.has_tables and kind.endswith(".csv"):
        from . import table_views  # a tournament of tables has CSV files of its own

        return table_views.export(request, pk, kind)
    if t.has_tables and kind.endswith(".json"):
        # Its standings (those of its finished sets) with its own description; its
        # deals are on the tables pages and in deals.csv, set by set.
        if kind != "standings.json":
            raise Http404("a tournament of tables shows its deals set by set")
        from . import tables

        data = {
            "tournament": tables.export_info(t),
            "standings": tables.standings(t),
            "corrections": exports.corrections(t),
        }
        body = json.dumps(data, indent=2, ensure_ascii=False)
        return _download(body, "application/json", f"tournament-{t.pk}-standings.json")
    name = f"tournament-{t.pk}"
    shown = _deals_shown_to(request, t)
    csv_files = {
        "standings.csv": exports.standings_csv,
        "travellers.csv": partial(exports.travellers_csv, only=shown),
        "corrections.csv": exports.corrections_csv,
    }
    if kind in csv_files:
        # `;` and a byte-order mark for Dutch and French readers (Excel's defaults
        # there), `,` otherwise; ?sep=comma or ?sep=semicolon is the export page's choice.
        style = exports.csv_style(request.LANGUAGE_CODE, request.GET.get("sep"))
        body = csv_files[kind](t, style)
        return _download(body, "text/csv; charset=utf-8", f"{name}-{kind}")
    if kind == "standings.json":
        return _download(exports.standings_json(t), "application/json", f"{name}-standings.json")
    if kind == "travellers.json":
        body = exports.travellers_json(t, shown)
        return _download(body, "application/json", f"{name}-travellers.json")
    if kind in ("records.zip", "records.txt"):
        if not t.is_closed:  # the records name the seed, which stays secret until close
            raise PermissionDenied(_("Game records are available when the tournament closes."))
        if kind == "records.txt":
            text = exports.records_text(t)
            return _download(text, "text/plain; charset=utf-8", f"{name}-records.txt")
        data = exports.stored_or_built_records_zip(t)
        return _download(data, "application/zip", f"{name}-records.zip")
    raise Http404("no such export")


def _deals_shown_to(request: HttpRequest, t: Tournament) -> set[int] | None:
    """The deals whose travellers (hands and results) the reader may see in the exports
    and the printable results: every deal (None) after close and for a reader without an
    entry (an organizer); before close an entrant's, those their own game reached, as on
    the standings page (_travellers_shown)."""
    entry = None if t.is_closed else actions.entry_of(request.user, t)
    return None if entry is None else set(_travellers_shown(t, entry))


def _results_print_context(t: Tournament, only: set[int] | None = None) -> dict:
    travellers = exports.travellers(t, only)
    deals = {d.number: d for d in t.deals.filter(number__in=[x["deal"] for x in travellers])}
    for trav in travellers:  # each deal's four hands and dealer on its traveller
        deal = deals.get(trav["deal"])
        trav["hands"] = _hands_display(deal) if deal else []
        trav["dealer_name"] = SEATS[deal.dealer] if deal else ""
    rows = rankings.standings(t)
    return {
        "t": t,
        "rows": rows,
        "pending": rankings.pending(rows),
        "travellers": travellers,
        "corrections": exports.corrections(t),
        # The same corrections as sentences in local time (the export's are stored dicts).
        "audit": t.audit.select_related("actor", "entry__player").exclude(action="close"),
    }


def results_print(request: HttpRequest, pk: int) -> HttpResponse:
    t = _tournament(request, pk)
    _require_results(request, t)
    if t.has_tables:
        from . import table_views

        return table_views.results_print(request, pk)
    context = _results_print_context(t, _deals_shown_to(request, t))
    return render(request, "tournaments/results_print.html", context)


def load_pdf():
    """tournaments.pdf, or None when WeasyPrint cannot load here (its Pango library is
    missing: deploy/README.md names the packages). Imported only for a PDF: loading
    WeasyPrint costs time no other page should pay."""
    try:
        from . import pdf
    except (OSError, ImportError):
        logger.exception("the results PDF cannot be made: WeasyPrint does not load")
        return None
    return pdf


def pdf_unavailable(request: HttpRequest, print_url: str) -> HttpResponse:
    """The answer when no PDF can be made on this server: the printable page instead."""
    return render(request, "tournaments/pdf_unavailable.html", {"print_url": print_url}, status=503)


def results_pdf(request: HttpRequest, pk: int) -> HttpResponse:
    """The printable results page as PDF; the same gates as results_print."""
    t = _tournament(request, pk)
    _require_results(request, t)
    if t.has_tables:
        from . import table_views

        return table_views.results_pdf(request, pk)
    pdf = load_pdf()
    if pdf is None:
        return pdf_unavailable(request, reverse("tournaments:results", args=[t.pk]))
    only = _deals_shown_to(request, t)
    if only is not None and not only >= set(t.deals.values_list("number", flat=True)):
        # An entrant before close who may see some deals only: their own PDF (small).
        html = render_to_string(
            "tournaments/results_print.html", _results_print_context(t, only), request=request
        )
        data = pdf.html_to_pdf(html, base_url=request.build_absolute_uri("/"))
        return _download(data, "application/pdf", f"tournament-{t.pk}-results.pdf")
    return stored_results_pdf(request, t, reverse("tournaments:results", args=[t.pk]))


def stored_results_pdf(request: HttpRequest, t: Tournament, print_url: str) -> HttpResponse:
    """The results PDF as everyone allowed sees it, built once (tournaments/results_pdf.py);
    while a large one is being made, a page that reloads until it is there."""
    from . import results_pdf

    data = results_pdf.get_or_request(t, request.LANGUAGE_CODE)
    if data is None:
        context = {"t": t, "print_url": print_url}
        response = render(request, "tournaments/pdf_pending.html", context, status=202)
        response["Retry-After"] = "5"
        return response
    return _download(data, "application/pdf", f"tournament-{t.pk}-results.pdf")


# --- organizer panel -----------------------------------------------------------------------


# The session's record of the create forms that made a tournament: key -> its id.
CREATED_FORMS_KEY = "created_tournament_forms"


def _form_sent(request: HttpRequest) -> str:
    """What a create form sent, as one digest (its one-time key and token left out)."""
    items = sorted(
        (k, v)
        for k, values in request.POST.lists()
        if k not in ("csrfmiddlewaretoken", "form_key")
        for v in values
    )
    return hashlib.sha256(json.dumps(items).encode()).hexdigest()


def _made_by_this_form(request: HttpRequest, key: str) -> Tournament | None:
    """The tournament this create form (its one-time `key`) already made in this session
    from the same values: the form sent again (the browser's Back and Send, a reload)
    makes no second one. Changed before sending again, it makes a new one."""
    made = request.session.get(CREATED_FORMS_KEY, {}).get(key)
    if not key or not made or made[1] != _form_sent(request):
        return None
    return Tournament.objects.filter(pk=made[0]).first()


def _remember_form(request: HttpRequest, key: str, t: Tournament) -> None:
    made = dict(list(request.session.get(CREATED_FORMS_KEY, {}).items())[-19:])
    made[key] = [t.pk, _form_sent(request)]
    request.session[CREATED_FORMS_KEY] = made


def _after_create(t: Tournament):
    if t.has_tables:
        return redirect("tournaments:tables-organize", pk=t.pk)
    return redirect("tournaments:manage", pk=t.pk)


@account_required
def create(request: HttpRequest) -> HttpResponse:
    form = TournamentForm(
        request.POST or None, user=request.user, club_slug=request.GET.get("club", "")
    )
    form_key = request.POST.get("form_key", "")[:64] or secrets.token_urlsafe(12)
    made = _made_by_this_form(request, form_key) if request.method == "POST" else None
    if made is not None and actions.is_organizer(request.user, made):
        messages.info(request, _("This form was sent before: the tournament it made is here."))
        return _after_create(made)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        common = dict(
            name=data["name"],
            club=data["club"],
            rules=data["rules"],
            tie_carry=data["tie_carry"],
            bot_level=data["bot_level"],
            starts_at=data["starts_at"],
            results_audience=data["results_audience"] or None,
            invite_code=data["invite_code"],
            seed=data["seed"],
            open_now=data["open_now"],
        )
        try:
            if data["format"] in actions.TABLE_FORMATS:
                # As `create_tournament --format ...`: the capacity is the field the
                # structure is checked for; a start time is the live start.
                t = actions.create_tables_tournament(
                    request.user,
                    fmt=data["format"],
                    players=data["capacity"],
                    rounds=data["rounds"],
                    sets=data["sets"],
                    deals=data["set_deals"],
                    duplicate=data["duplicate"],
                    cut=data["cut"],
                    cut_fraction=data["cut_fraction"],
                    redraw=data["redraw"] or Structure.Redraw.STANDING,
                    clock=data["clock"],
                    set_minutes=data["set_minutes"],
                    round_break=data["round_break"] or 0,
                    in_room=data["in_room"],
                    live_start=data["starts_at"] is not None,
                    **common,
                )
            else:
                t = actions.create_tournament(
                    request.user,
                    deals=data["deals"],
                    capacity=data["capacity"],
                    ends_at=data["ends_at"],
                    live_start=data["live_start"],
                    results_visibility=data["results_visibility"],
                    unfinished_rule=data["unfinished_rule"],
                    ranking=data["ranking"],
                    **common,
                )
        except actions.TournamentError as exc:
            form.add_error(None, capfirst(exc.translated()))
        else:
            _remember_form(request, form_key, t)
            return _after_create(t)
    # Tournaments belong to a club: somebody who organizes none gets the way to one
    # instead of a form whose Club list is empty.
    no_club = not form.fields["club"].queryset.exists() and not request.user.is_staff
    context = {"form": form, "no_club": no_club, "form_key": form_key}
    return render(request, "tournaments/create.html", context)


@login_required
def manage(request: HttpRequest, pk: int) -> HttpResponse:
    t = _tournament(request, pk)
    _require_organizer(request, t)
    if t.has_tables:
        return redirect("tournaments:tables-organize", pk=t.pk)
    allowed = _results_already_open(request, t)
    # Ranked first, then the rest (removed, did not play, still playing) as they joined:
    # NULLS LAST on SQLite too (PostgreSQL does so by itself). While the results are
    # hidden from this organizer, as they joined only: the order would be the standings.
    order = (F("rank").asc(nulls_last=True), "joined_at") if allowed else ("joined_at", "pk")
    entries = t.entries.select_related("player", "game").order_by(*order)
    # A corrected score is marked "*", as on the standings and in the exports.
    corrected = set(t.audit.filter(action="correct_score").values_list("entry_id", flat=True))
    rows = []
    for e in entries:
        state = e.game.state or {}
        rows.append(
            {
                "entry": e,
                "deal_number": state.get("deal_number"),
                "scores": state.get("scores") if allowed else None,
                "corrected": allowed and e.pk in corrected,
            }
        )
    context = {
        "t": t,
        "rows": rows,
        "results_allowed": allowed,
        # An organizer who plays may not look before finishing (no "show" link then).
        "playing": actions.entry_of(request.user, t) is not None,
        # Corrections name scores: hidden like the results from an organizer still playing.
        "audit": t.audit.select_related("actor", "entry__player") if allowed else [],
        "correction_form": CorrectionForm(),
        "removal_form": RemovalForm(),
    }
    return render(request, "tournaments/manage.html", context)


@login_required
def manage_deals(request: HttpRequest, pk: int) -> HttpResponse:
    """The stored deals; looking at them before close rules the organizer out of entering."""
    t = _tournament(request, pk)
    _require_organizer(request, t)
    entry = actions.entry_of(request.user, t)
    if entry is not None and not t.is_closed:
        raise PermissionDenied(_("You have an entry in this tournament: the deals stay hidden."))
    if request.method != "POST" and not t.is_closed:
        return render(request, "tournaments/manage_deals_confirm.html", {"t": t})
    actions.mark_seen(t, request.user)
    deals = [
        {
            "deal": d,
            "hands": _hands_display(d, trump := _known_trump(d)),
            "trump": trump,
            "dealer_name": SEATS[d.dealer],
        }
        for d in t.deals.all()[:40]
    ]
    return render(request, "tournaments/manage_deals.html", {"t": t, "deals": deals})


@login_required
def manage_edit(request: HttpRequest, pk: int) -> HttpResponse:
    """The organizer changes the name, the capacity, the end of the play window or who
    sees the results (actions.edit_tournament), until the tournament closes."""
    t = _tournament(request, pk)
    _require_organizer(request, t)
    back = "tournaments:tables-organize" if t.has_tables else "tournaments:manage"
    if t.is_closed:
        messages.error(request, _("A closed tournament no longer changes."))
        return redirect(back, pk=t.pk)
    form = EditTournamentForm(request.POST or None, tournament=t)
    if request.method == "POST" and form.is_valid():
        changed, meanwhile = form.edits()
        if meanwhile:
            # Another organizer saved first: the form again as the settings are now.
            names = ", ".join(str(form.fields[name].label) for name in meanwhile)
            messages.error(
                request,
                _(
                    "Another organizer changed this meanwhile: %(names)s. The form shows "
                    "the settings as they are now: make your change again."
                )
                % {"names": names},
            )
            form = EditTournamentForm(tournament=t)
        else:
            try:
                changes = {name: form.cleaned_data[name] for name in changed}
                actions.edit_tournament(t.pk, request.user, **changes)
            except actions.TournamentError as exc:
                field = STRUCTURE_FIELDS.get(exc.field or "", exc.field)  # "players": capacity
                form.add_error(field if field in form.fields else None, capfirst(exc.translated()))
            else:
                messages.success(request, _("The tournament's settings are saved."))
                return redirect(back, pk=t.pk)
    return render(request, "tournaments/manage_edit.html", {"t": t, "form": form, "back": back})


@login_required
@require_POST
def manage_action(request: HttpRequest, pk: int, what: str) -> HttpResponse:
    t = _tournament(request, pk)
    _require_organizer(request, t)
    try:
        if what == "open":
            actions.open_tournament(t.pk, request.user)
        elif what == "close":
            # An optional rule for unfinished games chosen at close ("bot", "as_played").
            rule = request.POST.get("unfinished_rule") or None
            asked = timezone.now()
            closed = actions.close_tournament(t.pk, request.user, unfinished_rule=rule)
            if closed.closed_at is not None and closed.closed_at < asked:
                # Another organizer (or the end of the window) was first: say so.
                messages.info(
                    request,
                    _("The tournament was closed already, at %(at)s.")
                    % {
                        "at": date_format(
                            timezone.localtime(closed.closed_at), "SHORT_DATETIME_FORMAT"
                        )
                    },
                )
            else:
                messages.success(request, _("The tournament is closed; the seed is revealed."))
        elif what == "ranking":
            actions.set_ranking(t.pk, request.user, request.POST.get("ranking", ""))
        elif what == "delete":
            club = t.club
            name = actions.delete_draft(t.pk, request.user)
            messages.success(request, _("The draft “%(name)s” is deleted.") % {"name": name})
            if club is not None:
                return redirect("clubs:detail", slug=club.slug)
            return redirect("tournaments:list")
        else:
            raise Http404("unknown action")
    except actions.TournamentError as exc:
        messages.error(request, capfirst(exc.translated()))
    return redirect("tournaments:manage", pk=t.pk)


@login_required
@require_POST
def manage_entry(request: HttpRequest, pk: int, entry_id: int, what: str) -> HttpResponse:
    t = _tournament(request, pk)
    _require_organizer(request, t)
    entry = _entry_or_404(t, entry_id)
    who = {"name": entry.player.get_username()}
    try:
        if what == "correct":
            form = CorrectionForm(request.POST)
            if not form.is_valid() and "score" in form.errors and request.POST.get("score"):
                limits = {"low": -actions.SCORE_LIMIT, "high": actions.SCORE_LIMIT}
                messages.error(
                    request,
                    _("The new score is a whole number from %(low)s to %(high)s.") % limits,
                )
            elif not form.is_valid():
                messages.error(request, _("A correction needs a score and a reason."))
            else:
                actions.correct_score(
                    entry.pk, request.user, form.cleaned_data["score"], form.cleaned_data["reason"]
                )
                messages.success(
                    request,
                    _("%(name)s's score is corrected; the standings follow in a moment.") % who,
                )
        elif what == "remove":
            form = RemovalForm(request.POST)
            if not form.is_valid():
                messages.error(request, _("A removal needs a reason."))
            else:
                actions.remove_entry(entry.pk, request.user, form.cleaned_data["reason"])
                messages.success(request, _("%(name)s's entry is removed.") % who)
        elif what == "restore":
            form = RemovalForm(request.POST)
            if not form.is_valid():
                messages.error(request, _("A restore needs a reason."))
            else:
                actions.restore_entry(entry.pk, request.user, form.cleaned_data["reason"])
                messages.success(request, _("%(name)s's entry is back.") % who)
        else:
            raise Http404("unknown action")
    except actions.TournamentError as exc:
        messages.error(request, capfirst(exc.translated()))
    return redirect("tournaments:manage", pk=t.pk)


# --- clubs ---------------------------------------------------------------------------------


@account_required
def club_list(request: HttpRequest) -> HttpResponse:
    clubs = Club.objects.filter(Q(members=request.user) | Q(organizers=request.user)).distinct()
    return render(
        request,
        "tournaments/club_list.html",
        {"clubs": clubs, "form": ClubForm(), "join_form": JoinClubForm()},
    )


@account_required
def club_create(request: HttpRequest) -> HttpResponse:
    if request.method != "POST":  # a bookmark, or back after creating one: the form
        return redirect("clubs:list")
    form = ClubForm(request.POST)
    if not form.is_valid():
        if form.has_error("name", "control_characters"):
            messages.error(request, form.errors["name"][0])
        else:
            messages.error(request, _("A club needs a name."))
        return redirect("clubs:list")
    club = actions.create_club(request.user, form.cleaned_data["name"])
    return redirect("clubs:detail", slug=club.slug)


@account_required
def club_join(request: HttpRequest) -> HttpResponse:
    code = request.POST.get("code") or request.GET.get("code") or ""
    if request.method != "POST":
        return render(request, "tournaments/club_join.html", {"form": JoinClubForm({"code": code})})
    try:
        club = actions.join_club(request.user, code)
    except actions.CannotJoin as exc:
        messages.error(request, capfirst(exc.translated()))
        return redirect("clubs:list")
    return redirect("clubs:detail", slug=club.slug)


@login_required
def club_detail(request: HttpRequest, slug: str) -> HttpResponse:
    club = get_object_or_404(Club, slug=slug)
    if not club.is_member(request.user):
        raise Http404("no such club")
    is_org = club.is_organizer(request.user)
    if request.method == "POST":
        return _club_post(request, club, is_org)
    tournaments = club.tournaments.select_related("club")
    if not is_org:
        tournaments = tournaments.exclude(status=Tournament.Status.DRAFT)
    organizers = list(club.organizers.order_by(get_user_model().USERNAME_FIELD))
    current, finished = _split_closed(tournaments)
    context = {
        "club": club,
        "is_organizer": is_org,
        "current": current,
        "finished": finished,
        # Everyone in the club, organizers first (an organizer added in the admin may
        # not be in `members`).
        "members": organizers
        + list(
            club.members.exclude(pk__in=[o.pk for o in organizers]).order_by(
                get_user_model().USERNAME_FIELD
            )
        ),
        "organizer_ids": {o.pk for o in organizers},
        "organizers": organizers,
        "join_url": request.build_absolute_uri(f"/clubs/join/?code={club.invite_code}"),
        "seasons": club.seasons.all(),
        "season_form": SeasonForm() if is_org else None,
    }
    return render(request, "tournaments/club_detail.html", context)


def _club_post(request: HttpRequest, club: Club, is_org: bool) -> HttpResponse:
    """The club page's buttons: a new invite code, an organizer more or less, a member
    taken out of the club (organizers), leaving the club (everyone)."""
    post, actor = request.POST, request.user
    try:
        if post.get("leave"):
            actions.leave_club(actor, club)
            messages.success(request, _("You left %(club)s.") % {"club": club.name})
            return redirect("clubs:list")
        if not is_org:
            raise actions.NotAllowed(actions.ORGANIZERS_ONLY)
        if post.get("new_invite"):
            actions.new_club_invite(actor, club)
        elif "rename" in post:
            actions.rename_club(actor, club, post.get("rename", ""))
            messages.success(request, _("The club is now called %(club)s.") % {"club": club.name})
        elif post.get("organizer") or post.get("not_organizer"):
            make = bool(post.get("organizer"))
            person = actions.set_club_organizer(
                actor, club, post.get("organizer") or post.get("not_organizer"), make
            )
            text = (
                _("%(name)s is now an organizer.")
                if make
                else _("%(name)s is no longer an organizer.")
            )
            messages.success(request, text % {"name": person.get_username()})
        elif post.get("remove"):
            person = actions.leave_club(post.get("remove"), club, removed_by=actor)
            messages.success(
                request, _("%(name)s is no longer in the club.") % {"name": person.get_username()}
            )
    except actions.TournamentError as exc:
        messages.error(request, capfirst(exc.translated()))
    return redirect("clubs:detail", slug=club.slug)
