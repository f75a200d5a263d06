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

// The form's one-time key (views.create) stays with this page's place in the history:
// back here with the browser's Back button (which fetches the page again, with a new
// key), the form sent again carries the key it was first sent with, and the server
// shows the tournament it made instead of making a second one.
const key = document.querySelector("[data-create-form] [data-form-key]");
if (key) {
  const state = history.state || {};
  if (state.formKey) key.value = state.formKey;
  else history.replaceState({ ...state, formKey: key.value }, "");
}
