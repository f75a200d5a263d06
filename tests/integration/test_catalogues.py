"""The Dutch and French catalogues are complete, and the committed .mo files are the
compiled .po files (a .po edited without compilemessages shows nothing to anyone)."""

from __future__ import annotations

import gettext
import re
from pathlib import Path

import pytest

LOCALE = Path(__file__).resolve().parents[2] / "locale"
QUOTED = re.compile(r'^"(.*)"$')


def _unquote(s: str) -> str:
    """A .po string's escapes (\\n, \\", \\\\) undone; the text is UTF-8."""
    return s.encode("utf-8").decode("unicode_escape").encode("latin-1").decode("utf-8")


def entries(lang: str) -> list[dict]:
    """The live entries of a .po file: msgid, msgid_plural, msgstr(s), flags."""
    out = []
    for block in (LOCALE / lang / "LC_MESSAGES" / "django.po").read_text("utf-8").split("\n\n"):
        lines = [ln for ln in block.splitlines() if ln and not ln.startswith("#~")]
        flags = " ".join(ln for ln in lines if ln.startswith("#,"))
        fields: dict[str, str] = {}
        key = None
        for ln in lines:
            if ln.startswith("#"):
                continue
            m = re.match(r'^(msgctxt|msgid_plural|msgid|msgstr(?:\[\d+\])?) "(.*)"$', ln)
            if m:
                key = m.group(1)
                fields[key] = _unquote(m.group(2))
            elif key and QUOTED.match(ln):
                fields[key] += _unquote(QUOTED.match(ln).group(1))
        if fields.get("msgid"):
            out.append({"fields": fields, "fuzzy": "fuzzy" in flags})
    return out


@pytest.mark.parametrize("lang", ["nl", "fr"])
def test_every_string_is_translated(lang):
    todo = []
    for e in entries(lang):
        f = e["fields"]
        strs = [v for k, v in f.items() if k.startswith("msgstr")]
        if e["fuzzy"] or not strs or not all(strs):
            todo.append(f["msgid"])
    assert not todo, f"{lang}: {len(todo)} untranslated or fuzzy: {todo[:10]}"


@pytest.mark.parametrize("lang", ["nl", "fr", "en"])
def test_the_mo_file_is_the_compiled_po_file(lang):
    with open(LOCALE / lang / "LC_MESSAGES" / "django.mo", "rb") as fh:
        mo = gettext.GNUTranslations(fh)
    stale = []
    for e in entries(lang):
        f = e["fields"]
        if e["fuzzy"] or "msgid_plural" in f or "msgctxt" in f or not f.get("msgstr"):
            continue
        if mo.gettext(f["msgid"]) != f["msgstr"]:
            stale.append(f["msgid"])
    assert not stale, f"{lang}: run compilemessages; stale: {stale[:10]}"
