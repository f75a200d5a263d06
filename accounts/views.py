"""Sign-up, profiles, and the rate-limited password reset.

Sign-up: a new account, or a guest (from /play/) claiming the account it plays with.

A guest is a user with an unusable password (game/views.py); tournaments refuse them.
Claiming sets a username and password on that same user, so its games stay its own and
it is a guest no longer. Sign-ups are rate-limited per client address, like logins.

Password reset is Django's (django.contrib.auth.urls), with its request form limited per
client address and per e-mail address.

The profile also downloads the player's data and deletes the account (accounts/actions.py:
made anonymous, the results stay); /privacy/ says what is kept.
"""

from __future__ import annotations

import hashlib
import json
from functools import wraps

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import authenticate, get_user_model, login
from django.contrib.auth import logout as auth_logout
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import LogoutView, PasswordResetView
from django.core.cache import cache
from django.core.paginator import Paginator
from django.db import IntegrityError
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseNotAllowed
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.text import capfirst
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_protect
from django.views.decorators.debug import sensitive_post_parameters
from django.views.decorators.http import require_http_methods, require_safe

from game import actions as game_actions
from game.models import Game
from ops import ratelimit
from ops.ratelimit import client_address
from tournaments.actions import TournamentError, ratings_hidden_from
from tournaments.models import Rating, RatingChange

from . import actions, history
from .forms import EmailForm, PasswordConfirmForm, SignupForm, save_with_unused_email


def is_guest(user) -> bool:
    return bool(user and user.is_authenticated and not user.has_usable_password())


def _redirect_target(request: HttpRequest) -> str:
    target = request.POST.get("next") or request.GET.get("next") or ""
    if target and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return ""


def _limit_key(request: HttpRequest) -> str:
    return f"signup:ip:{client_address(request)}"


def _blocked(request: HttpRequest) -> bool:
    limit = settings.SIGNUP_RATE_LIMIT
    return limit > 0 and (cache.get(_limit_key(request)) or 0) >= limit


def _count(request: HttpRequest) -> None:
    if settings.SIGNUP_RATE_LIMIT <= 0:  # no limit: nothing to count against it
        return
    key, window = _limit_key(request), settings.SIGNUP_RATE_WINDOW
    if not cache.add(key, 1, timeout=window):
        try:
            cache.incr(key)
        except ValueError:  # expired between add and incr
            cache.add(key, 1, timeout=window)


@sensitive_post_parameters("password1", "password2")
@csrf_protect
@never_cache
@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    next_url = _redirect_target(request)
    guest = is_guest(request.user)
    if request.user.is_authenticated and not guest:
        return redirect(next_url or "home")
    # A fresh copy: an invalid form must not leave its values on request.user.
    instance = get_user_model().objects.get(pk=request.user.pk) if guest else None
    initial = {"username": ""}  # not the guest's "gast-…" name
    status = 200
    if request.method == "POST":
        form = SignupForm(request.POST, instance=instance)
        if _blocked(request):
            form = SignupForm(instance=instance, initial=initial)
            form.cleaned_data = {}
            form.add_error(None, _("Too many new accounts from your address. Try again later."))
            status = 429
        elif form.is_valid():
            _count(request)
            user = _save_signup(request, form)
            if user is not None:
                login(request, user, backend="django.contrib.auth.backends.ModelBackend")
                return redirect(next_url or "home")
        elif form.has_error("email", code="email_in_use"):
            # "This address has an account" answers a question the password reset
            # never does: each such answer uses up the address's sign-up budget, so
            # nobody can test a list of addresses.
            _count(request)
    else:
        form = SignupForm(instance=instance, initial=initial)
    context = {"form": form, "next": next_url, "claiming": guest}
    return render(request, "registration/signup.html", context, status=status)


