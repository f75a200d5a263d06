"""HTTP views of tables of people (issue 11): the lobby, a new table, the table page
before and after the start, and the seat requests. Thin: every change is a call to
game/actions.py; a refusal is shown on the page (status 409, or 404 for a table the
visitor may not see), never a server error.

Stable test hooks: `/tables/new/` (fields rules, bot_level, clock, private),
`/tables/<id>/` with data-join-url, data-seat, data-sit, data-add-bot, data-start.
"""

from __future__ import annotations

from django.conf import settings
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

import engine

from . import actions, levels
from .models import CLOCK_CHOICES, Game
from .views import (
    GUEST_NAME_MAX,
    PLAY_LEVELS,
    _login_guest,
    guest_name_problem,
    is_random_guest,
    login_guest,
    name_guest,
    new_guest,
    render_table,
)

SEAT_NAMES = ("South", "West", "North", "East")


def lobby(request: HttpRequest) -> HttpResponse:
    tables = actions.open_tables()
    for t in tables:  # the names the page's language gives the ids (the JSON's refresh too)
        t["rules_name"] = levels.rules_name(t["rules"])
        t["bot_name"] = levels.level_name(t["bot_level"])
    if request.GET.get("format") == "json":
        return JsonResponse({"tables": tables})
    # ?closed=1: the waiting room of a table its host closed came here (static/js/waiting.js).
    closed = request.GET.get("closed") == "1"
    return render(request, "game/lobby.html", {"tables": tables, "closed": closed})


@require_http_methods(["GET", "POST"])
def new_table(request: HttpRequest) -> HttpResponse:
    form = {"rules": settings.GAME_DEFAULT_RULES, "bot_level": settings.GAME_DEFAULT_BOT}
    errors: list[str] = []
    if request.method == "POST":
        form = {k: request.POST.get(k, "").strip() for k in ("rules", "bot_level", "clock", "name")}
        private = request.POST.get("private", "").lower() in ("1", "on", "true", "yes")
        form["private"] = private
        if form["rules"] not in engine.PRESETS:
            errors.append(_("Choose one of the rules offered."))
        if form["bot_level"] not in PLAY_LEVELS:
            errors.append(_("Choose one of the bot levels offered."))
        try:
            clock = int(form["clock"] or 0)
        except ValueError:
            clock = -1
        if clock not in CLOCK_CHOICES:
            errors.append(_("Choose a clock that is offered: off, 15, 30 or 60 seconds."))
        if not request.user.is_authenticated or is_random_guest(request.user):
            problem = guest_name_problem(form["name"])
            if problem:
                errors.append(problem)
        if not errors:
            name = form["name"]
            if request.user.is_authenticated:
                user = request.user
                name_guest(user, name)
            else:
                user = _login_guest(request, name)
            game = actions.create_table(
                user,
                rules=form["rules"],
                bot_level=form["bot_level"],
                clock=clock,
                private=private,
            )
            return redirect("table", game_id=game.public_id)
    context = {
        "form": form,
        "errors": errors,
        "presets": list(engine.PRESETS),
        "levels": PLAY_LEVELS,
        "clocks": CLOCK_CHOICES,
        # A visitor (or a guest still under a random name) may give a name to sit with.
        "ask_name": not request.user.is_authenticated or is_random_guest(request.user),
        "guest_name_max": GUEST_NAME_MAX,
    }
    return render(request, "game/new_table.html", context, status=400 if errors else 200)


def table(request: HttpRequest, game_id) -> HttpResponse:
    return _table_page(request, game_id)


def _table_page(request: HttpRequest, game_id, error: str = "", status: int = 200):
    code = request.GET.get("code") or request.POST.get("code") or ""
    try:
        viewer = actions.get_viewer(game_id, request.user, code or None)
    except actions.GameNotFound:
        raise Http404("no such table") from None
    game = viewer.game
    if game.status != Game.Status.WAITING:
        return render_table(request, viewer, code=code, error=error, status=status)
    join_url = request.build_absolute_uri(reverse("table", args=[game.public_id]))
    if game.join_code:
        join_url += f"?code={game.join_code}"
    seats = []
    for s in viewer.seats:
        seats.append(
            {
                "index": s.index,
                "name": s.user.get_username() if s.user_id else "",
                "bot": s.bot_level,
                "free": s.is_free,
                "mine": viewer.seat == s.index,
            }
        )
    context = {
        "game": game,
        "seats": seats,
        "viewer_seat": viewer.seat,
        "is_host": viewer.is_host,
        "join_url": join_url if viewer.seat is not None or not game.join_code else "",
        "code": code,
        # A visitor (or a guest still under a random name) may give a name to sit with.
        "ask_name": viewer.seat is None
        and (not request.user.is_authenticated or is_random_guest(request.user)),
        "guest_name_max": GUEST_NAME_MAX,
        "guest_name": request.POST.get("name", "") if error else "",
        "ws_path": game.ws_path + (f"?code={code}" if code else ""),
        "error": error,
        "can_start": not any(s["free"] for s in seats),
        # People seated besides the host: closing the table is asked first.
        "people": sum(1 for s in viewer.seats if s.user_id is not None),
        "players": actions.table_info(game, viewer.seats)["players"],
    }
    return render(request, "game/waiting.html", context, status=status)


