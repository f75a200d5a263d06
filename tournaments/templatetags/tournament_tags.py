from django import template
from django.urls import NoReverseMatch, reverse
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext

import engine
from game.cards import SUIT_SYMBOLS, card_text
from game.levels import level_name
from game.levels import rules_name as rules_id_name

register = template.Library()

RED_SUITS = {"H", "D"}
RED_SYMBOLS = ("♥", "♦")
# As the table sorts a hand (static/js/table/cards.js): suits alternate in colour, the
# trump first when it is known; ranks high to low, the ten (manille) first.
HAND_SUITS = "SHCD"
HAND_RANKS = "TAKQJ987"


def hand_suit_order(trump: str | None) -> str:
    """The table's suit order: the trump first, then colours alternating where possible."""
    if not trump or trump not in HAND_SUITS:
        return HAND_SUITS
    rest, out = [x for x in HAND_SUITS if x != trump], [trump]
    while rest:
        last_red = out[-1] in RED_SUITS
        i = next((k for k, x in enumerate(rest) if (x in RED_SUITS) != last_red), 0)
        out.append(rest.pop(i))
    return "".join(out)


def sort_hand(cards, trump: str | None = None) -> list[str]:
    """Card texts ("TS", "7H") sorted as the table shows a hand: by suit, the trump
    first when known, then by rank high to low."""
    suits = hand_suit_order(trump)
    return sorted(
        (str(c) for c in cards), key=lambda c: (suits.index(c[-1]), HAND_RANKS.index(c[:-1]))
    )


def shown_hand(cards, trump: str | None = None) -> list[str]:
    """A hand as the table shows it: sorted as :func:`sort_hand`, each card "A♥"."""
    return [card_text(c) for c in sort_hand(cards, trump)]


def rules_label(rules_id: str) -> str:
    return rules_id_name(rules_id)


def bot_label(level: str) -> str:
    return level_name(level)


def rules_choices(ids) -> list[tuple[str, str]]:
    return [(i, rules_label(i)) for i in ids]


@register.filter
def announced(actions) -> str:
    """A deal's announcements as people say them, in the page's language: "blind, mee,
    tegen" (nl), "in, against" (en); looking at the cards and passing say nothing."""
    words = {
        "blind": _("blind"),
        "mee": _("mee"),
        "tegen": _("tegen"),
    }
    return ", ".join(words[a] for a in actions or () if a in words)


@register.filter
def rules_name(value) -> str:
    """ "flemish-table" → Flemish (table)."""
    return rules_label(value)


@register.filter
def structure_text(s) -> str:
    """A tournament of tables' structure: "1 round of 3 sets of 2 deals" (each count in
    its own singular or plural)."""
    rounds = ngettext("%(n)s round", "%(n)s rounds", s.rounds) % {"n": s.rounds}
    sets = ngettext("%(n)s set", "%(n)s sets", s.sets) % {"n": s.sets}
    deals = ngettext("%(n)s deal", "%(n)s deals", s.deals) % {"n": s.deals}
    return _("%(rounds)s of %(sets)s of %(deals)s") % {
        "rounds": rounds,
        "sets": sets,
        "deals": deals,
    }


@register.filter
def percent(value) -> str:
    """A percentage with one decimal in the page's language: 50,0% in Dutch, 50.0% in
    English, 50,0 % in French (a no-break space before the sign, as French
    writes it; the live standings' Intl.NumberFormat writes the same)."""
    from django.template.defaultfilters import floatformat
    from django.utils.translation import get_language

    sep = "\u00a0" if (get_language() or "").startswith("fr") else ""
    return f"{floatformat(value, 1)}{sep}%"


@register.filter
def per_deal_shown(score, deals) -> str:
    """A score per deal with one decimal, from the total and the deals themselves (the
    2 decimals of `score_per_deal` rounded again gave 4,9 for 63 over 13 deals); halves
    away from zero, as the live standings write it."""
    from fractions import Fraction

    from django.template.defaultfilters import floatformat

    from tournaments.scoring import half_up

    if score is None or not deals:
        return ""
    return floatformat(half_up(Fraction(int(score), int(deals))), 1)


@register.filter
def preset_ties_double(s) -> bool:
    """Whether the rules of a tournament of tables know the tie doubling at all (french
    and malilla double nothing): then its page says whether this tournament keeps it."""
    return engine.get_rules(s.tournament.rules).tie_doubles_next


@register.filter
def game_length(t) -> str:
    """A tournament's games: "12 deals", "12 deals, each on its own", "to 101 points"."""
    preset = engine.get_rules(t.rules)
    if t.fixed_deals:
        n = t.fixed_deals
        text = ngettext("%(n)s deal", "%(n)s deals", n) % {"n": n}
    else:
        text = _("to %(n)s points") % {"n": preset.target(0)}
    if not t.tie_carry and preset.tie_doubles_next:
        text = _("%(game)s, each deal on its own") % {"game": text}
    return text


