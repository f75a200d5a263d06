// Site-wide niceties: the language menu. A choice picked from the list (mouse, a phone's
// picker) applies at once; an arrow key or a typed letter only moves the choice (WCAG
// 3.2.2), and Enter or the button applies it. The button stays for no-JS. After the
// switch the reloaded page gives the focus back to the list.
const form = document.querySelector(".lang-form");
if (form) {
  const select = form.querySelector("select");
  const go = form.querySelector(".lang-go");
  const FOCUS_KEY = "manillen-lang-focus";
  let keyed = false; // a key is down on the list: its change is a step, not a choice
  go?.setAttribute("hidden", "");
  form.addEventListener("submit", () => {
    try {
      sessionStorage.setItem(FOCUS_KEY, "1");
    } catch {
      // storage refused (private mode): the page loads without the focus put back
    }
  });
  select?.addEventListener("keydown", (event) => {
    if (event.key === "Enter") {
      event.preventDefault();
      form.requestSubmit();
      return;
    }
    keyed = true;
  });
  select?.addEventListener("keyup", () => {
    keyed = false;
  });
  select?.addEventListener("blur", () => {
    keyed = false;
  });
  select?.addEventListener("change", () => {
    if (keyed) {
      go?.removeAttribute("hidden");
    } else {
      form.requestSubmit();
    }
  });
  let back = false;
  try {
    back = sessionStorage.getItem(FOCUS_KEY) === "1";
    sessionStorage.removeItem(FOCUS_KEY);
  } catch {
    back = false;
  }
  if (back) select?.focus();
}

// A rules choice shows the note of the rules chosen (the new-game form).
for (const select of document.querySelectorAll("select[data-rules]")) {
  const sync = () => {
    for (const note of select.form?.querySelectorAll("[data-rules-hint]") || []) {
      note.hidden = note.dataset.rulesHint !== select.value;
    }
  };
  select.addEventListener("change", sync);
  sync();
}

// The print pages' "Print" button (no inline handler: the Content-Security-Policy
// allows scripts from our own files only).
document.addEventListener("click", (event) => {
  if (event.target instanceof Element && event.target.closest("[data-print-button]")) {
    window.print();
  }
});

// A page's messages (saved, refused...) sit in a live region; a region's content at
// load is not read out, so it is put in again a moment later, which is.
for (const list of document.querySelectorAll(".t-messages")) {
  const items = [...list.children].map((li) => [li, [...li.childNodes]]);
  for (const [li] of items) li.replaceChildren();
  setTimeout(() => {
    for (const [li, nodes] of items) li.replaceChildren(...nodes);
  }, 150);
}

// A refused form: the reader is taken to the first field it is about (aria-invalid, set
// by Django's widgets and the score sheet); on a phone the form can be far down the page.
{
  const invalid = document.querySelector('[aria-invalid="true"]');
  const field = invalid?.matches("input, select, textarea")
    ? invalid
    : invalid?.querySelector("input, select, textarea");
  if (field && !field.closest("details:not([open])")) field.focus();
}
