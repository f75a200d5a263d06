// A table's score sheet follows what the others at the table enter on their phones:
// every 5 s a light poll; when the sheet changed (a deal entered or changed, a side
// agreed, the table done) the page reloads — but never while this phone is filling in
// the form, so nothing typed is lost. Only while the sheet is open: a done table no
// longer changes.
const sheet = document.querySelector("[data-sheet-state]");
if (sheet) {
  let leaving = false;
  // A form sent, a link followed or the page left otherwise: a poll answered now must
  // not reload this page over the navigation under way.
  document.addEventListener("submit", () => {
    leaving = true;
  });
  document.addEventListener("click", (event) => {
    if (event.target.closest("a[href]")) leaving = true;
  });
  window.addEventListener("beforeunload", () => {
    leaving = true;
  });
  const busy = () => {
    if (leaving) return true;
    const active = document.activeElement;
    if (active && active.closest("form") && active.matches("input, select, textarea")) return true;
    return [...document.querySelectorAll("[data-sheet-form] input, [data-sheet-form] select")].some(
      (el) =>
        (el.type === "radio" || el.type === "checkbox")
          ? el.checked !== el.defaultChecked
          : el.value !== el.defaultValue,
    );
  };
  setInterval(async () => {
    if (document.hidden || busy()) return;
    try {
      const res = await fetch(`${location.pathname}?format=json`, { credentials: "same-origin" });
      if (!res.ok) return;
      const data = await res.json();
      if (data.state !== sheet.dataset.sheetState && !busy()) location.reload();
    } catch (e) {
      // offline for a moment: the next poll tries again
    }
  }, 5000);
}
