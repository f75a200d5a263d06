"""Password reset end to end (request → e-mail with a link → new password → log in), the
password change for a logged-in player, and the e-mail settings read from the environment."""

from __future__ import annotations

import re
import runpy

import pytest
from django.core import mail
from django.core.exceptions import ImproperlyConfigured

from tests.helpers import ROOT

pytestmark = pytest.mark.usefixtures("live_game_db")

OLD, NEW = "klaver-manille-77", "nieuwe-troef-harten-9"
LINK = re.compile(r"https?://testserver(/accounts/reset/[^/\s]+/[^/\s]+/)")


@pytest.fixture(autouse=True)
def quick_and_unlimited(settings):
    settings.PASSWORD_RESET_RATE_LIMIT = 0  # the limiter has its own test
    settings.LOGIN_RATE_LIMIT = 0


@pytest.fixture
def client(client, settings):
    # English pages and mail: the assertions read texts, whatever the Dutch catalogue says.
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    return client


@pytest.fixture
def mieke(django_user_model):
    return django_user_model.objects.create_user("mieke", "mieke@example.org", OLD)


def _logs_in(client_class, username: str, password: str) -> bool:
    other = client_class()
    response = other.post("/accounts/login/", {"username": username, "password": password})
    return response.status_code == 302 and other.session.get("_auth_user_id") is not None


def _request_reset(client, email: str):
    return client.post("/accounts/password_reset/", {"email": email})


def test_login_page_links_to_the_reset_form(client):
    body = client.get("/accounts/login/").content.decode()
    assert 'href="/accounts/password_reset/"' in body
    form = client.get("/accounts/password_reset/")
    assert form.status_code == 200
    page = form.content.decode()
    assert 'name="email"' in page and 'class="site-header"' in page  # the site's layout


def test_the_whole_reset_flow(client, mieke):
    response = _request_reset(client, "Mieke@Example.org")
    assert response.status_code == 302 and response["Location"] == "/accounts/password_reset/done/"
    done = client.get(response["Location"])
    assert done.status_code == 200 and "Check your e-mail" in done.content.decode()

    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["mieke@example.org"]
    assert "Manillen" in message.subject and "\n" not in message.subject
    assert "mieke" in message.body  # the username, in case it was forgotten too
    link = LINK.search(message.body).group(1)

    # The link redirects to a token-free URL (the token moves into the session).
    response = client.get(link)
    assert response.status_code == 302
    form_url = response["Location"]
    assert form_url.endswith("/set-password/")
    page = client.get(form_url)
    assert page.status_code == 200 and 'name="new_password1"' in page.content.decode()

    response = client.post(form_url, {"new_password1": NEW, "new_password2": NEW})
    assert response.status_code == 302 and response["Location"] == "/accounts/reset/done/"
    assert "Log in" in client.get(response["Location"]).content.decode()

    assert _logs_in(client.__class__, "mieke", NEW)
    assert not _logs_in(client.__class__, "mieke", OLD)

    # A used link is dead.
    again = client.get(link, follow=True)
    assert "This link no longer works" in again.content.decode()


def test_mismatched_or_weak_new_password_is_refused(client, mieke):
    _request_reset(client, "mieke@example.org")
    form_url = client.get(LINK.search(mail.outbox[0].body).group(1))["Location"]
    response = client.post(form_url, {"new_password1": NEW, "new_password2": NEW + "x"})
    assert response.status_code == 200 and "errorlist" in response.content.decode()
    response = client.post(form_url, {"new_password1": "12345678", "new_password2": "12345678"})
    assert response.status_code == 200
    mieke.refresh_from_db()
    assert mieke.check_password(OLD)


def test_an_unknown_address_gets_the_same_answer_and_no_mail(client, mieke):
    response = _request_reset(client, "nobody@example.org")
    assert response.status_code == 302 and response["Location"] == "/accounts/password_reset/done/"
    assert mail.outbox == []


def test_guests_get_no_reset_mail(client, django_user_model):
    guest = django_user_model.objects.create_user("gast-x1", "gast@example.org")
    guest.set_unusable_password()
    guest.save()
    _request_reset(client, "gast@example.org")
    assert mail.outbox == []


def test_a_tampered_link_is_refused(client, mieke):
    _request_reset(client, "mieke@example.org")
    link = LINK.search(mail.outbox[0].body).group(1)
    bad = re.sub(r"/([^/]+)/$", "/0-0000000000000000000000000000000/", link)
    body = client.get(bad, follow=True).content.decode()
    assert "This link no longer works" in body
    mieke.refresh_from_db()
    assert mieke.check_password(OLD)


