// Pages that follow the tournament by reloading themselves ask first whether the person
// is busy with the page: a form being filled in, a question open, a form sent or a link
// followed (the navigation under way). Then the reload waits, so nothing typed or
// clicked is lost.

const CHANGED = (el) => {
  if (el.type === "radio" || el.type === "checkbox") return el.checked !== el.defaultChecked;
  if (el.tagName === "SELECT") {
    // A select has no defaultValue: its first option, unless one is marked selected.
    const initial = Math.max(0, [...el.options].findIndex((o) => o.defaultSelected));
    return el.selectedIndex !== initial;
  }
  return el.value !== el.defaultValue;
};

// `fields`: the form fields whose change keeps the page; `openDetails`: an open
// <details> (a question such as "close the tournament?") keeps it too.
export function busyWatch({
  fields = "form input:not([type=hidden]), form select, form textarea",
  openDetails = false,
} = {}) {
  let sent = false; // a form was sent: its answer is on the way
  let leftAt = null; // a link was followed (a download keeps the page: 10 s at most)
  document.addEventListener("submit", () => {
    sent = true;
  });
  document.addEventListener("click", (event) => {
    const link = event.target.closest("a[href]");
    if (link && !link.getAttribute("href").startsWith("#")) leftAt = Date.now();
  });
  window.addEventListener("beforeunload", () => {
    leftAt = Date.now();
  });
  return () => {
    if (sent || (leftAt !== null && Date.now() - leftAt < 10000)) return true;
    const active = document.activeElement;
    if (active && active.closest("form") && active.matches("input, select, textarea")) return true;
    if (openDetails && document.querySelector("details[open]")) return true;
    return [...document.querySelectorAll(fields)].some(CHANGED);
  };
}

// Reload as soon as the page is free (checked every second until then).
export function reloadWhenFree(busy) {
  if (!busy()) {
    location.reload();
    return;
  }
  const timer = setInterval(() => {
    if (!busy()) {
      clearInterval(timer);
      location.reload();
    }
  }, 1000);
}
