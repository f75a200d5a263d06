"""HTTP views: thin wrappers around game/actions.py.

Anonymous quick play: a visitor without an account who starts a game gets a guest
user (unusable password) and is logged in, so that every game has an owner and the
websocket can trust scope["user"] alone, like for registered players.

Starting a game is a POST to /play/ (CSRF-protected, PLAY_RATE_LIMIT new games per
client address within PLAY_RATE_WINDOW): a GET, a crawler or a cross-site link, only
shows the choice of bot level and rules.
"""

from __future__ import annotations

import json
import re
import secrets

from django.conf import settings
from django.contrib.auth import get_user_model, login
from django.db.models import F
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy as _lazy
from django.views.decorators.http import require_http_methods, require_POST

import engine
from accounts.forms import ANONYMOUS_PREFIX, GUEST_PREFIX
from ops import ratelimit

from . import actions, review
from .levels import LEVELS, level_choices
from .models import Game
from .signals import is_seed_sealed, move_row_related


def home(request: HttpRequest) -> HttpResponse:
    games = []
    if request.user.is_authenticated:
        # Every game the person has a seat at (solo games and tables), newest first,
        # with their own seat's score; with the relations other apps hang on a game (a
        # tournament game's entry, whose score is what the list shows: corrected or not).
        games = list(
            Game.objects.filter(seats__user=request.user)
            .annotate(my_score=F("seats__final_score"))
            .select_related(*move_row_related)
            .order_by("-created")[:10]
        )
    return render(request, "home.html", {"games": games, **_choice()})


# The levels a player picks for a solo game (engine/bots: heuristic = beginner).
PLAY_LEVELS = tuple(LEVELS)


def _choice(level: str | None = None, rules: str | None = None) -> dict:
    """What the new-game form offers and has selected (home page and /play/)."""
    return {
        "default_level": level or settings.GAME_DEFAULT_BOT,
        "default_rules": rules or settings.GAME_DEFAULT_RULES,
        "levels": level_choices(),
        "rules_ids": list(engine.PRESETS),  # named in the template (rules_name)
    }


def _play_key(request: HttpRequest) -> str:
    return f"play:ip:{ratelimit.client_address(request)}"


