"""Export a tournament's standings or travellers (CSV/JSON), results PDF, or its game
records: one record file (`records`, text) or a zip with one file per game (`records-zip`)."""

from __future__ import annotations

import logging
import sys
import warnings

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.utils import translation

from tournaments import exports
from tournaments.models import Tournament

FORMATS = ("csv", "json", "pdf", "records", "records-zip")
TEXT = {
    ("csv", "standings"): exports.standings_csv,
    ("csv", "travellers"): exports.travellers_csv,
    ("csv", "corrections"): exports.corrections_csv,
    ("json", "standings"): exports.standings_json,
    ("json", "travellers"): exports.travellers_json,
}


def results_pdf(t: Tournament) -> bytes:
    # Quiet from the shell: WeasyPrint warns about every screen-only CSS rule it skips,
    # and a page template's {% csrf_token %} has no request here (no form is used).
    logging.getLogger("weasyprint").setLevel(logging.ERROR)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*csrf_token.*")
        return _results_pdf(t)


def _results_pdf(t: Tournament) -> bytes:
    from django.utils import translation

    from tournaments import results_pdf

    return results_pdf.build(t, translation.get_language() or "nl")


class Command(BaseCommand):
    help = "Export a tournament: csv|json (standings or travellers), pdf, records, records-zip."

    def add_arguments(self, parser):
        parser.add_argument("tournament_id", type=int)
        parser.add_argument(
            "--format", required=True, help="csv, json, pdf, records (one text file) or records-zip"
        )
        parser.add_argument(
            "--what",
            default="standings",
            help="standings or travellers (csv: also corrections); a tournament of tables "
            "in csv: standings, round-standings, set-standings, deals or corrections",
        )
        parser.add_argument(
            "--language",
            default=settings.LANGUAGE_CODE.split("-")[0],
            choices=[code for code, _name in settings.LANGUAGES],
            help="csv and pdf: the language of the words (seats, suits, yes/no) and, for "
            "csv, its spreadsheet style: Dutch and French semicolons and decimal commas, "
            "English commas (default: the site's language, %(default)s)",
        )
        parser.add_argument(
            "--sep",
            default=None,
            choices=sorted(exports.SEPARATORS),
            help="csv: comma or semicolon, instead of the language's own (every CSV file "
            "starts with a UTF-8 byte-order mark)",
        )
        parser.add_argument("-o", "--output", help="file to write (default: stdout)")

    def handle(self, *args, **opts):
        # The words and the spreadsheet style of one language (a CSV in Dutch words with
        # English commas was misread by a Dutch Excel).
        with translation.override(opts["language"]):
            self._handle(opts)

    def _handle(self, opts):
        fmt, what = opts["format"], opts["what"]
        if fmt not in FORMATS:
            raise CommandError(f"unknown format {fmt!r}: choose one of {', '.join(FORMATS)}")
        if fmt == "csv":
            t = Tournament.objects.filter(pk=opts["tournament_id"]).first()
            if t is not None and t.has_tables:
                return self._tables_csv(t, what, opts)
        if (fmt, what) not in TEXT and what not in ("standings", "travellers"):
            raise CommandError(f"unknown --what {what!r}: choose standings or travellers")
        if fmt in ("csv", "json") and (fmt, what) not in TEXT:
            raise CommandError(f"--what {what} has no {fmt} export")
        pk = opts["tournament_id"]
        t = Tournament.objects.select_related("club").filter(pk=pk).first()
        if t is None:
            raise CommandError(f"no tournament with id {pk}")
        if t.has_tables and fmt == "json" and what == "standings":
            import json

            from tournaments import tables

            text = json.dumps(tables.export(t), ensure_ascii=False, indent=1) + "\n"
            if opts["output"]:
                with open(opts["output"], "w", encoding="utf-8") as fh:
                    fh.write(text)
            else:
                self.stdout.write(text, ending="")
            return
        if fmt.startswith("records") and not t.is_closed:
            raise CommandError(f"tournament {pk} is not closed: its records would reveal the seed")
        if fmt in ("csv", "json", "records"):
            if fmt == "records":
                text = exports.records_text(t)
            elif fmt == "csv":
                text = TEXT[(fmt, what)](t, exports.csv_style(opts["language"], opts["sep"]))
            else:
                text = TEXT[(fmt, what)](t)
            if opts["output"]:
                with open(opts["output"], "w", encoding="utf-8", newline="") as fh:
                    fh.write(text)
            else:
                self.stdout.write(text, ending="")
            return
        data = exports.stored_or_built_records_zip(t) if fmt == "records-zip" else results_pdf(t)
        if opts["output"]:
            with open(opts["output"], "wb") as fh:
                fh.write(data)
            return
        out = getattr(self.stdout, "_out", sys.stdout)
        buffer = getattr(out, "buffer", None)
        if buffer is None:
            raise CommandError(f"--format {fmt} is binary: give a file with -o")
        buffer.write(data)
        buffer.flush()

    def _tables_csv(self, t: Tournament, what: str, opts) -> None:
        from tournaments import table_exports

        files = {name.removesuffix(".csv"): f for name, f in table_exports.CSV_FILES.items()}
        files["corrections"] = exports.corrections_csv
        if what not in files:
            raise CommandError(
                f"unknown --what {what!r} for a tournament of tables: choose one of "
                + ", ".join(files)
            )
        text = files[what](t, exports.csv_style(opts["language"], opts["sep"]))
        if opts["output"]:
            with open(opts["output"], "w", encoding="utf-8", newline="") as fh:
                fh.write(text)
        else:
            self.stdout.write(text, ending="")
