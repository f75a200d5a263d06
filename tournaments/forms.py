from __future__ import annotations

from django import forms
from django.utils import timezone
from django.utils.text import capfirst
from django.utils.translation import gettext_lazy as _

import engine
from engine.records import is_one_line
from engine.rules import MAX_FIXED_DEALS
from game.levels import level_choices
from game.models import CLOCK_CHOICES

from .actions import (
    MAX_SET_MINUTES,
    MAX_TABLE_PLAYERS,
    MAX_TABLE_ROUNDS,
    MAX_TABLE_SETS,
    SCORE_LIMIT,
    TABLE_FORMATS,
    TournamentError,
    check_structure,
    window_not_open,
)
from .models import Club, Structure, Tournament
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


# The fields only a solo tournament uses, and those only a tournament of tables uses
# (the page shows them by the format chosen; without script both, each under its title).
SOLO_FIELDS = (
    "deals", "ends_at", "live_start", "results_visibility", "unfinished_rule", "ranking",
)  # fmt: skip
TABLE_FIELDS = (
    "rounds", "sets", "set_deals", "duplicate", "in_room", "cut", "cut_percent", "redraw",
    "clock", "set_minutes", "round_break",
)  # fmt: skip
# A refusal of actions.check_structure names its field; here it sits at this one.
STRUCTURE_FIELDS = {
    "players": "capacity",
    "deals": "set_deals",
    "cut_fraction": "cut_percent",
    "format": "format",
    "rounds": "rounds",
    "sets": "sets",
    "cut": "cut",
    "redraw": "redraw",
    "clock": "clock",
    "set_minutes": "set_minutes",
    "round_break": "round_break",
    "duplicate": "duplicate",
}


def _clock_label(seconds: int) -> str:
    return str(_("off")) if not seconds else f"{seconds} s"


def zone_abbreviations() -> str:
    """The site's time zone by its winter and summer names ("CET/CEST"): a window is
    read at its own date's offset, not today's (a June night is CEST in December)."""
    import datetime as dt

    tz = timezone.get_current_timezone()
    year = timezone.now().year
    names: list[str] = []
    for month in (1, 7):
        name = dt.datetime(year, month, 1, 12, tzinfo=tz).strftime("%Z")
        if name not in names:
            names.append(name)
    return "/".join(names)


class TournamentForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=120, validators=[one_line])
    format = forms.ChoiceField(
        label=_("Format"),
        choices=Tournament.Format.choices,
        initial=Tournament.Format.SOLO_DUPLICATE,
        required=False,  # not sent: solo, as before formats existed
        widget=forms.RadioSelect(attrs={"data-format": ""}),
        help_text=_(
            "Solo: every entry plays the same deals alone against bots, when it suits them. "
            "Tables: rounds of sets at tables of four people (bots fill empty seats), drawn "
            "by the movement: partners rotate within a round, one writer stays and the "
            "others move on, or fixed pairs."
        ),
    )
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
            ("carry", _("as the rules say (flemish: the next deal counts double)")),
            ("own", _("each deal stands on its own")),
        ],
        initial="carry",
        required=False,  # not sent: as the rules say
        coerce=lambda v: v == "carry",
        empty_value=True,
    )
    bot_level = forms.ChoiceField(label=_("Bot level"), choices=())
    capacity = forms.IntegerField(
        label=_("Capacity"), min_value=1, max_value=MAX_TABLE_PLAYERS, initial=10
    )
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
    invite_code = forms.CharField(
        label=_("Invite code (optional)"), max_length=32, required=False, validators=[one_line]
    )
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
    # A tournament of tables (the players are the capacity above).
    rounds = forms.IntegerField(
        label=_("Rounds"),
        required=False,
        initial=1,
        max_value=MAX_TABLE_ROUNDS,
        error_messages={"max_value": _("At most %(limit_value)s rounds.")},
    )
    sets = forms.IntegerField(
        label=_("Sets per round"),
        required=False,
        initial=3,
        max_value=MAX_TABLE_SETS,
        help_text=_("Rotating partners: 3 (or 6, 9): each player partners each other once."),
        error_messages={"max_value": _("At most %(limit_value)s sets per round.")},
    )
    set_deals = forms.IntegerField(
        label=_("Deals per set"),
        required=False,
        initial=8,
        help_text=_("Every set is a game of exactly this many deals, e.g. 8 or 12."),
    )
    duplicate = forms.BooleanField(
        label=_("Duplicate: every table of a set plays the same deals"),
        required=False,
        help_text=_(
            "Then each player also gets a duplicate score: their result against every "
            "other table that held the same cards. Needs two tables (5 players or more). "
            "Choose 'each deal stands on its own' after a tie: otherwise a tie at one "
            "table doubles its next deal there only, and the tables no longer compare "
            "like with like."
        ),
    )
    in_room = forms.BooleanField(
        label=_("In the room with real cards"),
        required=False,
        help_text=_(
            "A club night at real tables: you print the deals, each table plays them with "
            "real cards and enters every deal's result from a phone. No clock, no bots: an "
            "empty seat is a stand-in who does not rank."
        ),
    )
    cut = forms.IntegerField(
        label=_("Cut after each round: the best N go on (optional)"),
        required=False,
        help_text=_("A knockout: empty = everyone plays every round."),
    )
    cut_percent = forms.IntegerField(
        label=_("… or the best percentage goes on (optional)"),
        required=False,
        min_value=1,
        max_value=99,
        error_messages={
            "min_value": _("A percentage of 1 to 99: the part of the field that goes on."),
            "max_value": _("A percentage of 1 to 99: the part of the field that goes on."),
        },
    )
    redraw = forms.ChoiceField(
        label=_("Draw of the next rounds"),
        choices=Structure.Redraw.choices,
        initial=Structure.Redraw.STANDING,
        required=False,
    )
    clock = forms.TypedChoiceField(
        label=_("Clock per move"),
        choices=[(c, c) for c in CLOCK_CHOICES],
        coerce=int,
        initial=0,
        required=False,
        empty_value=0,
    )
    set_minutes = forms.IntegerField(
        label=_("Deadline of a set in minutes (optional)"),
        required=False,
        min_value=1,
        max_value=MAX_SET_MINUTES,
        help_text=_("At the deadline the bots finish the deals still being played."),
        error_messages={
            "min_value": _("A deadline of at least 1 minute, or empty for none."),
            "max_value": _("A deadline of at most %(limit_value)s minutes."),
        },
    )
    round_break = forms.IntegerField(
        label=_("Break between rounds in minutes"),
        required=False,
        initial=0,
        min_value=0,
        max_value=600,
        help_text=_(
            "0: the next round starts as soon as the last table is done; otherwise it starts "
            "after the break (or when you start it), and your organizer's view shows its draw "
            "meanwhile."
        ),
        error_messages={
            "min_value": _("A break of 0 minutes or more."),
            "max_value": _("A break of at most %(limit_value)s minutes."),
        },
    )

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
            "abbreviation": zone_abbreviations(),
        }
        for name in ("starts_at", "ends_at"):
            self.fields[name].help_text = zone
        self.fields["clock"].choices = [(c, _clock_label(c)) for c in CLOCK_CHOICES]
        club = self.fields["club"]
        if user is not None and user.is_authenticated:
            club.queryset = Club.objects.filter(organizers=user)
        club.required = not (user is not None and user.is_staff)
        if club.required:
            club.empty_label = None  # an organizer's tournament is always in one of their clubs
        if club_slug:  # "New tournament" on a club's page
            club.initial = club.queryset.filter(slug=club_slug).first()

    def _bound(self, names) -> list:
        return [self[name] for name in names]

    @property
    def common_fields(self) -> list:
        return self._bound(n for n in self.fields if n not in SOLO_FIELDS and n not in TABLE_FIELDS)

    @property
    def solo_fields(self) -> list:
        return self._bound(SOLO_FIELDS)

    @property
    def table_fields(self) -> list:
        return self._bound(TABLE_FIELDS)

    def clean_ranking(self) -> str:
        return self.cleaned_data.get("ranking") or Tournament.Ranking.SCORE

    def clean_format(self) -> str:
        return self.cleaned_data.get("format") or Tournament.Format.SOLO_DUPLICATE

    def clean(self):
        data = super().clean()
        tables = data.get("format") in TABLE_FORMATS
        # The other format's fields are not used: a slip there (hidden on the page
        # when script runs) does not refuse the tournament.
        for name in SOLO_FIELDS if tables else TABLE_FIELDS:
            self._errors.pop(name, None)
        if tables:
            self._clean_tables(data)
            return data
        start, end = data.get("starts_at"), data.get("ends_at")
        if data.get("live_start") and start is None and "starts_at" not in self.errors:
            self.add_error("starts_at", capfirst(_("a live start needs a start time")))
        if start and end and end <= start:
            # At the end field: its input is marked invalid and names the message.
            self.add_error("ends_at", _("The play window ends before it starts."))
        elif end and end <= timezone.now():
            # Entirely in the past: a tournament nobody could ever play.
            self.add_error(
                "ends_at", _("The play window would be over already: choose an end in the future.")
            )
        return data

    def _clean_tables(self, data: dict) -> None:
        """A tournament of tables: the structure is checked by actions.check_structure
        (the one authority, also for the command line and the start), its refusal put
        at the field it names, in the page's language. A field that failed its own
        check (a number too large, not a number) keeps that message: the structure is
        then not checked (it would read a value the form does not have)."""
        missing = False
        for name in ("rounds", "sets", "set_deals"):
            if data.get(name) is None and name not in self.errors:
                self.add_error(name, self.fields[name].error_messages["required"])
                missing = True
        start = data.get("starts_at")
        if start and start <= timezone.now():
            self.add_error(
                "starts_at",
                _(
                    "The live start would be in the past: choose a time in the future, or "
                    "leave it empty and start the tournament on the organizer's page."
                ),
            )
        if missing or data.get("capacity") is None:
            return
        if any(name in self.errors for name in STRUCTURE_FIELDS.values()):
            return
        percent = data.get("cut_percent")
        data["cut_fraction"] = percent / 100 if percent else None
        try:
            check_structure(
                data["format"],
                data["capacity"],
                rounds=data["rounds"],
                sets=data["sets"],
                deals=data["set_deals"],
                cut=data.get("cut"),
                cut_fraction=data["cut_fraction"],
                in_room=bool(data.get("in_room")),
                clock=data.get("clock") or 0,
                set_minutes=data.get("set_minutes"),
                round_break=data.get("round_break") or 0,
                duplicate=bool(data.get("duplicate")),
            )
        except TournamentError as exc:
            self.add_error(STRUCTURE_FIELDS.get(exc.field or ""), capfirst(exc.translated()))


