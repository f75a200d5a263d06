"""Issue #10 item 28: what read wrong when every page was read in nl, en and fr.

Dates: day-month order in Dutch and French, ISO-like in English (never the American
"12/01/2026 8:29 a.m."); French calls the seed "germe", not "graine"; Dutch password
messages say "je" like the rest of the site, not Django's "Uw"; English does not name
the team with the Dutch "WIJ"; French abbreviations and paired labels agree.
"""

from __future__ import annotations

import datetime as dt
import gettext as gettext_module
import re

import pytest
from django.conf import settings
from django.contrib.auth import password_validation
from django.contrib.auth.forms import PasswordChangeForm
from django.template import Context, Template
from django.utils import timezone, translation
from django.utils.translation import gettext

pytestmark = pytest.mark.django_db

MOMENT = dt.datetime(2026, 1, 12, 8, 29, tzinfo=dt.UTC)  # 09:29 in Brussels
EXPECTED_DATES = {
    "nl": ("12/1/2026 09:29", "12/1/2026"),  # Belgian: config/formats/nl/
    "en": ("2026-01-12 09:29", "2026-01-12"),
    "fr": ("12/01/2026 09:29", "12/01/2026"),
}


def render(text: str, **context) -> str:
    return Template(text).render(Context(context))


@pytest.mark.parametrize("lang", ["nl", "en", "fr"])
def test_dates_read_day_first_or_iso_never_american(lang):
    with translation.override(lang), timezone.override("Europe/Brussels"):
        moment = render('{{ d|date:"SHORT_DATETIME_FORMAT" }}', d=MOMENT)
        day = render('{{ d|date:"SHORT_DATE_FORMAT" }}', d=MOMENT.date())
    assert (moment, day) == EXPECTED_DATES[lang]
    assert "a.m." not in moment and "p.m." not in moment


@pytest.mark.parametrize("lang", ["nl", "en", "fr"])
def test_the_profile_page_shows_the_date_in_the_language_s_order(client, user, lang):
    user.date_joined = MOMENT
    user.save(update_fields=["date_joined"])
    client.force_login(user)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = lang
    page = client.get("/accounts/profile/").content.decode()
    assert EXPECTED_DATES[lang][1] in page
    assert "01/12/2026" not in page or lang == "fr"


def compiled_catalogue(lang: str) -> dict:
    path = settings.LOCALE_PATHS[0] / lang / "LC_MESSAGES" / "django.mo"
    with open(path, "rb") as fh:
        return gettext_module.GNUTranslations(fh)._catalog  # type: ignore[attr-defined]


def test_french_calls_the_seed_germe_and_agrees_with_it():
    texts = [v for v in compiled_catalogue("fr").values() if isinstance(v, str)]
    assert not [t for t in texts if "graine" in t.lower()]
    with translation.override("fr"):
        assert gettext("Seed") == "Germe"
        assert gettext("Revealed seed") == "Germe révélé"
        assert gettext("revealed when the tournament closes").startswith("révélé ")
        assert gettext("The tournament is closed; the seed is revealed.").endswith(
            "le germe est révélé."
        )


def test_dutch_password_messages_say_je_like_the_rest_of_the_site(user):
    formal = re.compile(r"\b[Uu]w?\b")
    with translation.override("nl"):
        texts = list(password_validation.password_validators_help_texts())
        for weak in ("12345678", "password", "south123"):
            try:
                password_validation.validate_password(weak, user)
            except Exception as exc:  # ValidationError with one message per rule broken
                texts += list(exc.messages)
        form = PasswordChangeForm(
            user, {"old_password": "wrong", "new_password1": "x", "new_password2": "x"}
        )
        texts += form.errors["old_password"]
    assert len(texts) >= 6
    assert not [t for t in texts if formal.search(t)], texts
    assert any(t.startswith("Je wachtwoord") for t in texts)


def test_the_dutch_password_change_page_has_no_uw(client, user):
    client.force_login(user)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "nl"
    page = client.get("/accounts/password_change/").content.decode()
    assert "Je wachtwoord moet minstens 8 tekens lang zijn." in page
    assert not re.search(r"\bUw\b", page)
    page = client.post(
        "/accounts/password_change/",
        {"old_password": "wrong", "new_password1": "x", "new_password2": "x"},
    ).content.decode()
    assert "Je oude wachtwoord is niet juist" in page and not re.search(r"\bUw\b", page)


@pytest.mark.parametrize("lang", ["nl", "en", "fr"])
def test_the_traveller_names_the_team_as_the_table_does(lang):
    with translation.override(lang):
        line = gettext("South and North (WIJ) are the entry's team.")
        table_us = gettext("US")  # the table's score label: WIJ, WE, NOUS
    assert f"({table_us})" in line
    if lang != "nl":
        assert "WIJ" not in line


def test_french_abbreviations_and_paired_labels_agree():
    with translation.override("fr"):
        # The narrow column header abbreviates the wide one.
        assert gettext("Written").startswith(gettext("Wr.").rstrip("."))
        # The two "again" fields and the two record downloads say the same thing.
        assert gettext("New password (again)").endswith(gettext("Password (again)").split("(")[1])
        one = gettext("All game records (one file)").split("(")[0]
        assert one == gettext("All game records (zip)").split("(")[0]


def test_french_traveller_note_has_no_plural_after_one():
    with translation.override("fr"):
        text = render(
            "{% load i18n %}{% blocktrans with e=e a=a %}Played by {{ a }} of {{ e }} entries; "
            "matchpoints on card points, 2 per result beaten, 1 per tie, scaled to the whole "
            "field with Neuberg: MP′ = (MP + 1)·E/A − 1.{% endblocktrans %}",
            a=1,
            e=1,
        )
    assert text.startswith("Participants ayant joué cette donne : 1 sur 1 ;")


@pytest.mark.parametrize("choice", ["finished by the bot", "scored as played so far"])
def test_french_close_rule_reads_after_the_plural_label_and_as_an_entry_status(choice):
    # Shown as "Parties inachevées à la clôture : …" and as "terminé (…)" beside an
    # entry: a participle agreeing with one "partie" reads wrong in both places.
    with translation.override("fr"):
        text = gettext(choice)
    assert text != choice
    assert not text.split()[0].endswith(("ée", "ées"))