@require_http_methods(["GET", "POST"])
def play(request: HttpRequest) -> HttpResponse:
    if request.method != "POST":
        return render(request, "game/play.html", _choice())
    level = request.POST.get("level") or None  # none chosen: the site's default
    rules = request.POST.get("rules") or None
    if level is not None and level not in PLAY_LEVELS:
        return _bad_choice(f"unknown bot level {level[:40]!r}: choose {', '.join(PLAY_LEVELS)}")
    if rules is not None and rules not in engine.PRESETS:
        return _bad_choice(f"unknown rules {rules[:40]!r}: choose {', '.join(engine.PRESETS)}")
    key = _play_key(request)
    wait = ratelimit.over_limit(key, settings.PLAY_RATE_LIMIT)
    if wait:
        minutes = max(1, -(-wait // 60))
        context = {
            **_choice(level, rules),
            "error": _("Too many new games from your address. Try again in %(minutes)d min.")
            % {"minutes": minutes},
        }
        return render(request, "game/play.html", context, status=429)
    ratelimit.count(key, settings.PLAY_RATE_WINDOW)
    user = request.user if request.user.is_authenticated else _login_guest(request)
    game = actions.create_game(user, bot_level=level, rules=rules)
    return redirect("game", game_id=game.public_id)


def _bad_choice(message: str) -> HttpResponse:
    return HttpResponse(message, status=400, content_type="text/plain; charset=utf-8")


def table(request: HttpRequest, game_id) -> HttpResponse:
    try:
        viewer = actions.get_viewer(game_id, request.user, request.GET.get("code") or None)
    except actions.GameNotFound:
        raise Http404("no such game") from None
    if viewer.game.status == Game.Status.WAITING:
        return redirect("table", game_id=viewer.game.public_id)
    return render_table(request, viewer, code=request.GET.get("code") or "")


def render_table(request: HttpRequest, viewer, *, code="", error="", status=200) -> HttpResponse:
    """The card table as `viewer` sees it: their own seat at the bottom (a spectator
    sees South's place and no hand)."""
    game = viewer.game
    snap = actions.snapshot_message(game, viewer.seat, viewer.seats)
    state, table_facts = snap["state"], snap["table"]
    people = sum(1 for s in viewer.seats if s.user_id is not None)
    # A tournament's table: no "another game"; the way back to the tournament's tables
    # (the player's next table and the standings).
    tournament_table = actions.tournament_table_of(game)
    # Over before its end: no more moves are accepted (actions.stop_game).
    stopped = game.status == Game.Status.FINISHED and not state.get("game_over")
    context = {
        "game": game,
        "state": state,
        "state_json": json.dumps(state),
        "table": table_facts,
        "viewer_seat": viewer.seat,
        "is_host": viewer.is_host,
        "my_seat": viewer.seats[viewer.seat] if viewer.seat is not None else None,
        # A table of several people (not a solo game): rematch, leave, names, chat.
        "is_table": people > 1 or game.visibility != Game.Visibility.PRIVATE,
        "ws_path": game.ws_path + (f"?code={code}" if code else ""),
        # A private table's code: its next game (same code) is reached with it too.
        "code": code,
        "seq": game.seq,
        "error": error,
        # A running tournament's game: no record link (the download is a 404 until close).
        "record_sealed": is_seed_sealed(game),
        # "Another game" keeps the level of a solo game.
        "replay_level": game.bot_level if game.bot_level in PLAY_LEVELS else "",
        "replay_rules": game.rules,
        "tables_url": (
            reverse("tournaments:tables", args=[tournament_table[0]]) if tournament_table else ""
        ),
        "tables_name": tournament_table[1] if tournament_table else "",
        # The tournament's last set: no next table, the standings only.
        "last_set": bool(tournament_table and tournament_table[3]),
        # The set's deadline: the bots finish a table still playing then.
        "set_deadline": tournament_table[2] if tournament_table and not stopped else None,
        # The board's teams from the viewer's seat (a spectator: South's side).
        "board_teams": _board_teams(viewer.seat, viewer.seats),
        # Guests' names start with it: the felt draws it apart (left out on a phone).
        "guest_prefix": GUEST_PREFIX,
        # A casual table everyone left: its game ended where it stood (actions.leave).
        "abandoned": stopped and not tournament_table and not hasattr(game, "tournament_entry"),
        # A tournament's table stopped where it stood (the tournament closed mid-set).
        "table_stopped": stopped and bool(tournament_table),
    }
    return render(request, "game/table.html", context, status=status)


def _board_teams(seat: int | None, seats) -> dict[str, str]:
    """The partner and the two opponents of `seat` (the board's US and THEM), by the
    names the felt shows: a person's name, else the direction; None: a spectator, who
    sees South and North as US."""
    names = [
        s.user.get_username() if s.user_id else str(SEAT_NAMES[s.index])
        for s in sorted(seats, key=lambda s: s.index)
    ]
    me = 0 if seat is None else seat
    return {
        "me": names[me],
        "partner": names[(me + 2) % 4],
        "left": names[(me + 1) % 4],
        "right": names[(me + 3) % 4],
    }


def record(request: HttpRequest, game_id) -> HttpResponse:
    game = _owned(request, game_id)  # a seated person's
    if game.status != Game.Status.FINISHED:
        # A record names the seed and every hand: the owner sees it once the game is over.
        raise Http404("the record is available when the game is over")
    if is_seed_sealed(game):
        # A record names the seed; a running tournament's seed reveals every hand.
        raise Http404("the record is available when the tournament closes")
    response = HttpResponse(actions.record_text(game), content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="manillen-{game.public_id}.txt"'
    return response


# Seat names as the table says them (the viewer's own seat is "You").
SEAT_NAMES = (_lazy("South"), _lazy("West"), _lazy("North"), _lazy("East"))


def card_name(card: str) -> str:
    """A card's name for screen readers in the active language ("queen of hearts",
    "harten vrouw", "dame de cœur"): the engine's names (Card.name), which the table's
    script says too (templates/game/table.html, static/js/table/cards.js spokenName)."""
    lang = (get_language() or "nl").split("-")[0]
    return engine.Card.parse(card).name(lang if lang in engine.cards.RANK_NAMES else "nl")


def _seat_name(seat: int, me: int):
    return _lazy("You") if seat == me else SEAT_NAMES[seat]


def replay(request: HttpRequest, game_id) -> HttpResponse:
    """A seated person's finished game, one trick at a time (?step=N), as they saw it from
    their own seat: their hand and the cards played, nothing hidden (so a tournament game
    too, once over)."""
    try:
        viewer = actions.get_viewer(game_id, request.user)
    except actions.GameNotFound:
        raise Http404("no such game") from None
    if viewer.seat is None:
        raise Http404("no such game")
    game, me = viewer.game, viewer.seat
    if game.status != Game.Status.FINISHED:
        raise Http404("a game can be stepped through once it is over")
    steps = review.trick_steps(game.seed, game.rules, list(game.actions), me)
    if not steps:
        raise Http404("this game has no tricks to show")
    try:
        number = int(request.GET.get("step", "1"))
    except ValueError:
        number = 1
    number = min(max(number, 1), len(steps))
    step = steps[number - 1]
    trump = None if step.no_trump else step.trump
    mine = next((c for seat, c in step.cards if seat == me), None)
    context = {
        "game": game,
        "step": step,
        "number": number,
        "total": len(steps),
        "trump_face": review.face(f"7{trump}") if trump else None,
        "dealer_name": _seat_name(step.dealer, me),
        "dealer_is_me": step.dealer == me,
        "winner_name": _seat_name(step.winner, me) if step.winner is not None else "",
        "winner_is_me": step.winner == me,
        # After a 30-30: whether the next deal counts double (not in french and malilla,
        # nor with the tie option 'own', nor after the game's last deal).
        "tie_doubles": engine.get_rules(game.rules).tie_doubles_next and number < len(steps),
        "cards": [
            {
                **review.face(c),
                "name": card_name(c),
                "seat": _seat_name(seat, me),
                "won": seat == step.winner,
            }
            for seat, c in step.cards
        ],
        "hand": [
            {**review.face(c), "name": card_name(c), "played": c == mine}
            for c in review.sort_hand(step.hand, trump)
        ],
        "deals": [(s.deal, i + 1) for i, s in enumerate(steps) if s.trick == 1],
        "record_sealed": is_seed_sealed(game),
    }
    return render(request, "game/review.html", context)


def state(request: HttpRequest, game_id) -> JsonResponse:
    try:
        snap = actions.snapshot(game_id, request.user, request.GET.get("code") or None)
    except actions.GameNotFound:
        raise Http404("no such game") from None
    return JsonResponse(snap)


@require_POST
def fast_play(request: HttpRequest, game_id) -> HttpResponse:
    raw = request.POST.get("fast_play")
    value = None if raw is None else raw.lower() in ("1", "true", "on", "yes")
    try:
        game = actions.set_fast_play(game_id, request.user, value)
    except actions.GameNotFound:
        raise Http404("no such game") from None
    if request.headers.get("Accept", "").startswith("application/json"):
        return JsonResponse({"fast_play": game.fast_play})
    return redirect("game", game_id=game.public_id)


def _owned(request: HttpRequest, game_id) -> Game:
    try:
        return actions.get_owned_game(game_id, request.user)
    except actions.GameNotFound:
        raise Http404("no such game") from None


def new_guest(name: str = ""):
    """A guest account (not logged in): "gast-<name>" when a usable name is given (the
    people at a table tell who is who), else "gast-<random>"."""
    user_model = get_user_model()
    user = user_model(username=guest_username(name) or GUEST_PREFIX + secrets.token_hex(6))
    user.set_unusable_password()
    user.save()
    return user


def login_guest(request: HttpRequest, user) -> None:
    login(request, user, backend="django.contrib.auth.backends.ModelBackend")


def _login_guest(request: HttpRequest, name: str = ""):
    """A guest account, logged in (new_guest)."""
    user = new_guest(name)
    login_guest(request, user)
    return user


GUEST_NAME_MAX = 20
_GUEST_NAME = re.compile(r"^[\w.@+-]+$")
_RANDOM_GUEST = re.compile(rf"^{re.escape(GUEST_PREFIX)}[0-9a-f]{{12}}$")


def _guest_name(name: str) -> str:
    """A typed name as it would be used: spaces become "-", at most GUEST_NAME_MAX."""
    return "-".join((name or "").split())[:GUEST_NAME_MAX]


def guest_username(name: str) -> str:
    """ "gast-<name>" for a name a guest chose (letters, digits and . @ + - _; spaces
    become "-"), with "-2", "-3", ... if taken; "" for no usable name."""
    name = _guest_name(name)
    if not name or guest_name_problem(name):
        return ""
    users = get_user_model().objects
    base = GUEST_PREFIX + name
    candidate, n = base, 1
    while users.filter(username__iexact=candidate).exists():
        n += 1
        candidate = f"{base}-{n}"
    return candidate


def guest_name_problem(name: str) -> str:
    """Why a name a guest typed cannot be used ("" when it can, or when none was typed),
    said on the form rather than swapped for a random name behind the guest's back."""
    name = _guest_name(name)
    if not name:
        return ""
    if name.lower().startswith((GUEST_PREFIX, ANONYMOUS_PREFIX)):
        return _("A name at the table may not start with “%(prefix)s” or “%(other)s”.") % {
            "prefix": GUEST_PREFIX,
            "other": ANONYMOUS_PREFIX,
        }
    if not _GUEST_NAME.match(name):
        return _("A name at the table holds letters, digits, spaces and . @ + - _ only.")
    return ""


def is_random_guest(user) -> bool:
    return bool(_RANDOM_GUEST.match(user.get_username())) and not user.has_usable_password()


def name_guest(user, name: str) -> None:
    """A guest still under a random name takes the name chosen (nothing else changes)."""
    if not is_random_guest(user):
        return
    username = guest_username(name)
    if username:
        user.username = username
        user.save(update_fields=["username"])