def _seat_arg(request: HttpRequest) -> int:
    try:
        return int(request.POST.get("seat", ""))
    except ValueError:
        return -1


def _do(request: HttpRequest, game_id, call) -> HttpResponse:
    """Run a seat request; a refusal re-renders the table page with its reason."""
    try:
        result = call()
    except actions.GameNotFound:
        raise Http404("no such table") from None
    except actions.ActionError as exc:
        return _table_page(request, game_id, error=_(str(exc)), status=409)
    if result is None:  # the table is gone (its host closed it): back to the open tables
        return redirect("lobby")
    target = result.public_id if isinstance(result, Game) else game_id
    url = reverse("table", args=[target])
    code = request.POST.get("code") or ""
    if code and str(target) == str(game_id):
        url += f"?code={code}"
    return redirect(url)


@require_POST
def sit(request: HttpRequest, game_id) -> HttpResponse:
    seat, code = _seat_arg(request), request.POST.get("code") or None
    asks_name = not request.user.is_authenticated or is_random_guest(request.user)
    problem = guest_name_problem(request.POST.get("name", "")) if asks_name else ""
    if problem:  # said before anything happens (and before a guest account is made)
        return _table_page(request, game_id, error=problem, status=400)
    if not request.user.is_authenticated:
        # Check before making a guest: a refused visitor leaves no account behind.
        try:
            viewer = actions.get_viewer(game_id, None, code)
        except actions.GameNotFound:
            raise Http404("no such table") from None
        if viewer.game.status != Game.Status.WAITING or not (
            0 <= seat <= 3 and viewer.seats[seat].is_free
        ):
            return _do(request, game_id, lambda: actions.sit(game_id, None, seat, code))

        def sit_as_new_guest():
            # Taken meanwhile (several people tapping one free seat): the refusal takes
            # the new guest account back with it, and nobody is logged in as it.
            with transaction.atomic():
                guest = new_guest(request.POST.get("name", ""))
                result = actions.sit(game_id, guest, seat, code)
            login_guest(request, guest)
            return result

        return _do(request, game_id, sit_as_new_guest)
    else:
        name_guest(request.user, request.POST.get("name", ""))
    return _do(request, game_id, lambda: actions.sit(game_id, request.user, seat, code))


@require_POST
def add_bot(request: HttpRequest, game_id) -> HttpResponse:
    seat = _seat_arg(request)
    return _do(request, game_id, lambda: actions.add_bot(game_id, request.user, seat))


@require_POST
def free_seat(request: HttpRequest, game_id) -> HttpResponse:
    seat = _seat_arg(request)
    return _do(request, game_id, lambda: actions.free_seat(game_id, request.user, seat))


@require_POST
def start(request: HttpRequest, game_id) -> HttpResponse:
    return _do(request, game_id, lambda: actions.start(game_id, request.user))


@require_POST
def leave(request: HttpRequest, game_id) -> HttpResponse:
    """Leave the table; the host of a table that has not started closes it, and goes
    back to the open tables."""
    return _do(request, game_id, lambda: actions.leave(game_id, request.user))


@require_POST
def take_back(request: HttpRequest, game_id) -> HttpResponse:
    def call():
        try:
            return actions.take_back(game_id, request.user)
        except actions.AlreadyPlaying:  # another tab took it back first: the table
            return game_id

    return _do(request, game_id, call)


@require_POST
def rematch(request: HttpRequest, game_id) -> HttpResponse:
    return _do(request, game_id, lambda: actions.rematch(game_id, request.user))


@require_POST
def chat_switch(request: HttpRequest, game_id) -> HttpResponse:
    on = request.POST.get("chat", "").lower() in ("1", "on", "true", "yes")
    return _do(request, game_id, lambda: actions.set_chat(game_id, request.user, on))
