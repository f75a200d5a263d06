// The big screen for the room (templates/tournaments/tables_screen.html): nobody scrolls
// a projector, so standings longer than the screen turn page by page by themselves,
// every data-every seconds, back to the top after the last page. The table's header
// row stays on top (sticky, tournaments.css) and each page keeps a row of the one
// before, so no line is missed between two pages. While no table of the set being
// played is done yet, the room is still finding its tables: the pages turn through
// "The tables" only (the standings have not changed since the last set).
const screen = document.querySelector("[data-screen-pages]");
if (screen) {
  const every = Math.max(3, Number(screen.dataset.every) || 10) * 1000;
  const still = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  const seating = screen.querySelector("[data-screen-seating]");
  const done = screen.querySelector("[data-progress-done]");
  const turn = () => {
    const root = document.scrollingElement || document.documentElement;
    let last = root.scrollHeight - window.innerHeight;
    if (seating && done && done.dataset.progressDone === "0") {
      const bottom = seating.getBoundingClientRect().bottom + window.scrollY;
      last = Math.min(last, Math.max(0, Math.ceil(bottom - window.innerHeight)));
    }
    if (last <= 1) {
      if (window.scrollY > 1) window.scrollTo({ top: 0, behavior: still ? "auto" : "smooth" });
      return; // everything fits
    }
    const head = screen.querySelector(".t-table thead");
    const row = screen.querySelector(".t-table tbody tr");
    const keep = (head ? head.getBoundingClientRect().height : 0) + (row ? row.getBoundingClientRect().height : 0);
    const top = window.scrollY >= last - 1 ? 0 : Math.min(last, window.scrollY + Math.max(window.innerHeight - keep, window.innerHeight / 2));
    window.scrollTo({ top, behavior: still ? "auto" : "smooth" });
  };
  setInterval(turn, every);
}