def _save_signup(request: HttpRequest, form: SignupForm):
    """The new account, or None with the form's errors (the name or the e-mail address
    taken meanwhile, in any case, by a sign-up at the same moment). A double tap on a
    slow phone sends the same sign-up twice: the second finds the account the first
    made, with this very password, and is that account instead of a refusal."""
    saved: list = []
    username = form.cleaned_data.get("username", "")
    try:
        ok = save_with_unused_email(
            form, form.instance.pk, lambda: saved.append(form.save()), username=username
        )
    except IntegrityError:  # the very name, taken between the check and the save
        user_model = get_user_model()
        form.add_error("username", user_model().unique_error_message(user_model, ("username",)))
        ok = False
    if ok:
        return saved[0]
    if form.has_error("username"):
        same = authenticate(request, username=username, password=form.cleaned_data["password1"])
        if same is not None:
            return same
    return None


# --- logging out ---------------------------------------------------------------------------

_django_logout = LogoutView.as_view()


@csrf_protect
@never_cache
@require_http_methods(["GET", "POST"])
def logout(request: HttpRequest) -> HttpResponse:
    """Django's logout, with a question first for a guest: a guest cannot log back in, so
    logging out loses its games, the one in progress too. The page offers to keep them
    by making an account (sign-up turns the guest into an account) or to log out anyway
    (POST confirm=1). Accounts, and a guest without a game, log out at once; a GET asks
    nothing of an account."""
    guest = is_guest(request.user)
    games = Game.objects.filter(owner=request.user) if guest else Game.objects.none()
    if request.method == "POST" and (
        not guest or request.POST.get("confirm") or not games.exists()
    ):
        return _django_logout(request)
    if not guest:
        return redirect("home")
    in_progress = games.filter(status=Game.Status.ACTIVE).first()
    back = reverse("game", args=[in_progress.public_id]) if in_progress else reverse("home")
    context = {"in_progress": in_progress, "back": back}
    return render(request, "registration/guest_logout.html", context)


# --- profiles -------------------------------------------------------------------------------

HISTORY_PAGE = 25


RATING_HISTORY = 10  # tournaments shown under a player's rating


def _history_context(request: HttpRequest, player, *, own: bool) -> dict:
    entries = history.entries_of(player, own=own, viewer=request.user)
    pages = {}
    for key, qs in (
        ("tournaments", entries.filter(tournament__day__isnull=True)),
        ("days", entries.filter(tournament__day__isnull=False)),
    ):
        page = Paginator(qs, HISTORY_PAGE).get_page(request.GET.get(f"{key}_page"))
        page.rows = history.rows(list(page.object_list), request.user, own=own)
        pages[key] = page
    return {
        "player": player,
        "own": own,
        "tournaments_page": pages["tournaments"],
        "days_page": pages["days"],
        "summary": history.summary(player, own=own, viewer=request.user),
        "table_games": game_actions.table_games_of(player, own=own),
        **_rating_context(request, player),
    }


def _rating_context(request: HttpRequest, player) -> dict:
    """The player's rating and what the last tournaments did to it, for a viewer who may
    see the results of every tournament it counts (else it would tell them: not shown);
    the tournaments listed are those too."""
    rating = Rating.objects.filter(player=player, events__gt=0).first()
    changes = []
    hidden = (
        rating is not None
        and player != request.user
        and ratings_hidden_from(request.user).filter(player=player).exists()
    )
    if hidden:  # it counts a tournament the viewer may not see the results of
        return {"rating": None, "rating_hidden": True, "rating_changes": []}
    if rating is not None:  # not hidden: every tournament it counts is one they may see
        mine = RatingChange.objects.filter(player=player)
        changes = list(mine.select_related("tournament")[:RATING_HISTORY])
    return {"rating": rating, "rating_changes": changes}


@login_required
@require_safe
def profile(request: HttpRequest) -> HttpResponse:
    """The logged-in player's own history: every entry, results where the rules allow."""
    return _own_profile(request)


