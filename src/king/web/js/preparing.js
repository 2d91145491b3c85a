// The computer players getting ready: the local game builds its bots while the table is
// already open (a blink: the engine loads in a tenth of a second).  Should it take long,
// the page says so, with the progress the server reports (GET /api/preparing).

import { api } from "./api.js";
import { t } from "./strings.js";

const POLL_MS = 250;

/** Show #preparing while the server prepares its bots; resolve once they are ready. */
export async function watchPreparing() {
  const box = document.getElementById("preparing");
  for (;;) {
    let state;
    try {
      state = await api.preparing();
    } catch {
      state = { ready: true }; // an older server, or none: nothing to say
    }
    box.hidden = state.ready;
    document.body.dataset.preparing = String(!state.ready);
    if (state.ready) return;
    const seconds = Math.round(state.seconds);
    box.querySelector(".preparing-text").textContent = t("preparing.loading", { seconds });
    const bar = box.querySelector("progress");
    bar.max = Math.max(1, state.steps);
    if (state.step > 0) bar.value = state.step;
    else bar.removeAttribute("value"); // moving, not stuck: the first step is the longest
    bar.setAttribute("aria-label", t("preparing.progress", { step: state.step, steps: state.steps }));
    // Asked again soon: a preparation is usually over within a blink, and the box
    // should not stay up a second longer than it is true.
    await new Promise((resolve) => window.setTimeout(resolve, POLL_MS));
  }
}