def test_reset_requests_are_rate_limited(client, mieke, settings):
    # Counts live in the cache (Redis on the production stack, with a per-run prefix);
    # an address of its own keeps this test's counts apart from any other test's.
    settings.PASSWORD_RESET_RATE_LIMIT = 2
    addr = {"REMOTE_ADDR": "198.51.100.7"}
    for _ in range(2):
        response = client.post("/accounts/password_reset/", {"email": "mieke@example.org"}, **addr)
        assert response.status_code == 302
    response = client.post("/accounts/password_reset/", {"email": "mieke@example.org"}, **addr)
    assert response.status_code == 429 and "Too many" in response.content.decode()
    assert len(mail.outbox) == 2  # the refused request sent nothing
    # Per e-mail address too: another client address asking for mieke is refused.
    other = client.post(
        "/accounts/password_reset/", {"email": "MIEKE@example.org"}, REMOTE_ADDR="203.0.113.9"
    )
    assert other.status_code == 429 and len(mail.outbox) == 2


def test_a_logged_in_player_changes_the_password(client, mieke):
    client.force_login(mieke)
    page = client.get("/accounts/password_change/")
    assert page.status_code == 200 and 'name="old_password"' in page.content.decode()
    wrong = client.post(
        "/accounts/password_change/",
        {"old_password": "not-it", "new_password1": NEW, "new_password2": NEW},
    )
    assert wrong.status_code == 200
    response = client.post(
        "/accounts/password_change/",
        {"old_password": OLD, "new_password1": NEW, "new_password2": NEW},
    )
    assert response.status_code == 302 and response["Location"] == "/accounts/password_change/done/"
    assert client.get("/accounts/profile/").status_code == 200  # still logged in
    assert _logs_in(client.__class__, "mieke", NEW)
    assert not _logs_in(client.__class__, "mieke", OLD)


# --- e-mail settings --------------------------------------------------------------------------

EMAIL_ENV = [
    "EMAIL_BACKEND", "EMAIL_HOST", "EMAIL_PORT", "EMAIL_HOST_USER", "EMAIL_HOST_PASSWORD",
    "EMAIL_USE_TLS", "EMAIL_USE_SSL", "EMAIL_TIMEOUT", "DEFAULT_FROM_EMAIL", "DEBUG",
    "SECRET_KEY", "ALLOWED_HOSTS", "DATABASE_URL", "REDIS_URL",
]  # fmt: skip


def _settings(monkeypatch, **env) -> dict:
    for name in EMAIL_ENV:
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return runpy.run_path(str(ROOT / "config" / "settings.py"))


def test_embedded_mode_prints_mail_on_the_console(monkeypatch):
    s = _settings(monkeypatch)
    assert s["EMAIL_BACKEND"] == "django.core.mail.backends.console.EmailBackend"


def test_smtp_comes_from_the_environment(monkeypatch):
    s = _settings(
        monkeypatch, DEBUG="0", SECRET_KEY="k" * 60, ALLOWED_HOSTS="manillen.example.org",
        EMAIL_HOST="smtp.example.org", EMAIL_HOST_USER="manillen", EMAIL_HOST_PASSWORD="geheim",
        DEFAULT_FROM_EMAIL="Manillen <noreply@manillen.example.org>",
    )  # fmt: skip
    assert s["EMAIL_BACKEND"] == "django.core.mail.backends.smtp.EmailBackend"
    assert (s["EMAIL_HOST"], s["EMAIL_PORT"], s["EMAIL_USE_TLS"], s["EMAIL_USE_SSL"]) == (
        "smtp.example.org", 587, True, False,
    )  # fmt: skip
    assert (s["EMAIL_HOST_USER"], s["EMAIL_HOST_PASSWORD"]) == ("manillen", "geheim")
    assert s["DEFAULT_FROM_EMAIL"] == "Manillen <noreply@manillen.example.org>"
    ssl = _settings(monkeypatch, EMAIL_HOST="smtp.example.org", EMAIL_USE_SSL="1")
    assert (ssl["EMAIL_PORT"], ssl["EMAIL_USE_TLS"], ssl["EMAIL_USE_SSL"]) == (465, False, True)


@pytest.mark.parametrize(
    "env",
    [
        {"EMAIL_BACKEND": "pigeon"},
        {"EMAIL_BACKEND": "smtp"},  # no EMAIL_HOST
        {"EMAIL_HOST": "smtp.example.org", "EMAIL_USE_SSL": "1", "EMAIL_USE_TLS": "1"},
        {"EMAIL_HOST": "smtp.example.org", "EMAIL_PORT": "twenty-five"},
    ],
    ids=["unknown-backend", "smtp-without-host", "ssl-and-tls", "bad-port"],
)
def test_bad_mail_settings_fail_loudly(monkeypatch, env):
    with pytest.raises(ImproperlyConfigured):
        _settings(monkeypatch, **env)