def _own_profile(
    request: HttpRequest,
    email_form: EmailForm | None = None,
    delete_form: PasswordConfirmForm | None = None,
    status: int = 200,
):
    context = _history_context(request, request.user, own=True)
    context["guest"] = guest = is_guest(request.user)
    if not guest:
        context["email_form"] = email_form or EmailForm(
            request.user, initial={"email": request.user.email}
        )
        context["delete_form"] = delete_form or PasswordConfirmForm(
            request.user, auto_id="id_delete_%s"
        )
        context["delete_blockers"] = actions.blockers(request.user)
        # What deleting also does (a club run alone goes, or is closed): told at the form.
        context["delete_notices"] = actions.notices(request.user)
        context["delete_notices_seen"] = _notices_digest(actions.notices_key(request.user))
    return render(request, "accounts/profile.html", context, status=status)


def _password_confirmed(request: HttpRequest, form_class, **kwargs):
    """(the bound form, None) when the current password is right; (the form with its
    error, 400 or 429) when it is wrong or checks are rate-limited (a password check is
    a login attempt)."""
    username = request.user.get_username()
    wait = ratelimit.login_blocked(request, username)
    if wait:
        form = form_class(request.user, **kwargs)
        form.cleaned_data = {}
        form.add_error(None, ratelimit.wait_message(wait))
        return form, 429
    form = form_class(request.user, request.POST, **kwargs)
    if not form.is_valid():
        # "Another account uses this address" answers what a password reset never says:
        # each such answer costs like a wrong password, so nobody tests a list of
        # addresses from their profile (sign-up spends its own budget the same way).
        if "password" in form.errors or form.has_error("email", code="email_in_use"):
            ratelimit.login_failed(request, username)
        return form, 400
    return form, None


def _post_from_profile(view):
    """A form of the profile page: a GET (the log-in page's `next` after a session ran
    out, a bookmark) goes to the profile instead of a bare 405."""

    @wraps(view)
    def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if request.method in ("GET", "HEAD"):
            return redirect("profile")
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        return view(request, *args, **kwargs)

    return wrapped


@sensitive_post_parameters("password")
@login_required
@_post_from_profile
def change_email(request: HttpRequest) -> HttpResponse:
    if is_guest(request.user):  # no password to confirm with: sign up first
        return redirect("signup")
    form, status = _password_confirmed(
        request, EmailForm, initial={"email": request.POST.get("email", "")}
    )
    if status:
        return _own_profile(request, email_form=form, status=status)
    user = get_user_model().objects.get(pk=request.user.pk)
    user.email = form.cleaned_data["email"]
    if not save_with_unused_email(form, user.pk, lambda: user.save(update_fields=["email"])):
        return _own_profile(request, email_form=form, status=400)
    messages.success(request, _("Your e-mail address is saved."))
    return redirect("profile")


# The session's record of what deleting the account was told to do besides
# (actions.notices_key), so that the next confirmation goes ahead.
DELETE_NOTICES_KEY = "delete_account_notices"


def _notices_digest(told: list[list]) -> str:
    """What the profile's deletion form showed (`actions.notices_key`), sent back with
    it: a send from a form that showed the notices of today needs no second password."""
    return hashlib.sha256(json.dumps(told).encode()).hexdigest()[:16] if told else ""


@sensitive_post_parameters("password")
@login_required
@_post_from_profile
def delete_account(request: HttpRequest) -> HttpResponse:
    """Delete (make anonymous) the logged-in account, confirmed with its password; what
    stands in the way is said at the form (accounts/actions.py). What the deletion does
    besides (a club run alone removed or closed, `actions.notices`) is told first: the
    profile's form shows it beside the password (and sends back what it showed), else
    the first confirmation shows it and the password given again goes ahead; either
    way, notices that changed in between are told again."""
    if is_guest(request.user):  # a guest has nothing to confirm with; logging out ends it
        return redirect("profile")
    form, status = _password_confirmed(request, PasswordConfirmForm, auto_id="id_delete_%s")
    if not status:
        told = actions.notices_key(request.user)
        shown = request.POST.get("notices_seen") == _notices_digest(told)
        if told and not shown and request.session.get(DELETE_NOTICES_KEY) != told:
            request.session[DELETE_NOTICES_KEY] = told
            for notice in actions.notices(request.user):
                form.add_error(None, notice)
            form.add_error(None, _("Enter your password once more to delete your account."))
            return _own_profile(request, delete_form=form)
        try:
            actions.delete_account(request.user)
        except actions.AccountError as exc:
            form.add_error(None, str(exc))
            status = 409
        except TournamentError as exc:  # e.g. the draw came first: the sign-up stays
            form.add_error(None, capfirst(exc.translated()))
            status = 409
    if status:
        return _own_profile(request, delete_form=form, status=status)
    auth_logout(request)
    return redirect("account-deleted")