@register.filter
def status_text(t) -> str:
    """A tournament's status as its own page says it: a tournament of tables is "open
    for sign-up" until its draw, whatever its stored status (running once its start
    passed); see _tables_status.html."""
    if t.has_tables and t.status != t.Status.DRAFT and not t.is_closed and not t.rounds.exists():
        return _("open for sign-up")
    return t.get_status_display()


@register.filter
def bot_name(value) -> str:
    """ "expert" → Expert."""
    return bot_label(value)


@register.filter
def suit(value) -> str:
    """ "H" → ♥, "none" → no trump, "" → —."""
    if value in SUIT_SYMBOLS:
        return SUIT_SYMBOLS[value]
    if value == "none":
        return _("no trump")
    return "—"


@register.filter
def suit_html(value):
    """Like ``suit``, with hearts and diamonds in red as at the table, and the suit's
    name for a screen reader (which says "♥" as "black heart suit", or nothing)."""
    from tournaments import exports

    if value in SUIT_SYMBOLS:
        return format_html(
            '<span{} aria-hidden="true">{}</span><span class="visually-hidden">{}</span>',
            mark_safe(' class="red"') if value in RED_SUITS else "",
            SUIT_SYMBOLS[value],
            exports.suit_name(value),
        )
    return suit(value)


@register.filter
def unranked(rows) -> bool:
    """Whether a standing lists someone without a rank ("—")."""
    return any(row.get("rank") is None for row in rows or ())


@register.filter
def suit_label(value) -> str:
    """A suit's name for a screen reader, in the page's language ("♥ Harten")."""
    from tournaments.exports import trump_name

    return trump_name(value)


@register.filter
def red_suits(value):
    """Escape ``value`` (a card "A♥", a hand, a play); its ♥ and ♦ red, as at the table."""
    if isinstance(value, (list, tuple)):
        value = " ".join(str(v) for v in value)
    text = str(conditional_escape(value))
    for symbol in RED_SYMBOLS:
        text = text.replace(symbol, f'<span class="red">{symbol}</span>')
    return mark_safe(text)  # noqa: S308 (escaped above; only our own markup added)


# As accounts.forms' GUEST_PREFIX and ANONYMOUS_PREFIX: guests and deleted accounts have
# no public page.
NO_PAGE_PREFIXES = ("gast-", "anoniem-")


@register.filter
def player_link(username):
    """A player's name as a link to their public page; a guest's name, or a deleted
    account's, stays plain text."""
    name = str(username or "")
    if not name or name.startswith(NO_PAGE_PREFIXES):
        return name
    try:
        url = reverse("player", args=[name])
    except NoReverseMatch:  # a name the URL pattern cannot carry
        return name
    return format_html('<a href="{}">{}</a>', url, name)


@register.filter
def finish_mark(finish_mode) -> str:
    """A small "bot" tag after an entry whose game the bot finished at close (standings,
    tournament page, profile, printable results and PDF); nothing otherwise."""
    if finish_mode != "bot":
        return ""
    return format_html(
        ' <span class="t-tag t-bot-mark" title="{}">{}</span>',
        _("finished by the bot"),
        _("bot"),
    )


@register.filter
def edit_summary(log) -> str:
    """An "edit" of the audit trail (actions.edit_tournament) as one line: each setting
    that changed, before → after, in the page's language."""
    before, after = log.before or {}, log.after or {}
    label = {
        "name": _("name"),
        "capacity": _("capacity"),
        "starts_at": _("start of the play window"),
        "ends_at": _("end of the play window"),
        "results_audience": _("who sees the results"),
        "invite_code": _("invite code"),
    }
    parts = []
    for field in label:
        if field not in after:
            continue
        old, new = before.get(field), after[field]
        if field == "invite_code":  # not shown: the trail is read by more than the invited
            parts.append(_("new invite code") if new else _("no invite code any more"))
            continue
        if field == "name":
            old, new = f"“{old}”", f"“{new}”"
        elif field in ("starts_at", "ends_at"):  # local ISO to the minute (_iso_local)
            old, new = ((v or "—")[:16].replace("T", " ") for v in (old, new))
        elif field == "results_audience":
            everyone = new == "everyone"
            parts.append(
                f"{label[field]}: "
                + (_("everyone") if everyone else _("club members and its players only"))
            )
            continue
        parts.append(f"{label[field]} {old} → {new}")
    return " · ".join(parts)


@register.filter
def colon(label) -> str:
    """A label and the colon after it as the page's language writes it: "Règles :" in
    French (a no-break space before the colon), "Regels:" in Dutch and English."""
    return mark_safe(
        pgettext("a label before its value", "%(label)s:") % {"label": conditional_escape(label)}
    )


@register.filter
def iso_datetime(value):
    """A time stored in the audit trail as ISO text ("2026-12-07T11:45:00+01:00"), as the
    pages write times ("7/12/2026 11:45" in nl); anything else as it is."""
    import datetime as dt

    from django.utils.formats import date_format

    if not value:
        return value
    try:
        moment = dt.datetime.fromisoformat(str(value))
    except ValueError:
        return value
    return date_format(moment, "SHORT_DATETIME_FORMAT")
