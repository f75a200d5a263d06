// Site-wide niceties: the language menu applies on change (the button stays for no-JS).
const form = document.querySelector(".lang-form");
if (form) {
  const select = form.querySelector("select");
  form.querySelector(".lang-go")?.setAttribute("hidden", "");
  select?.addEventListener("change", () => form.submit());
}