class EditTournamentForm(forms.Form):
    """What an organizer may change until the tournament closes (actions.edit_tournament):
    the create form's own fields, those that apply to this tournament."""

    def __init__(self, *args, tournament: Tournament, **kwargs):
        kwargs.setdefault("label_suffix", "")
        t = tournament
        names = ["name"]
        if not t.has_tables:
            # The start moves only while the window has not opened (nobody joined yet).
            names += ["capacity", *(["starts_at"] if window_not_open(t) else []), "ends_at"]
        elif not t.rounds.exists():  # the field the draw is made for, until the draw
            names.append("capacity")
        names.append("invite_code")
        if t.club_id:
            names.append("results_audience")
        kwargs.setdefault(
            "initial",
            {
                "name": t.name,
                "capacity": t.capacity,
                "starts_at": timezone.localtime(t.starts_at) if t.starts_at else None,
                "ends_at": timezone.localtime(t.ends_at) if t.ends_at else None,
                "results_audience": t.results_audience,
                "invite_code": t.invite_code,
            },
        )
        super().__init__(*args, **kwargs)
        create = TournamentForm()  # its fields with their labels, widgets and help
        for name in names:
            self.fields[name] = create.fields[name]
        if "ends_at" in self.fields:
            self.fields["ends_at"].help_text = _("Empty: no end. %(zone)s") % {
                "zone": create.fields["ends_at"].help_text
            }
        if "results_audience" in self.fields:
            self.fields["results_audience"].required = True
            self.fields["results_audience"].help_text = ""
        for field in self.fields.values():
            # Each value as the page showed it, sent back hidden: what this organizer
            # changed is told from what another changed meanwhile (edits()).
            field.show_hidden_initial = True

    def edits(self) -> tuple[list[str], list[str]]:
        """The settings this organizer changed (against the form as it was shown), and
        those of them another organizer changed meanwhile to something else: saving the
        whole form would have put back what the page showed. A post without the shown
        values is read against the settings as they are now."""
        changed, meanwhile = [], []
        for name, field in self.fields.items():
            bound = self[name]
            now = self.get_initial_for_field(field, name)
            shown = self.data.get(bound.html_initial_name)
            if shown is None:
                if field.has_changed(now, bound.data):
                    changed.append(name)
            elif name in self.changed_data:  # against the hidden value shown
                changed.append(name)
                if field.has_changed(now, shown) and field.has_changed(now, bound.data):
                    meanwhile.append(name)
        return changed, meanwhile


