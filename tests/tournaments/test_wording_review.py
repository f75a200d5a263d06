"""Tester findings on the wording (nl-BE, fr): the audit trail's automatic actions named
in the page's language (not "system"), a colon after a label as French writes it, one
word for the seed and its commitment, for the bots and the move clock."""

from __future__ import annotations

import datetime as dt
import gettext as gettext_module
from types import SimpleNamespace

import pytest
from django.conf import settings
from django.template import Context, Template
from django.template.loader import render_to_string
from django.utils import timezone, translation
from django.utils.translation import gettext

NBSP = "\u00a0"


def msgstrs(lang: str) -> list[str]:
    path = settings.LOCALE_PATHS[0] / lang / "LC_MESSAGES" / "django.mo"
    with open(path, "rb") as fh:
        catalog = gettext_module.GNUTranslations(fh)._catalog  # type: ignore[attr-defined]
    return [v for v in catalog.values() if isinstance(v, str)]


@pytest.mark.parametrize(
    "lang, actor",
    [("nl", "automatisch:"), ("fr", f"automatiquement{NBSP}:"), ("en", "automatically:")],
)
def test_an_action_of_nobody_in_the_audit_trail_is_named_in_the_language(lang, actor):
    log = SimpleNamespace(
        created=timezone.make_aware(dt.datetime(2026, 12, 7, 20, 15)), actor=None,
        action="ranking", reason="", before={}, after={"ranking": "score"},
    )  # fmt: skip
    with translation.override(lang):
        line = render_to_string("tournaments/_audit_line.html", {"log": log, "t": None})
    assert "system" not in line
    assert actor in line, line


@pytest.mark.parametrize(
    "lang, text", [("nl", "Regels:"), ("en", "Rules:"), ("fr", f"Règles{NBSP}:")]
)
def test_a_label_and_its_colon_as_the_language_writes_them(lang, text):
    template = Template('{% load tournament_tags %}{{ _("Rules")|colon }} {{ name|colon }}')
    with translation.override(lang):
        out = template.render(Context({"name": "<b>Zuid</b>"}))
    assert out.startswith(text)
    assert "&lt;b&gt;Zuid&lt;/b&gt;" in out  # a value stays escaped


def test_templates_write_no_colon_of_their_own_after_a_translated_label():
    import re
    from pathlib import Path

    root = Path(settings.BASE_DIR) / "templates"
    hard = re.compile(r"\{% trans \"[^\"]+\" %\}: |\{\{ [a-z_.]+ \}\}: ")
    block = re.compile(r"\{% blocktrans.*?%\}.*?\{% endblocktrans %\}", re.S)
    found = []
    for sub in ("tournaments", "accounts"):
        for path in (root / sub).rglob("*.html"):
            if path.name == "pdf_unavailable.html":
                continue
            text = block.sub("", path.read_text())
            found += [f"{path.name}: {m}" for m in hard.findall(text)]
    assert found == []


def test_dutch_wording_is_one_for_each_thing():
    texts = msgstrs("nl")
    assert not [t for t in texts if "vastlegging" in t.lower()]
    # The seed is "de sleutel" (the word "seed" only in brackets, beside it).
    assert not [t for t in texts if "seed" in t.lower().replace("(seed", "")]
    assert not [t for t in texts if " team" in t.lower() or "(team" in t.lower()]
    with translation.override("nl"):
        assert gettext("Best") == "Beste"
        assert gettext("Seed commitment") == "Vingerafdruk van de sleutel"
        assert gettext("Revealed seed") == "Bekendgemaakte sleutel"


def test_french_says_bots_and_pendule_and_plays_to_101():
    texts = msgstrs("fr")
    assert not [t for t in texts if "robot" in t.lower()]
    assert not [t for t in texts if "horloge" in t.lower()]
    assert not [t for t in texts if "engagement" in t.lower()]
    with translation.override("fr"):
        assert gettext("to %(n)s points") % {"n": 101} == "jusqu'à 101 points"
        assert gettext("Seed commitment") == "Empreinte du germe (seed)"
        assert gettext("Clock") == "Pendule"
        assert gettext("Bot level") == "Niveau des bots"
