# ruff: noqa: E501  (message templates read better unbroken)
"""Plain-words explanations of refused actions, in Dutch, English and French."""

from __future__ import annotations

from .cards import SUIT_NAMES, SUIT_SINGULAR, Card
from .errors import IllegalMove

SEAT_NAMES = {
    "nl": ("Zuid", "West", "Noord", "Oost"),
    "en": ("South", "West", "North", "East"),
    "fr": ("Sud", "Ouest", "Nord", "Est"),
}

TEMPLATES: dict[str, dict[str, str]] = {
    "en": {
        "not_in_hand": "you do not hold {card}",
        "follow_suit": "you must follow {suit}",
        "beat_in_suit": "an opponent is winning with {winning} and you hold a higher {suit1}: play it",
        "beat_in_suit_any": "{winning} is winning and you hold a higher {suit1}: play it",
        "must_trump": "you have no {led} and an opponent is winning: you must trump",
        "must_trump_any": "you have no {led}: you must trump",
        "must_overtrump": "an opponent is winning with {winning} and you hold a higher trump: you must over-trump",
        "must_overtrump_any": "{winning} is winning and you hold a higher trump: you must over-trump",
        "no_undertrump": "you may not under-trump: play a card of another suit",
        "forced_trump": "you have no {led}: you must still play a trump",
        "not_your_turn": "it is {to_move}'s turn, not yours",
        "wrong_phase": "{action} is not possible now: {expected}",
        "unknown_action": "unknown action {action!r}",
        "no_trump_not_allowed": "these rules have no 'no trump'",
        "game_over": "the game is over",
        "bad_seat": "{seat} is not a seat: 0 South, 1 West, 2 North, 3 East",
    },
    "nl": {
        "not_in_hand": "je hebt {card} niet",
        "follow_suit": "je moet {suit} bekennen",
        "beat_in_suit": "de tegenpartij ligt aan de slag met {winning} en je hebt een hogere {suit1}: speel die",
        "beat_in_suit_any": "{winning} ligt aan de slag en je hebt een hogere {suit1}: speel die",
        "must_trump": "je hebt geen {led} en de tegenpartij ligt aan de slag: je moet troeven",
        "must_trump_any": "je hebt geen {led}: je moet troeven",
        "must_overtrump": "de tegenpartij ligt aan de slag met {winning} en je hebt een hogere troef: je moet overtroeven",
        "must_overtrump_any": "{winning} ligt aan de slag en je hebt een hogere troef: je moet overtroeven",
        "no_undertrump": "ondertroeven mag niet: leg een kaart van een andere kleur bij",
        "forced_trump": "je hebt geen {led}: je moet toch een troef spelen",
        "not_your_turn": "{to_move} is aan zet, niet jij",
        "wrong_phase": "{action} kan nu niet: {expected}",
        "unknown_action": "onbekende actie {action!r}",
        "no_trump_not_allowed": "deze regels kennen geen 'zonder troef'",
        "game_over": "de partij is gedaan",
        "bad_seat": "{seat} is geen plaats: 0 Zuid, 1 West, 2 Noord, 3 Oost",
    },
    "fr": {
        "not_in_hand": "vous n'avez pas {card}",
        "follow_suit": "vous devez fournir à {suit}",
        "beat_in_suit": (
            "l'adversaire est maître avec {winning} et vous avez un {suit1} plus fort : jouez-le"
        ),
        "beat_in_suit_any": "{winning} est maître et vous avez un {suit1} plus fort : jouez-le",
        "must_trump": "vous n'avez pas de {led} et l'adversaire est maître : vous devez couper",
        "must_trump_any": "vous n'avez pas de {led} : vous devez couper",
        "must_overtrump": (
            "l'adversaire est maître avec {winning} et vous avez un atout plus fort : surcoupez"
        ),
        "must_overtrump_any": "{winning} est maître et vous avez un atout plus fort : surcoupez",
        "no_undertrump": "vous ne pouvez pas sous-couper : jouez une autre couleur",
        "forced_trump": "vous n'avez pas de {led} : vous devez jouer atout",
        "not_your_turn": "c'est à {to_move} de jouer, pas à vous",
        "wrong_phase": "{action} n'est pas possible maintenant : {expected}",
        "unknown_action": "action inconnue {action!r}",
        "no_trump_not_allowed": "ces règles n'ont pas de sans-atout",
        "game_over": "la partie est terminée",
        "bad_seat": "{seat} n'est pas une place : 0 Sud, 1 Ouest, 2 Nord, 3 Est",
    },
}


# The `reason` of a "wrong_phase" refusal (engine.deal.WRONG_PHASE_REASONS has English).
PHASE_REASONS: dict[str, dict[str, str]] = {
    "nl": {
        "choose_trump": "de gever moet eerst troef kiezen",
        "blind_or_look": "de gever moet eerst blind spelen of kijken",
        "announcing": "er wordt nog geklopt",
        "say_mee": "de tegenpartij zegt nu mee of past",
        "say_tegen": "de partij van de gever zegt nu tegen of past",
        "play_card": "speel een kaart",
        "deal_over": "het deel is gedaan",
    },
    "fr": {
        "choose_trump": "le donneur doit d'abord choisir l'atout",
        "blind_or_look": "le donneur doit d'abord jouer à l'aveugle ou regarder",
        "announcing": "les annonces ne sont pas finies",
        "say_mee": "l'adversaire dit maintenant mee ou passe",
        "say_tegen": "le camp du donneur dit maintenant tegen ou passe",
        "play_card": "jouez une carte",
        "deal_over": "la donne est terminée",
    },
}


def render(code: str, lang: str = "en", **params) -> str:
    lang = lang if lang in TEMPLATES else "en"
    p = dict(params)
    reason = p.pop("reason", None)
    if reason in PHASE_REASONS.get(lang, {}):
        p["expected"] = PHASE_REASONS[lang][reason]
    if "card" in p:
        p["card"] = Card.parse(p["card"]).display()
    if "winning" in p:
        p["winning"] = Card.parse(p["winning"]).display()
    if "suit" in p:
        suit = p["suit"]
        p["suit"] = SUIT_NAMES[lang][suit]
        p["suit1"] = SUIT_SINGULAR[lang][suit]
    if "led" in p:
        p["led"] = SUIT_NAMES[lang][p["led"]]
    if "to_move" in p and isinstance(p["to_move"], int):
        p["to_move"] = SEAT_NAMES[lang][p["to_move"]]
    return TEMPLATES[lang][code].format(**p)


def explain(err: IllegalMove, lang: str = "en") -> str:
    """The refusal in ``lang`` ('nl', 'en', 'fr'); falls back to the English text."""
    if err.code in TEMPLATES.get(lang, {}):
        try:
            return render(err.code, lang, **err.params)
        except (KeyError, ValueError):
            pass
    return str(err)