@never_cache  # personal: no shared cache keeps a copy
@login_required
@require_safe
def personal_data(request: HttpRequest) -> HttpResponse:
    """The right of access: what the site keeps about the logged-in player, as JSON."""
    data = actions.personal_data(request.user)
    body = json.dumps(data, ensure_ascii=False, indent=1)
    response = HttpResponse(body, content_type="application/json; charset=utf-8")
    name = "".join(
        ch for ch in request.user.get_username() if ch.isascii() and (ch.isalnum() or ch in "-_")
    )
    response["Content-Disposition"] = f'attachment; filename="manillen-{name or "data"}.json"'
    return response


@require_safe
def privacy(request: HttpRequest) -> HttpResponse:
    """What the site keeps and who sees it; the operator names themselves in
    PRIVACY_CONTACT (deploy/README.md)."""
    windows = (
        settings.LOGIN_RATE_WINDOW, settings.SIGNUP_RATE_WINDOW,
        settings.PASSWORD_RESET_RATE_WINDOW, settings.PLAY_RATE_WINDOW,
    )  # fmt: skip
    context = {
        "contact": settings.PRIVACY_CONTACT,
        # How long an address is counted at most, as the operator set the windows.
        "count_minutes": max(1, -(-max(windows) // 60)),
        "chat_minutes": settings.GAME_CHAT_KEEP_MINUTES,
    }
    return render(request, "privacy.html", context)


@require_safe
def account_deleted(request: HttpRequest) -> HttpResponse:
    return render(request, "registration/account_deleted.html")


@require_safe
def player_profile(request: HttpRequest, username: str) -> HttpResponse:
    """What anybody may see of a player: results of closed tournaments only."""
    player = get_object_or_404(get_user_model(), username=username, is_active=True)
    if not player.has_usable_password():  # guests have no public page
        raise Http404("no such player")
    context = _history_context(request, player, own=False)
    context["is_me"] = request.user.is_authenticated and request.user.pk == player.pk
    return render(request, "accounts/profile.html", context)


# --- password reset -------------------------------------------------------------------------


def _reset_keys(request: HttpRequest, email: str) -> list[str]:
    address = hashlib.sha256(email.strip().lower().encode()).hexdigest()[:32]
    return [f"pwreset:ip:{client_address(request)}", f"pwreset:email:{address}"]


class RateLimitedPasswordResetView(PasswordResetView):
    """Django's reset view; an address (or an e-mail address) that asked
    PASSWORD_RESET_RATE_LIMIT times within the window gets 429 and no mail, so the
    form cannot be used to flood somebody's mailbox. Whether the address belongs to an
    account is never told (Django's view answers the same either way)."""

    def post(self, request, *args, **kwargs):
        limit, window = settings.PASSWORD_RESET_RATE_LIMIT, settings.PASSWORD_RESET_RATE_WINDOW
        keys = _reset_keys(request, request.POST.get("email", "")[:254])
        if limit > 0:
            if any(count >= limit for count in cache.get_many(keys).values()):
                form = self.get_form_class()()
                form.cleaned_data = {}
                form.add_error(None, _("Too many reset requests. Try again later."))
                response = self.render_to_response(self.get_context_data(form=form))
                response.status_code = 429
                return response
            for key in keys:
                if not cache.add(key, 1, timeout=window):
                    try:
                        cache.incr(key)
                    except ValueError:  # expired between add and incr
                        cache.add(key, 1, timeout=window)
        return super().post(request, *args, **kwargs)
