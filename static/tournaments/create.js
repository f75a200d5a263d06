// The new-tournament form: show the fields of the chosen format only (solo, or a
// tournament of tables). Without this script both parts show, each under its title.
const form = document.querySelector("[data-create-form]");
if (form) {
  const radios = form.querySelectorAll("input[name=format]");
  const parts = form.querySelectorAll("[data-for-format]");
  const show = () => {
    const checked = form.querySelector("input[name=format]:checked");
    const kind = checked && checked.value !== "solo-duplicate" ? "tables" : "solo";
    for (const part of parts) {
      part.hidden = part.dataset.forFormat !== kind;
    }
  };
  radios.forEach((r) => r.addEventListener("change", show));
  show();
}
