// A table's score sheet follows what the others at the table enter on their phones:
// every 5 s a light poll; when the sheet changed (a deal entered or changed, a side
// agreed, the table done) the page reloads — but never while this phone is filling in
// the form, so nothing typed is lost. Only while the sheet is open: a done table no
// longer changes.
import { busyWatch } from "./busy.js";

// A form is sent once: a second tap while its answer is on the way (a slow network)
// would send the same deal again. Back on the page (the browser's cache), it may be
// sent again.
document.addEventListener("submit", (event) => {
  const form = event.target;
  if (form.dataset.sending) {
    event.preventDefault();
    return;
  }
  form.dataset.sending = "1";
});
window.addEventListener("pageshow", () => {
  for (const form of document.querySelectorAll("form[data-sending]")) delete form.dataset.sending;
});

const sheet = document.querySelector("[data-sheet-state]");
if (sheet) {
  const busy = busyWatch({
    fields: "[data-sheet-form] input:not([type=hidden]), [data-sheet-form] select",
  });
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
