"""The printable results page as PDF: the same HTML, laid out by WeasyPrint.

WeasyPrint fetches the page's stylesheets itself. It must never do so over HTTP: in a
request that would be the server calling itself (and a worker blocked on its own
request), so `StaticFilesFetcher` serves /static/ URLs from the files on disk, as the
staticfiles finders (DEBUG, tests) or the collected STATIC_ROOT (production, hashed
names) have them, lets data: URLs through, and refuses everything else. A refused URL
is skipped by WeasyPrint with a warning; the PDF is still made.

Imported lazily by the view: loading WeasyPrint (Pango through cffi) costs time that
no other page should pay.

Layout time: WeasyPrint lays a flex container's content out again for every page it
breaks across, and a grid's cells several times over to size its tracks. A page made
into a PDF is therefore blocks, tables and floats when printed (body.t-results-print
in static/tournaments/tournaments.css): with the site's flex body and a grid per deal's
hands, 10 pages took 30 s instead of under 2. bench/pdf.py times it;
tests/tournaments/test_pdf_speed_shape.py keeps the shape.
"""

from __future__ import annotations

import mimetypes
from urllib.parse import unquote, urlsplit

from django.conf import settings
from django.contrib.staticfiles import finders
from django.contrib.staticfiles.storage import staticfiles_storage
from django.core.exceptions import SuspiciousFileOperation
from weasyprint import HTML, Document
from weasyprint.urls import URLFetcher, URLFetcherResponse


def _static_prefix() -> str:
    prefix = urlsplit(settings.STATIC_URL or "/static/").path
    prefix = "/" + prefix.lstrip("/")
    return prefix if prefix.endswith("/") else prefix + "/"


def static_file_path(url: str) -> str | None:
    """The file on disk behind a /static/ URL (any host), or None."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https", ""):
        return None
    prefix = _static_prefix()
    if not parts.path.startswith(prefix):
        return None
    name = unquote(parts.path[len(prefix) :])
    if not name or name.endswith("/") or ".." in name.split("/") or "\\" in name:
        return None
    try:
        found = finders.find(name)  # source files
        if found:
            return found if isinstance(found, str) else found[0]
        if staticfiles_storage.exists(name):  # collected (hashed) names in production
            return staticfiles_storage.path(name)
    except (SuspiciousFileOperation, NotImplementedError, ValueError):
        return None  # a path outside the static dirs, or a storage with no local files
    return None


class StaticFilesFetcher(URLFetcher):
    """A URL fetcher that never makes a network request."""

    def fetch(self, url, headers=None):
        if url.startswith("data:"):
            return super().fetch(url, headers)
        path = static_file_path(url)
        if path is None:
            raise ValueError(f"not fetched for a PDF (only static files are): {url}")
        content_type = mimetypes.guess_type(path)[0] or "application/octet-stream"
        with open(path, "rb") as f:
            body = f.read()
        return URLFetcherResponse(url, body, {"Content-Type": content_type})


def document(html: str, base_url: str) -> Document:
    """The laid-out pages (print media) of `html`, static files read from disk."""
    return HTML(string=html, base_url=base_url, url_fetcher=StaticFilesFetcher()).render()


def html_to_pdf(html: str, base_url: str) -> bytes:
    return document(html, base_url).write_pdf()
