"""Sign-ups at the same moment: a double tap on a slow phone, two people taking one name
or one e-mail address. The loser is told, nobody meets a server error, and one address
never ends up on two accounts (a password reset would mail both)."""

from __future__ import annotations

import threading

import pytest
from django.contrib.auth import get_user_model
from django.db import transaction

from accounts.forms import SignupForm, save_with_unused_email
from tests.integration.test_signup import PASSWORD, _logged_in_user, _signup
from tests.tournaments.test_edge_cases import (
    needs_postgresql,
    run_in_threads,
    until,
    waiting_on_locks,
)

pytestmark = pytest.mark.usefixtures("live_game_db")


@pytest.fixture(autouse=True)
def unlimited(settings):
    settings.SIGNUP_RATE_LIMIT = 0


@pytest.fixture
def meanwhile(monkeypatch):
    """`meanwhile(**user)`: that account is made right after the form is checked and
    before it is saved, as a sign-up sent at the same moment would."""

    def arrange(**fields):
        original = SignupForm._post_clean

        def post_clean(form):
            original(form)
            get_user_model().objects.create_user(**fields)

        monkeypatch.setattr(SignupForm, "_post_clean", post_clean)

    return arrange


def test_a_double_tap_on_sign_up_logs_in_to_the_account_the_first_tap_made(client, meanwhile):
    meanwhile(username="racer1", password=PASSWORD)
    response = _signup(client, "racer1")
    assert response.status_code == 302
    assert _logged_in_user(client).username == "racer1"
    assert get_user_model().objects.filter(username="racer1").count() == 1


def test_a_name_taken_at_the_same_moment_is_refused_with_a_message(client, meanwhile):
    meanwhile(username="racer1", password="someone-else-99")
    response = _signup(client, "racer1")
    assert response.status_code == 200
    (message,) = response.context["form"].errors["username"]
    assert "gebruikersnaam" in message and message in response.content.decode()
    assert _logged_in_user(client) is None


def test_an_address_taken_at_the_same_moment_is_refused(client, meanwhile):
    meanwhile(username="eerste", email="club@example.org", password="someone-else-99")
    response = _signup(client, "tweede", email="CLUB@example.org")
    assert response.status_code == 200
    (message,) = response.context["form"].errors["email"]
    assert "e-mailadres" in message
    assert not get_user_model().objects.filter(username="tweede").exists()
    assert _logged_in_user(client) is None


@needs_postgresql
def test_two_sign_ups_with_one_address_at_once_make_one_account():
    """The second waits for the first's address (an advisory lock), then finds it taken;
    without the lock each checked before the other committed and both were made."""
    first_saved, outcome = threading.Event(), {}

    def sign_up(name, hold):
        def run():
            form = SignupForm(
                {"username": name, "password1": PASSWORD, "password2": PASSWORD,
                 "email": "samen@example.org"}
            )  # fmt: skip
            assert form.is_valid(), form.errors
            with transaction.atomic():
                ok = save_with_unused_email(form, None, form.save)
                if hold:  # the first keeps its transaction open until the second waits
                    first_saved.set()
                    until(lambda: waiting_on_locks() >= 1)
            outcome[name] = ok

        return run

    def second():
        first_saved.wait(60)
        sign_up("tweede", False)()

    run_in_threads(sign_up("eerste", True), second)
    assert outcome == {"eerste": True, "tweede": False}
    assert get_user_model().objects.filter(email__iexact="samen@example.org").count() == 1


@needs_postgresql
def test_two_sign_ups_of_one_name_in_two_cases_at_once_make_one_account():
    """'jansen' and 'JANSEN' at the same moment: the form checks names in any case, and
    the second waits for the first's name (as for an address), then finds it taken;
    without that both were made (the database's own rule tells case apart)."""
    first_saved, outcome = threading.Event(), {}

    def sign_up(name, hold):
        def run():
            data = {"username": name, "password1": PASSWORD, "password2": PASSWORD}
            form = SignupForm(data)
            assert form.is_valid(), form.errors
            with transaction.atomic():
                ok = save_with_unused_email(form, None, form.save, username=name)
                if hold:
                    first_saved.set()
                    until(lambda: waiting_on_locks() >= 1)
            outcome[name] = (ok, list(form.errors))

        return run

    def second():
        first_saved.wait(60)
        sign_up("JANSEN", False)()

    run_in_threads(sign_up("jansen", True), second)
    assert outcome == {"jansen": (True, []), "JANSEN": (False, ["username"])}
    assert get_user_model().objects.filter(username__iexact="jansen").count() == 1
