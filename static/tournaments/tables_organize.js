// The organizer's view follows the tables: a reload every 15 s, but not while the
// organizer is filling in a form (replacing a player), has a question open (closing the
// tournament) or is on the way to another page.
import { busyWatch } from "./busy.js";

const busy = busyWatch({ openDetails: true });
setInterval(() => {
  if (!busy()) location.reload();
}, 15000);