# --- the e-mail address a reset goes to ---------------------------------------------------------


def test_a_player_without_an_address_adds_one_on_the_profile_and_can_reset(
    client, django_user_model
):
    jef = django_user_model.objects.create_user("jef", "", OLD)
    client.force_login(jef)
    page = client.get("/accounts/profile/").content.decode()
    assert 'action="/accounts/profile/email/"' in page
    wrong = client.post("/accounts/profile/email/", {"email": "jef@example.org", "password": "x"})
    assert wrong.status_code == 400 and "not your current password" in wrong.content.decode()
    jef.refresh_from_db()
    assert jef.email == ""
    response = client.post(
        "/accounts/profile/email/", {"email": "jef@example.org", "password": OLD}
    )
    assert response.status_code == 302 and response["Location"] == "/accounts/profile/"
    assert "Your e-mail address is saved." in client.get("/accounts/profile/").content.decode()
    jef.refresh_from_db()
    assert jef.email == "jef@example.org"

    client.logout()
    _request_reset(client, "jef@example.org")
    assert len(mail.outbox) == 1 and mail.outbox[0].to == ["jef@example.org"]


def test_the_email_form_refuses_another_accounts_address(client, django_user_model):
    django_user_model.objects.create_user("mieke", "mieke@example.org", OLD)
    jef = django_user_model.objects.create_user("jef", "jef@example.org", OLD)
    client.force_login(jef)
    taken = client.post("/accounts/profile/email/", {"email": "Mieke@Example.org", "password": OLD})
    assert taken.status_code == 400
    assert "Another account already uses this e-mail address." in taken.content.decode()
    jef.refresh_from_db()
    assert jef.email == "jef@example.org"
    # Its own address again (another case) is fine.
    same = client.post("/accounts/profile/email/", {"email": "JEF@example.org", "password": OLD})
    assert same.status_code == 302


def test_the_email_form_counts_wrong_passwords_like_logins(client, django_user_model, settings):
    # A user and an address of their own: failed-login counts of other tests stay apart.
    rosa = django_user_model.objects.create_user("rosa-limiet", "rosa@example.org", OLD)
    settings.LOGIN_RATE_LIMIT = 2
    client.force_login(rosa)
    addr = {"REMOTE_ADDR": "198.51.100.23"}
    for _ in range(2):
        data = {"email": "evil@example.org", "password": "guess"}
        assert client.post("/accounts/profile/email/", data, **addr).status_code == 400
    data = {"email": "evil@example.org", "password": OLD}
    assert client.post("/accounts/profile/email/", data, **addr).status_code == 429
    rosa.refresh_from_db()
    assert rosa.email == "rosa@example.org"


def test_the_email_form_is_no_way_to_test_addresses(client, django_user_model, settings):
    """'Another account uses this address' is an answer the reset never gives: each one
    costs like a wrong password, so an account cannot test a list of addresses (sign-up
    spends its own budget the same way)."""
    for k in range(3):
        django_user_model.objects.create_user(f"bezet{k}", f"bezet{k}@example.org", OLD)
    tom = django_user_model.objects.create_user("tom-lijst", "tom@example.org", OLD)
    settings.LOGIN_RATE_LIMIT = 2
    client.force_login(tom)
    addr = {"REMOTE_ADDR": "198.51.100.24"}
    for k in range(2):
        data = {"email": f"bezet{k}@example.org", "password": OLD}
        assert client.post("/accounts/profile/email/", data, **addr).status_code == 400
    data = {"email": "bezet2@example.org", "password": OLD}
    refused = client.post("/accounts/profile/email/", data, **addr)
    assert refused.status_code == 429
    assert "Another account already uses" not in refused.content.decode()


def test_the_email_form_is_post_only_and_for_logged_in_players(client, mieke):
    response = client.post("/accounts/profile/email/", {"email": "x@example.org", "password": OLD})
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
    client.force_login(mieke)
    # A GET (the log-in's `next` after the session ran out) goes to the profile.
    assert client.get("/accounts/profile/email/")["Location"] == "/accounts/profile/"


def test_the_account_forms_refuse_posts_without_a_csrf_token(mieke):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    assert (
        client.post("/accounts/password_reset/", {"email": "mieke@example.org"}).status_code == 403
    )
    client.force_login(mieke)
    data = {"email": "evil@example.org", "password": OLD}
    assert client.post("/accounts/profile/email/", data).status_code == 403
    data = {"old_password": OLD, "new_password1": NEW, "new_password2": NEW}
    assert client.post("/accounts/password_change/", data).status_code == 403
    mieke.refresh_from_db()
    assert mieke.email == "mieke@example.org" and mieke.check_password(OLD)
    assert mail.outbox == []
