"""The results PDF, built once for each state of a tournament's results and language.

WeasyPrint takes about a quarter to half a second of CPU a page, and a traveller has a
row per entry: 200 entries of 16 deals make 120 pages and over a minute, more than the
proxy waits, and each reader asking again would start it again. So the PDF is stored
(ExportArchive, kind "results.pdf:<language>") with a stamp of what it shows: the
rankings version (every recomputation and set done bumps it), the latest line of the
audit trail (a correction, a renaming) and the status. A stored PDF with the current
stamp is a read. A small tournament's is built in the request; a larger one's on the
"exports" queue (once: a lock in the cache), while the reader gets a page that reloads
until it is there. In the embedded default the task runs in-process, at once.

The page is rendered without a request, as for anyone allowed to see the results:
nobody's own row is marked and no header is printed (.site-header is not printed).
"""

from __future__ import annotations

import warnings

from django.core.cache import cache
from django.template.loader import render_to_string
from django.utils import translation

from .models import DealResult, Entry, ExportArchive, Tournament

# Up to this many traveller rows (rows(): results of deals played; a tournament of
# tables counts its table results) a PDF is built in the request: a few seconds at most.
INLINE_ROWS = 300
BUILD_LOCK_SECONDS = 15 * 60  # a build lost with its worker is asked again after this


def _kind(language: str) -> str:
    return f"results.pdf:{language}"


def stamp(t: Tournament) -> str:
    """What the PDF shows, as a string that changes when any of it does."""
    last = t.audit.order_by("-pk").values_list("pk", flat=True).first() or 0
    return f"{t.rankings_version}:{last}:{t.status}"


def rows(t: Tournament) -> int:
    """The size of the PDF's travellers, in rows (what its time grows with): the deals
    played, by every entry that may have results (ranked or not yet: a pending
    recomputation). Not the deals stored: a solo game to 101 has many more of those."""
    if t.has_tables:
        from .models import Table

        return Table.objects.filter(table_set__round__tournament=t).count() * t.structure.deals
    return (
        DealResult.objects.filter(entry__tournament=t)
        .exclude(entry__status=Entry.Status.REMOVED)
        .count()
    )


def html(t: Tournament) -> str:
    """The printable results page of `t` as anyone allowed to see the results gets it."""
    if t.has_tables:
        from . import table_exports

        context = table_exports.results_context(t)
        context["csv_kinds"] = list(table_exports.CSV_FILES)
        template = "tournaments/tables_results_print.html"
    else:
        from .views import _results_print_context

        context = _results_print_context(t)
        template = "tournaments/results_print.html"
    with warnings.catch_warnings():
        # No request, no CSRF token: the page's forms are not printed anyway.
        warnings.filterwarnings("ignore", message=".*csrf_token.*")
        return render_to_string(template, context)


def build(t: Tournament, language: str) -> bytes:
    from . import pdf  # WeasyPrint loads Pango: only here

    with translation.override(language):
        return pdf.html_to_pdf(html(t), base_url="http://localhost/")


def stored(t: Tournament, language: str, now: str) -> bytes | None:
    """The kept PDF if it was built from the results as they stand (`now`: stamp(t))."""
    archive = ExportArchive.objects.filter(tournament=t, kind=_kind(language)).first()
    if archive is None or archive.stamp != now:
        return None
    return bytes(archive.data)


def build_and_store(tournament_id: int, language: str) -> bytes | None:
    """Build and keep the PDF (the stamp read first: results that change meanwhile make
    it stale, and the next reader asks for it again)."""
    t = Tournament.objects.filter(pk=tournament_id).first()
    if t is None:
        return None
    now = stamp(t)
    data = build(t, language)
    ExportArchive.objects.update_or_create(
        tournament=t,
        kind=_kind(language),
        defaults={"rankings_version": t.rankings_version, "stamp": now, "data": data},
    )
    cache.delete(_lock(t.pk, language, now))
    return data


def _lock(tournament_id: int, language: str, now: str) -> str:
    return f"results-pdf:{tournament_id}:{language}:{now}"


def get_or_request(t: Tournament, language: str) -> bytes | None:
    """The PDF if it is there (or small enough to make now), else None once its build
    has been asked for (at most once per state of the results)."""
    now = stamp(t)
    data = stored(t, language, now)
    if data is not None:
        return data
    if rows(t) <= INLINE_ROWS:
        return build_and_store(t.pk, language)
    if cache.add(_lock(t.pk, language, now), 1, timeout=BUILD_LOCK_SECONDS):
        from .tasks import build_results_pdf

        build_results_pdf.delay(t.pk, language)
    return stored(t, language, now)  # the embedded default built it in-process
