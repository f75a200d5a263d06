#!/usr/bin/env python
"""How long the results PDF takes (WeasyPrint), for a solo tournament and one of tables.

Builds the tournaments in a throwaway SQLite file through the stable hooks, as a tester
would by hand: `create_tournament --open`, `simulate_tournament --players N` (bots play
every entry's South), `close_tournament --unfinished bot`, then one organizer correction
(a score; at the tables, a deal), so that the PDF shows a marked correction too. The
solo tournament is the tester's case: 6 entries, 26 deals, 9-10 pages.

Each PDF is then built `--repeats` times in this process and the medians printed:

- view: GET /tournaments/<id>/results.pdf as the organizer (Django's test client): what
  a reader waits for behind the reverse proxy, context and template included;
- layout / write: WeasyPrint's two steps on the printable page's HTML
  (tournaments.pdf.document, then Document.write_pdf);
- first: the process's first build (fonts found and loaded, stylesheets read) apart.

Wall (time.perf_counter) and CPU of this process (time.process_time): the machine is
shared, so the CPU figure is the steadier one; the load average is printed as well.
Pages, seconds per page and the fonts embedded close each line.

    .venv/bin/python bench/pdf.py                      # 6 players, and the tables
    .venv/bin/python bench/pdf.py --players 6,12 --no-tables --repeats 3
"""

from __future__ import annotations

import argparse
import io
import logging
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def setup_django() -> None:
    """A SQLite file of its own (never the developer's database or DATABASE_URL), the
    embedded settings (eager Celery, in-memory channel layer), migrated."""
    os.environ.pop("DATABASE_URL", None)
    os.environ["SQLITE_PATH"] = str(Path(tempfile.mkdtemp(prefix="pdf-bench-")) / "db.sqlite3")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("DEBUG", "1")
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    call_command("migrate", verbosity=0, interactive=False)
    # WeasyPrint warns about every screen-only rule it skips; a page's {% csrf_token %}.
    logging.getLogger("weasyprint").setLevel(logging.ERROR)
    warnings.filterwarnings("ignore", message=".*csrf_token.*")


