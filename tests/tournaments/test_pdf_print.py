"""Issue 10, item 25: the results PDF is print-friendly and complete.

Suit symbols in colour, each deal's four hands on its traveller, the rules preset and
the bot level named, white paper (no beige fill). The PDF is turned into images with
poppler's pdftoppm (`make test` installs poppler-utils) and the pixels are counted.
"""

from __future__ import annotations

import shutil
import subprocess
from collections import Counter

import pytest

from engine import Card
from tournaments import pdf, rankings

pytestmark = pytest.mark.usefixtures("live_game_db")

PAGE_BEIGE = (0xEF, 0xE8, 0xD8)  # the site's page background (static/css)


@pytest.fixture
def printed(make_tournament, fake_entry, organizer, client):
    t = make_tournament(
        name="Clubavond PDF", seed="pdf-print-seed", rules="french", bot_level="expert"
    )
    fake_entry(t, "alice", 40, {1: 40, 2: 35})
    fake_entry(t, "bert", -10, {1: 20, 2: 35})
    rankings.recompute(t.pk)
    client.force_login(organizer)
    response = client.get(f"/tournaments/{t.pk}/results.pdf")
    assert response.status_code == 200 and response.content.startswith(b"%PDF")
    html = client.get(f"/tournaments/{t.pk}/results/").content.decode()
    return t, response.content, html


def _text(document) -> str:
    from weasyprint.formatting_structure.boxes import TextBox

    return " ".join(
        box.text
        for page in document.pages
        for box in page._page_box.descendants()
        if isinstance(box, TextBox)
    )


def test_the_pdf_names_rules_and_bots_and_shows_every_hand(printed):
    t, _, html = printed
    text = _text(pdf.document(html, base_url="http://testserver/"))
    assert "Frans" in text and "Expert" in text  # rules preset and bot level, in Dutch
    flat = "".join(text.split())  # a red suit symbol is a text box of its own
    assert html.count("data-hands") == 2  # deals 1 and 2 were played
    for number in (1, 2):
        deal = t.deals.get(number=number)
        for seat in range(4):
            for card in deal.hands[seat]:
                assert Card.parse(card).display() in flat, (number, seat, card)
    for name in ("Zuid", "West", "Noord", "Oost"):
        assert text.count(name) >= 2
    assert "♥" in html and '<span class="red">♥</span>' in html


def _ppm_colors(raw: bytes) -> tuple[int, Counter]:
    """(pixel count, Counter of (r, g, b)) of a binary PPM (P6, maxval 255) image."""
    fields, pos = [], 0
    while len(fields) < 4:  # magic, width, height, maxval, separated by whitespace
        while raw[pos : pos + 1].isspace():
            pos += 1
        end = pos
        while not raw[end : end + 1].isspace():
            end += 1
        fields.append(raw[pos:end])
        pos = end
    assert fields[0] == b"P6" and fields[3] == b"255"
    width, height = int(fields[1]), int(fields[2])
    pixels = raw[pos + 1 : pos + 1 + 3 * width * height]
    return width * height, Counter(zip(pixels[0::3], pixels[1::3], pixels[2::3], strict=True))


def _pages(data: bytes, tmp_path) -> list[tuple[int, Counter]]:
    exe = shutil.which("pdftoppm")
    assert exe, "pdftoppm is missing: apt-get install poppler-utils (make test does)"
    (tmp_path / "r.pdf").write_bytes(data)
    subprocess.run([exe, "-r", "60", str(tmp_path / "r.pdf"), str(tmp_path / "page")], check=True)
    files = sorted(tmp_path.glob("page*.ppm"))
    assert files
    return [_ppm_colors(f.read_bytes()) for f in files]


def test_the_pdf_prints_on_white_with_red_suits(printed, tmp_path):
    _, data, _ = printed
    pages = _pages(data, tmp_path)
    total, counts = pages[0]
    # Not blank: a good share of the page is ink.
    dark = sum(n for rgb, n in counts.items() if sum(rgb) < 300)
    assert dark > total * 0.005, "the page is blank"
    # Print-friendly: the paper is white, never the site's beige.
    white = sum(n for rgb, n in counts.items() if min(rgb) >= 250)
    assert white > total * 0.8
    beige = sum(
        n
        for rgb, n in counts.items()
        if all(abs(a - b) <= 6 for a, b in zip(rgb, PAGE_BEIGE, strict=True))
    )
    assert beige < total * 0.01
    # Hearts and diamonds in red somewhere in the document.
    red = sum(
        n for _, page in pages for (r, g, b), n in page.items() if r > 150 and g < 90 and b < 100
    )
    assert red > 20, "no red suit symbols"
