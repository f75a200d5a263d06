"""The sign-up form (Django's UserCreationForm plus an optional e-mail address) and the
e-mail address form of the profile."""

from __future__ import annotations

import hashlib

from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import UserCreationForm
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext_lazy

# Django 5.2's MinimumLengthValidator asks for this wording, which Django's own Dutch
# catalogue lacks (it has an older one): marked here so that ours carries it.
PASSWORD_TOO_SHORT = ngettext_lazy(
    "This password is too short. It must contain at least %d character.",
    "This password is too short. It must contain at least %d characters.",
)

# Guest users are named "gast-…" (game/views.py), deleted accounts "anoniem-…"
# (accounts/actions.py); a chosen name must not look like either.
GUEST_PREFIX = "gast-"
ANONYMOUS_PREFIX = "anoniem-"
USERNAME_MAX = 30


def clean_unused_email(email: str, user_pk: int | None) -> str:
    """An address no other account uses (case-insensitively): a password reset mails
    every account with the address, so two accounts on one address could each be
    reset by whoever reads that mailbox. Empty stays allowed (no resets)."""
    email = (email or "").strip()
    if email:
        others = get_user_model().objects.filter(email__iexact=email)
        if user_pk is not None:
            others = others.exclude(pk=user_pk)
        if others.exists():
            raise forms.ValidationError(
                _("Another account already uses this e-mail address."), code="email_in_use"
            )
    return email


def hold(kind: bytes, value: str) -> None:
    """Inside a transaction: hold `value` of `kind` (a name, an e-mail address; any case)
    until it ends, so that two requests saving the same one next to each other check it
    in turn (a check reads no row the other has not committed yet). PostgreSQL's advisory
    lock; SQLite writes one at a time anyway."""
    from django.db import connection

    value = (value or "").strip().lower()
    if not value or connection.vendor != "postgresql":
        return
    digest = hashlib.blake2b(value.encode(), digest_size=8, person=kind).digest()
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_advisory_xact_lock(%s)", [int.from_bytes(digest, "big", signed=True)]
        )


def save_with_unused_email(form, user_pk: int | None, save, *, username: str | None = None):
    """`save()` once the form's e-mail address (and `username`, if given) is known
    unused by any other account, in any case, with both held (hold): False (an error on
    the field, nothing saved) when another account took one meanwhile."""
    from django.db import transaction

    user_model = get_user_model()
    email = form.cleaned_data.get("email") or ""
    with transaction.atomic():
        if username is not None:
            hold(b"signup-name", username)
            others = user_model.objects.filter(username__iexact=username)
            if others.exclude(pk=user_pk).exists():
                message = user_model().unique_error_message(user_model, ("username",))
                form.add_error("username", message)
                return False
        hold(b"signup-email", email)
        try:
            clean_unused_email(email, user_pk)
        except forms.ValidationError as exc:
            form.add_error("email", exc)
            return False
        save()
    return True


class SignupForm(UserCreationForm):
    """Username, password twice, optional e-mail.

    Bound to an existing guest user (``instance=request.user``), saving it turns that
    guest into a real account: same user, so every game it played stays its own.
    """

    email = forms.EmailField(
        label=_("E-mail address (optional)"),
        required=False,
        help_text=_("Only used to help you if you forget your password."),
    )

    class Meta(UserCreationForm.Meta):
        fields = ("username", "email")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # A name fits on a table's seat, a standings line and a phone's header.
        self.fields["username"].max_length = USERNAME_MAX
        self.fields["username"].widget.attrs["maxlength"] = USERNAME_MAX
        # Django's says "150 characters or fewer"; shown under the field, it must be ours.
        self.fields["username"].help_text = _(
            "At most %(max)s characters: letters, digits and @ . + - _ only, and a letter at least."
        ) % {"max": USERNAME_MAX}

    def clean_username(self):
        username = super().clean_username()
        if len(username or "") > USERNAME_MAX:
            raise forms.ValidationError(
                _("A name has at most %(max)s characters."),
                code="max_length",
                params={"max": USERNAME_MAX},
            )
        if username and not username.strip("."):
            # "/players/./" and "/players/../" are paths a browser shortens before asking.
            raise forms.ValidationError(
                _("A name cannot be made of dots only: add a letter or a digit."),
                code="dots_only",
            )
        if username and not any(c.isalpha() for c in username):
            # "007" or "12-3" reads as a number beside the ranks, and a spreadsheet opening
            # the standings turns it into 7 or a date.
            raise forms.ValidationError(_("A name needs at least one letter."), code="no_letter")
        lowered = (username or "").lower()
        if lowered.startswith(GUEST_PREFIX):
            raise forms.ValidationError(
                _("Names beginning with “%(prefix)s” are reserved for guests."),
                code="reserved",
                params={"prefix": GUEST_PREFIX},
            )
        if lowered.startswith(ANONYMOUS_PREFIX):
            raise forms.ValidationError(
                _("Names beginning with “%(prefix)s” are reserved."),
                code="reserved",
                params={"prefix": ANONYMOUS_PREFIX},
            )
        return username

    def clean_email(self):
        return clean_unused_email(self.cleaned_data.get("email"), self.instance.pk)


class PasswordConfirmForm(forms.Form):
    """The current password, asked before something only the account's owner may do:
    whoever borrows an open session cannot do it."""

    password = forms.CharField(
        label=_("Current password"),
        strip=False,
        # The password manager offers the account's own password here.
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )

    def __init__(self, user, *args, **kwargs):
        self.user = user
        super().__init__(*args, **kwargs)

    def clean_password(self):
        password = self.cleaned_data["password"]
        if not self.user.check_password(password):
            raise forms.ValidationError(_("That is not your current password."), code="wrong")
        return password


class EmailForm(PasswordConfirmForm):
    """A new e-mail address (the one a password reset is sent to), confirmed with the
    current password: whoever borrows an open session cannot redirect the resets."""

    email = forms.EmailField(label=_("E-mail address"), required=False)
    field_order = ["email", "password"]

    def clean_email(self):
        return clean_unused_email(self.cleaned_data.get("email"), self.user.pk)
