"""The printable results page as PDF (WeasyPrint): same content, same gates, no HTTP."""

from __future__ import annotations

import pytest

from tests.tournaments.conftest import joined
from tournaments import pdf, rankings

pytestmark = pytest.mark.usefixtures("live_game_db")


@pytest.fixture
def ranked(make_tournament, fake_entry):
    t = make_tournament(seed="pdf-seed")
    alice = fake_entry(t, "alice", 40, {1: 40, 2: 35})
    fake_entry(t, "bert", -10, {1: 20, 2: 35})
    t.club.members.add(alice.player)
    rankings.recompute(t.pk)
    return t, alice.player


def _text(document) -> str:
    from weasyprint.formatting_structure.boxes import TextBox

    return " ".join(
        box.text
        for page in document.pages
        for box in page._page_box.descendants()
        if isinstance(box, TextBox)
    )


def test_results_pdf_for_a_player_who_finished(ranked, client):
    t, alice = ranked
    client.force_login(alice)
    response = client.get(f"/tournaments/{t.pk}/results.pdf")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    assert f'filename="tournament-{t.pk}-results.pdf"' in response["Content-Disposition"]
    assert response.content.startswith(b"%PDF") and len(response.content) > 1000

    # The PDF is the printable page laid out: its text names the players.
    html = client.get(f"/tournaments/{t.pk}/results/").content.decode()
    text = _text(pdf.document(html, base_url="http://testserver/"))
    assert "alice" in text and "bert" in text
    assert "PDF" not in text  # the print stylesheet was applied: .no-print is hidden


def test_results_pdf_refused_like_the_printable_page(ranked, client, make_user):
    t, _ = ranked
    ben = make_user("ben")
    joined(t, ben)  # a member with an unfinished entry: no results yet
    client.force_login(ben)
    assert client.get(f"/tournaments/{t.pk}/results/").status_code == 403
    assert client.get(f"/tournaments/{t.pk}/results.pdf").status_code == 403
    outsider = make_user("outsider")  # not in the club: the tournament does not exist
    client.force_login(outsider)
    assert client.get(f"/tournaments/{t.pk}/results/").status_code == 404
    assert client.get(f"/tournaments/{t.pk}/results.pdf").status_code == 404


def test_fetcher_reads_static_files_from_disk_and_refuses_the_rest(monkeypatch):
    def no_network(*args, **kwargs):
        raise AssertionError("WeasyPrint tried to make a request")

    monkeypatch.setattr("urllib.request.OpenerDirector.open", no_network)
    fetcher = pdf.StaticFilesFetcher()
    response = fetcher.fetch("http://testserver/static/tournaments/tournaments.css")
    assert response.content_type == "text/css" and b"@media print" in response.read()
    for url in (
        "http://testserver/tournaments/1/results/",
        "http://testserver/static/../config/settings.py",
        "http://testserver/static/nope.css",
        "file:///etc/passwd",
    ):
        with pytest.raises(ValueError):
            fetcher.fetch(url)


def test_without_the_pdf_library_the_printable_page_is_offered(ranked, client, monkeypatch):
    """A server whose WeasyPrint cannot load (no Pango) answers with the printable page
    to use instead, not a server error."""
    import sys

    t, alice = ranked
    import tournaments

    monkeypatch.delitem(sys.modules, "tournaments.pdf", raising=False)
    monkeypatch.delattr(tournaments, "pdf", raising=False)
    monkeypatch.setitem(sys.modules, "weasyprint", None)  # importing it now fails
    client.force_login(alice)
    response = client.get(f"/tournaments/{t.pk}/results.pdf")
    assert response.status_code == 503
    page = response.content.decode()
    assert "data-pdf-unavailable" in page and f'href="/tournaments/{t.pk}/results/"' in page
    assert "Geen pdf op deze server" in page


def _pdf_builds(monkeypatch) -> list[int]:
    """Count the PDFs laid out (each is seconds of CPU, a minute for a large field)."""
    built: list[int] = []
    real = pdf.html_to_pdf

    def counting(html, base_url):
        built.append(1)
        return real(html, base_url)

    monkeypatch.setattr(pdf, "html_to_pdf", counting)
    return built


def test_the_results_pdf_is_made_once_for_each_state_of_the_results(
    ranked, client, organizer, monkeypatch
):
    """Every reader asking for the PDF made it again (75 s for 200 entries, anonymous
    readers included when the results are public). It is kept for the results as they
    stand, in each language, and made again once they change: a recomputation, or a
    line in the audit trail (a correction, a new name)."""
    from tournaments import actions, results_pdf
    from tournaments.models import ExportArchive

    t, _ = ranked
    # Its size is the deals played (2 entries x 2), not the deals stored for a game to 101.
    assert t.deals.count() > 2 and results_pdf.rows(t) == 4
    built = _pdf_builds(monkeypatch)
    client.force_login(organizer)
    first = client.get(f"/tournaments/{t.pk}/results.pdf")
    assert first.status_code == 200 and first.content.startswith(b"%PDF")
    again = client.get(f"/tournaments/{t.pk}/results.pdf")
    assert again.content == first.content and len(built) == 1
    assert ExportArchive.objects.filter(tournament=t, kind="results.pdf:nl").exists()
    client.cookies["django_language"] = "en"
    english = client.get(f"/tournaments/{t.pk}/results.pdf")
    assert english.content != first.content and len(built) == 2
    del client.cookies["django_language"]
    # The organizer renames the tournament (a line in the audit trail): made again.
    actions.edit_tournament(t.pk, organizer, name="Herfstavond hernoemd")
    renamed = client.get(f"/tournaments/{t.pk}/results.pdf")
    assert len(built) == 3
    assert renamed.content != first.content
    # New rankings: made again.
    rankings.recompute(t.pk)
    client.get(f"/tournaments/{t.pk}/results.pdf")
    assert len(built) == 4


def test_a_large_results_pdf_is_made_on_the_exports_queue_while_the_reader_waits(
    ranked, client, organizer, monkeypatch
):
    """Over results_pdf.INLINE_ROWS the PDF is asked of the exports worker, once: the
    reader gets a page that reloads until it is there (202, Retry-After)."""
    from tournaments import results_pdf, tasks

    t, _ = ranked
    monkeypatch.setattr(results_pdf, "INLINE_ROWS", 0)
    asked: list[tuple] = []
    monkeypatch.setattr(tasks.build_results_pdf, "delay", lambda *args: asked.append(args))
    client.force_login(organizer)
    waiting = client.get(f"/tournaments/{t.pk}/results.pdf")
    assert waiting.status_code == 202 and waiting["Retry-After"] == "5"
    page = waiting.content.decode()
    assert "data-pdf-pending" in page and '<meta http-equiv="refresh" content="5">' in page
    assert f'href="/tournaments/{t.pk}/results/"' in page
    assert client.get(f"/tournaments/{t.pk}/results.pdf").status_code == 202
    assert asked == [(t.pk, "nl")]  # asked once, not at every reload
    tasks.build_results_pdf(*asked[0])  # the worker runs it
    done = client.get(f"/tournaments/{t.pk}/results.pdf")
    assert done.status_code == 200 and done.content.startswith(b"%PDF")