class ClubForm(forms.Form):
    name = forms.CharField(label=_("Club name"), max_length=100, validators=[one_line])

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)


class SeasonForm(forms.Form):
    """A club's new season: a name and two days within seasons.FIRST_DAY..LAST_DAY (the
    checks of seasons.create_season, each at its field)."""

    name = forms.CharField(
        label=_("Season"), max_length=100, validators=[one_line],
        error_messages={"required": capfirst(_("a season needs a name"))},
    )  # fmt: skip
    starts_on = forms.DateField(
        label=_("First day"),
        widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
        error_messages={"required": capfirst(_("a season needs a first and a last day"))},
    )
    ends_on = forms.DateField(
        label=_("Last day"),
        widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
        error_messages={"required": capfirst(_("a season needs a first and a last day"))},
    )

    def __init__(self, *args, **kwargs):
        from .seasons import FIRST_DAY, LAST_DAY

        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)
        for name in ("starts_on", "ends_on"):  # the date picker offers only these days
            attrs = self.fields[name].widget.attrs
            attrs.update(min=FIRST_DAY.isoformat(), max=LAST_DAY.isoformat())

    def _day(self, name: str):
        from django.utils.formats import date_format

        from .seasons import FIRST_DAY, LAST_DAY

        day = self.cleaned_data.get(name)
        if day is not None and not FIRST_DAY <= day <= LAST_DAY:
            raise forms.ValidationError(
                _("Choose a day from %(first)s to %(last)s."),
                code="out_of_range",
                params={
                    "first": date_format(FIRST_DAY, "SHORT_DATE_FORMAT"),
                    "last": date_format(LAST_DAY, "SHORT_DATE_FORMAT"),
                },
            )
        return day

    def clean_starts_on(self):
        return self._day("starts_on")

    def clean_ends_on(self):
        return self._day("ends_on")

    def clean(self):
        data = super().clean()
        first, last = data.get("starts_on"), data.get("ends_on")
        if first and last and last < first:
            self.add_error("ends_on", capfirst(_("a season ends on or after the day it starts")))
        return data


class JoinClubForm(forms.Form):
    code = forms.CharField(label=_("Invite code"), max_length=32)

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)


class CorrectionForm(forms.Form):
    score = forms.IntegerField(label=_("New score"), min_value=-SCORE_LIMIT, max_value=SCORE_LIMIT)
    reason = forms.CharField(label=_("Reason"), max_length=500)


class RemovalForm(forms.Form):
    reason = forms.CharField(label=_("Reason"), max_length=500)
