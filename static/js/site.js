// Site-wide niceties: the language menu applies on change (the button stays for no-JS).
const form = document.querySelector(".lang-form");
if (form) {
  const select = form.querySelector("select");
  form.querySelector(".lang-go")?.setAttribute("hidden", "");
  select?.addEventListener("change", () => form.submit());
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
