// The organizer's view follows the tables: a reload every 15 s, but not while the
// organizer is filling in a form (replacing a player) or has the close question open.
let leaving = false; // a form was sent: its answer is on the way
document.addEventListener("submit", () => {
  leaving = true;
});
const busy = () => {
  if (leaving) return true;
  const active = document.activeElement;
  if (active && active.closest("form") && active.matches("input, select, textarea")) return true;
  if (document.querySelector("details[open]")) return true;
  return [...document.querySelectorAll("form input:not([type=hidden])")].some(
    (el) => el.value && el.value !== el.defaultValue,
  );
};
setInterval(() => {
  if (!busy()) location.reload();
}, 15000);