def _run(*args: str) -> str:
    from django.core.management import call_command

    out = io.StringIO()
    call_command(*args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def organizer():
    from django.contrib.auth import get_user_model

    User = get_user_model()
    user = User.objects.filter(username="bench-organizer").first()
    return user or User.objects.create_user("bench-organizer", password="x", is_staff=True)


def solo_tournament(players: int) -> int:
    """The tester's tournament: a public solo tournament, `players` simulated entries,
    closed with the unfinished games played out by the bot; one score corrected."""
    from tournaments import actions
    from tournaments.models import Entry

    out = _run("create_tournament", "--name", f"PDF bench {players}", "--open", "--seed",
               f"pdf-bench-{players}", "--players", str(players))  # fmt: skip
    pk = int(re.search(r"id: (\d+)", out).group(1))
    _run("simulate_tournament", str(pk), "--players", str(players))
    _run("close_tournament", str(pk), "--unfinished", "bot")
    entry = Entry.objects.filter(tournament_id=pk, status=Entry.Status.FINISHED).order_by("pk")[0]
    actions.correct_score(entry.pk, organizer(), entry.score + 10, "bench: a corrected score")
    return pk


def tables_tournament(players: int, rounds: int, sets: int, deals: int) -> int:
    """A duplicate writer-stays tournament of tables played to its end by the simulated
    entrants; one deal at one table corrected (to 0 - 0, a score always writable)."""
    from tournaments import actions
    from tournaments.models import Table

    out = _run("create_tournament", "--format", "writer-stays", "--players", str(players),
               "--rounds", str(rounds), "--sets", str(sets), "--deals", str(deals),
               "--duplicate", "--open", "--seed", "pdf-bench-tables")  # fmt: skip
    pk = int(re.search(r"id: (\d+)", out).group(1))
    _run("simulate_tournament", str(pk))
    first = Table.objects.filter(table_set__round__tournament_id=pk, table_set__round__number=1,
                                 table_set__number=1, finished=True)  # fmt: skip
    table, row = next((tab, b) for tab in first for b in tab.board if b["written"] != [0, 0])
    actions.correct_table_deal(
        pk, organizer(), 1, 1, table.number, row["deal"], (0, 0), "bench: a corrected deal"
    )
    return pk


def fonts(data: bytes) -> str:
    """The fonts embedded in a PDF (poppler's pdffonts, where installed), without their
    subset tags (ABCDEF+)."""
    exe = shutil.which("pdffonts")
    if exe is None:
        return "? (no pdffonts)"
    with tempfile.NamedTemporaryFile(suffix=".pdf") as f:
        f.write(data)
        f.flush()
        lines = subprocess.run([exe, f.name], capture_output=True, text=True).stdout.splitlines()
    return ", ".join(sorted({line.split()[0].split("+")[-1] for line in lines[2:] if line}))


def bench_pdf(pk: int, repeats: int) -> None:
    from django.test import Client

    from tournaments import pdf
    from tournaments.models import Tournament

    t = Tournament.objects.get(pk=pk)
    client = Client()
    client.force_login(organizer())
    url = f"/tournaments/{pk}/results.pdf"
    page_url = f"/tournaments/{pk}/results/"

    def timed(fn):
        wall, cpu = time.perf_counter(), time.process_time()
        result = fn()
        return result, time.perf_counter() - wall, time.process_time() - cpu

    def view() -> bytes:
        response = client.get(url)
        assert response.status_code == 200 and response.content.startswith(b"%PDF"), response
        return response.content

    data, first_wall, first_cpu = timed(view)
    views = [timed(view) for _ in range(repeats)]
    html = client.get(page_url).content.decode()
    layouts, writes = [], []
    for _ in range(repeats):
        document, wall, cpu = timed(lambda: pdf.document(html, base_url="http://testserver/"))
        layouts.append((wall, cpu))
        _, wall, cpu = timed(document.write_pdf)
        writes.append((wall, cpu))
    pages = len(document.pages)

    def med(samples, i):
        return statistics.median(s[i] for s in samples)

    view_wall, view_cpu = med(views, 1), med(views, 2)
    if t.has_tables:
        what = f"tables #{pk}: {t.entries.count()} entries, {html.count('data-print-set=')} sets"
    else:
        what = f"solo #{pk}: {t.entries.count()} entries, {html.count('data-hands')} travellers"
    print(
        f"{what}: "
        f"view {view_wall:.2f} s (cpu {view_cpu:.2f}), "
        f"layout {med(layouts, 0):.2f} s (cpu {med(layouts, 1):.2f}), "
        f"write {med(writes, 0):.2f} s (cpu {med(writes, 1):.2f}), "
        f"first view {first_wall:.2f} s (cpu {first_cpu:.2f}); "
        f"{pages} pages, {view_cpu / pages:.3f} cpu s/page; {len(data) // 1024} KiB; "
        f"fonts: {fonts(data)}",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", default="6", help="solo tournaments' entries, e.g. 6,12")
    parser.add_argument("--repeats", type=int, default=5, help="builds per PDF (median)")
    parser.add_argument("--no-tables", action="store_true", help="skip the tables' PDF")
    parser.add_argument("--table-players", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--sets", type=int, default=2)
    parser.add_argument("--deals", type=int, default=2, help="deals per set (tables)")
    parser.add_argument("--keep-pdf", help="directory to write each PDF to (to look at)")
    args = parser.parse_args()
    setup_django()
    import weasyprint

    print(f"WeasyPrint {weasyprint.__version__}, {os.cpu_count()} CPUs, "
          f"load average {os.getloadavg()[0]:.1f} at the start", flush=True)  # fmt: skip
    made = []
    for players in (int(p) for p in args.players.split(",")):
        start = time.perf_counter()
        made.append(solo_tournament(players))
        print(f"(built solo #{made[-1]}: {time.perf_counter() - start:.0f} s)", flush=True)
    if not args.no_tables:
        start = time.perf_counter()
        made.append(tables_tournament(args.table_players, args.rounds, args.sets, args.deals))
        print(f"(built tables #{made[-1]}: {time.perf_counter() - start:.0f} s)", flush=True)
    for pk in made:
        bench_pdf(pk, args.repeats)
        if args.keep_pdf:
            from django.test import Client

            client = Client()
            client.force_login(organizer())
            data = client.get(f"/tournaments/{pk}/results.pdf").content
            Path(args.keep_pdf, f"results-{pk}.pdf").write_bytes(data)
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
