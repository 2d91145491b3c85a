// The computer players getting ready: on the local game's first start after an install
// the search bot compiles (20 s to a minute) while the table is already open.  The page
// says so, with the progress the server reports (GET /api/preparing), until it is done.

import { api } from "./api.js";
import { t } from "./strings.js";

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
    box.querySelector(".preparing-text").textContent = t(state.compiling ? "preparing.compiling" : "preparing.loading", { seconds });
    const bar = box.querySelector("progress");
    bar.max = Math.max(1, state.steps);
    if (state.step > 0) bar.value = state.step;
    else bar.removeAttribute("value"); // moving, not stuck: the first step is the longest
    bar.setAttribute("aria-label", t("preparing.progress", { step: state.step, steps: state.steps }));
    await new Promise((resolve) => window.setTimeout(resolve, 1000));
  }
}
