// The person's table settings, kept in this browser: tap a card twice to play it
// (confirm before play), and sounds (off until asked for).  Both sit in the table's
// menu (#opt-confirm, #opt-sound).

const KEYS = { confirm: "king:confirm", sound: "king:sound" };

function storage() {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

/** Whether a setting is on (every one is off until the person turns it on). */
export function setting(name) {
  return storage()?.getItem(KEYS[name]) === "on";
}

export function saveSetting(name, on) {
  storage()?.setItem(KEYS[name], on ? "on" : "off");
}

/** Wire a checkbox to its setting; `changed(on)` hears each change. */
export function installSetting(name, checkbox, changed = () => {}) {
  checkbox.checked = setting(name);
  checkbox.addEventListener("change", () => {
    saveSetting(name, checkbox.checked);
    changed(checkbox.checked);
  });
}
