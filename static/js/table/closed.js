// The tournament of this table closed (reason "tournament": the game was over already;
// "bot": the bot finished it). The end dialog's "the record once the tournament has
// closed" line gives way to the record (`record`: its URL, sent with the message), and a
// game the bot finished says so. `root` is the table's element (templates/game/table.html).
export function tournamentClosed(root, reason, record) {
  const sealed = root.querySelector("[data-record-sealed]");
  const link = root.querySelector("[data-record-link]");
  if (sealed && link && record) {
    link.href = record;
    sealed.hidden = true;
    link.hidden = false;
  }
  const bot = root.querySelector("[data-bot-finished]");
  if (bot && reason === "bot") bot.hidden = false;
}
