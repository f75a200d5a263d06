"""How soon South's card leaves the hand after the click, in a real browser.

Starts uvicorn on loopback (embedded mode: its own SQLite file, in-memory channel
layer, bots played in process, as `make run`), opens one solo game against the chosen
bots (expert by default) in Debian's Chromium (Playwright, /usr/bin/chromium) and plays
South's cards the moment the table offers them, at the table's normal pace (no "play on
quickly"). For every card it measures, inside the page:

- click -> card moved: from the click event's time stamp to the DOM showing the card in
  the trick (and gone from the hand), and to the next animation frame after that (the
  frame that paints it);
- click -> echo: until the server's event of that card reaches the page;
- the browser's own input delay: from the click's time stamp until the page's first
  click listener runs (under CPU contention most of the rest is this).

Usage: .venv/bin/python bench/table_click.py [--cards 40] [--level expert] [--out FILE]
"""

from __future__ import annotations

import argparse
import os
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")

# Installed once in the page: every card click and when its card is seen moved.
PROBE_JS = """() => {
  const root = document.getElementById('table-root');
  window.clickProbe = [];
  let open = null;
  document.addEventListener('click', (ev) => {
    const btn = ev.target.closest && ev.target.closest('#hand button[data-card]');
    if (!btn || !btn.hasAttribute('data-legal')) return;
    open = {card: btn.dataset.card, click: ev.timeStamp, handler: performance.now(), dom: null,
      frame: null, echo: null};
    window.clickProbe.push(open);
  }, true);
  const moved = (p) => root.querySelector(`#trick [data-trick-card="${p.card}"][data-seat="0"]`)
    && !root.querySelector(`#hand [data-card="${p.card}"]`);
  new MutationObserver(() => {
    const p = open;
    if (!p || p.dom !== null || !moved(p)) return;
    p.dom = performance.now();
    requestAnimationFrame(() => { p.frame = performance.now(); });
  }).observe(root, {childList: true, subtree: true});
  // The server's echo of the card (the socket may be replaced on a reconnect).
  const hooked = new WeakSet();
  setInterval(() => {
    const ws = window.manillenTable && window.manillenTable.socket.ws;
    if (!ws || hooked.has(ws)) return;
    hooked.add(ws);
    ws.addEventListener('message', (ev) => {
      const p = open;
      if (!p || p.echo !== null) return;
      try {
        const m = JSON.parse(ev.data);
        if (m.type === 'event' && m.actor === 0 && m.action === p.card) p.echo = performance.now();
      } catch (e) { /* not ours */ }
    });
  }, 5);
}"""

# South is to play a card, nothing left to show, the socket open.
READY_JS = """() => {
  const t = window.manillenTable;
  if (!t || !t.socket.ws || t.socket.ws.readyState !== WebSocket.OPEN) return false;
  const u = t.ui, s = u.state;
  if (s.game_over) return true;
  return !u.busy && u.queue.length === 0 && u.pending === null && u.shownSeq === u.seq
    && s.to_move === s.seat;
}"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(tmp: Path) -> tuple[subprocess.Popen, str]:
    # As `make run` serves it (DEBUG serves the static files).
    env = {**os.environ, "DEBUG": "1", "PYTHONUNBUFFERED": "1", "SQLITE_PATH": str(tmp / "db")}
    for key in ("DATABASE_URL", "DATABASE_NAME", "REDIS_URL"):
        env.pop(key, None)
    py = str(ROOT / ".venv/bin/python") if (ROOT / ".venv/bin/python").exists() else sys.executable
    subprocess.run(
        [py, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env, check=True
    )
    port = free_port()
    log = open(tmp / "server.log", "w")  # noqa: SIM115 (open for the server's life)
    proc = subprocess.Popen(
        [py, "-m", "uvicorn", "config.asgi:application", "--host", "127.0.0.1",
         "--port", str(port), "--log-level", "warning"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 40
    while True:
        try:
            with urllib.request.urlopen(base + "/", timeout=2):
                return proc, base
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit((tmp / "server.log").read_text()[-3000:]) from None
            time.sleep(0.2)


def new_game(page, base: str, level: str) -> str:
    """A new solo game against `level` bots (a POST with the CSRF cookie); its URL."""
    page.goto(base + "/")
    return page.evaluate(
        """async ([level]) => {
          const m = document.cookie.match(/csrftoken=([^;]+)/);
          const r = await fetch('/play/', {method: 'POST', credentials: 'same-origin',
            headers: {'X-CSRFToken': m ? m[1] : ''}, body: new URLSearchParams({level})});
          if (!r.ok || !/\\/game\\//.test(r.url)) throw new Error(`no game: ${r.status} ${r.url}`);
          return r.url;
        }""",
        [level],
    )


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def run(cards: int, level: str) -> list[dict]:
    from playwright.sync_api import sync_playwright

    rows: list[dict] = []
    with tempfile.TemporaryDirectory() as tmpdir, sync_playwright() as p:
        proc, base = start_server(Path(tmpdir))
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900}, locale="nl-BE")
            page.set_default_timeout(60_000)
            page.goto(new_game(page, base, level))
            page.wait_for_function("() => window.manillenTable !== undefined")
            page.evaluate(PROBE_JS)
            played = 0
            while played < cards:
                page.wait_for_function(READY_JS)
                if page.evaluate("manillenTable.ui.state.game_over"):
                    page.goto(new_game(page, base, level))
                    page.wait_for_function("() => window.manillenTable !== undefined")
                    page.evaluate(PROBE_JS)
                    continue
                target = page.locator("[data-trump], #hand [data-card][data-legal]").first
                is_card = target.get_attribute("data-card") is not None
                seq = page.evaluate("manillenTable.ui.seq")
                target.click()
                page.wait_for_function("s => manillenTable.ui.seq > s", arg=seq)
                if is_card:
                    played += 1
                    # The probe of this page has it; a new game starts a new probe.
                    page.wait_for_function(
                        "() => { const p = window.clickProbe.at(-1);"
                        " return p && p.frame !== null && p.echo !== null; }"
                    )
                    probe = page.evaluate("window.clickProbe.at(-1)")
                    rows.append(
                        {
                            "card": probe["card"],
                            "input": probe["handler"] - probe["click"],
                            "dom": probe["dom"] - probe["click"],
                            "frame": probe["frame"] - probe["click"],
                            "echo": probe["echo"] - probe["click"],
                        }
                    )
        finally:
            browser.close()
            proc.terminate()
            proc.wait(timeout=10)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cards", type=int, default=40, help="South's cards to measure")
    ap.add_argument("--level", default="expert", choices=["heuristic", "club", "expert"])
    ap.add_argument("--out", help="append the results (markdown) to this file")
    args = ap.parse_args()
    started = time.monotonic()
    rows = run(args.cards, args.level)
    lines = [
        f"### click -> card moved, {args.level} bots, 1 player "
        f"({datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {platform.node()}, "
        f"load {os.getloadavg()[0]:.1f}, {len(rows)} cards, {time.monotonic() - started:.0f} s)",
        "",
        "| measure | median | p95 | max |",
        "|---|---|---|---|",
    ]
    for key, name in (
        ("input", "click -> page's click handler starts (browser's input delay)"),
        ("dom", "click -> card in the trick (DOM)"),
        ("frame", "click -> next frame after it (painted)"),
        ("echo", "click -> server's event of the card"),
    ):
        values = [r[key] for r in rows]
        lines.append(
            f"| {name} | {statistics.median(values):.1f} ms | {pct(values, 0.95):.1f} ms "
            f"| {max(values):.1f} ms |"
        )
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        with open(args.out, "a") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
