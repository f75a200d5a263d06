from __future__ import annotations

from django import forms
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

import engine
from engine.records import is_one_line
from engine.rules import MAX_FIXED_DEALS
from game.levels import level_choices

from .models import Club, Tournament
from .templatetags.tournament_tags import rules_choices

# What <input type="datetime-local"> shows and sends back: a form shown again (after an
# error) keeps the window instead of blanking it.
LOCAL_INPUT = "%Y-%m-%dT%H:%M"


def one_line(value: str) -> None:
    """Names and seeds end up in game records, CSV files and page titles: one line of
    text, no line breaks (also U+2028, U+0085, ...), tabs or other control characters."""
    if not is_one_line(value):
        raise forms.ValidationError(
            _("Use one line of text: no line breaks, tabs or other control characters."),
            code="control_characters",
        )


class TournamentForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=120, validators=[one_line])
    club = forms.ModelChoiceField(label=_("Club"), queryset=Club.objects.none(), required=False)
    rules = forms.ChoiceField(label=_("Rules"), choices=())
    deals = forms.IntegerField(
        label=_("Deals per game (empty = to 101)"),
        required=False,
        min_value=1,
        max_value=MAX_FIXED_DEALS,
        help_text=_(
            "Empty: every game goes to 101 (the boom). A number N: every entry plays exactly "
            "the same deals 1 to N; the score is the team's total minus the opponents'."
        ),
        error_messages={
            "min_value": _("A game has at least 1 deal."),
            "max_value": _("A game has at most %(limit_value)s deals."),
        },
    )
    tie_carry = forms.TypedChoiceField(
        label=_("After a tie (30–30)"),
        choices=[
            ("carry", _("the next deal counts double (as the rules say)")),
            ("own", _("each deal stands on its own")),
        ],
        initial="carry",
        required=False,  # not sent: as the rules say
        coerce=lambda v: v == "carry",
        empty_value=True,
    )
    bot_level = forms.ChoiceField(label=_("Bot level"), choices=())
    capacity = forms.IntegerField(label=_("Capacity"), min_value=1, max_value=10000, initial=10)
    starts_at = forms.DateTimeField(
        label=_("Play window start"),
        required=False,
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format=LOCAL_INPUT),
    )
    ends_at = forms.DateTimeField(
        label=_("Play window end"),
        required=False,
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format=LOCAL_INPUT),
    )
    live_start = forms.BooleanField(
        label=_("Live start (everybody begins together)"), required=False
    )
    results_visibility = forms.ChoiceField(
        label=_("Results visible"), choices=Tournament.Visibility.choices
    )
    results_audience = forms.ChoiceField(
        label=_("Who sees the tournament and its results after close"),
        choices=Tournament.Audience.choices,
        initial=Tournament.Audience.MEMBERS,
        required=False,  # not sent: the default (a club's members)
        help_text=_("A tournament without a club is public."),
    )
    unfinished_rule = forms.ChoiceField(
        label=_("Unfinished games at close"), choices=Tournament.Unfinished.choices
    )
    ranking = forms.ChoiceField(
        label=_("Ranking"),
        choices=Tournament.Ranking.choices,
        initial=Tournament.Ranking.SCORE,
        required=False,  # not sent: by score, the default
        help_text=_(
            "By score, as at the table (a game to 101). By matchpoint percentage: fair "
            "when entries play different numbers of deals."
        ),
    )
    invite_code = forms.CharField(label=_("Invite code (optional)"), max_length=32, required=False)
    seed = forms.CharField(
        label=_("Seed (empty = random)"),
        max_length=100,
        required=False,
        validators=[one_line],
        help_text=_(
            "Secret until the tournament closes; only its commitment is published. "
            "Whoever gives the seed knows every deal and cannot take part."
        ),
    )
    open_now = forms.BooleanField(label=_("Open now"), required=False, initial=True)

    def __init__(self, *args, user=None, club_slug: str = "", **kwargs):
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)
        self.fields["rules"].choices = rules_choices(engine.PRESETS)
        # The levels a player picks on the home page, by the same names (not the
        # engine's aliases or its test-only random bot).
        self.fields["bot_level"].choices = level_choices()
        self.fields["bot_level"].initial = "heuristic"
        # The window is read in the site's time zone: say which, next to the fields.
        zone = _("Time zone: %(zone)s (%(abbreviation)s)") % {
            "zone": timezone.get_current_timezone_name(),
            "abbreviation": timezone.localtime().strftime("%Z"),
        }
        for name in ("starts_at", "ends_at"):
            self.fields[name].help_text = zone
        club = self.fields["club"]
        if user is not None and user.is_authenticated:
            club.queryset = Club.objects.filter(organizers=user)
        club.required = not (user is not None and user.is_staff)
        if club.required:
            club.empty_label = None  # an organizer's tournament is always in one of their clubs
        if club_slug:  # "New tournament" on a club's page
            club.initial = club.queryset.filter(slug=club_slug).first()

    def clean_ranking(self) -> str:
        return self.cleaned_data.get("ranking") or Tournament.Ranking.SCORE

    def clean(self):
        data = super().clean()
        start, end = data.get("starts_at"), data.get("ends_at")
        if start and end and end <= start:
            raise forms.ValidationError(_("The play window ends before it starts."))
        if end and end <= timezone.now():
            # Entirely in the past: a tournament nobody could ever play.
            self.add_error(
                "ends_at", _("The play window would be over already: choose an end in the future.")
            )
        return data


class ClubForm(forms.Form):
    name = forms.CharField(label=_("Club name"), max_length=100, validators=[one_line])

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)


class JoinClubForm(forms.Form):
    code = forms.CharField(label=_("Invite code"), max_length=32)

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)


class CorrectionForm(forms.Form):
    score = forms.IntegerField(label=_("New score"))
    reason = forms.CharField(label=_("Reason"), max_length=500)


class RemovalForm(forms.Form):
    reason = forms.CharField(label=_("Reason"), max_length=500)
