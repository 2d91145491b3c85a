// Sounds at the table, off until the person turns them on (the menu's Sounds box,
// remembered): a soft click for each card played, a chime when it is the person's turn,
// a sweep when they take a trick.  Made with the Web Audio API from a few tones (no
// sound files to ship); played through the system's own output, so its volume and mute
// apply; never while the page is hidden.  <body data-sound> names the last one played
// (for tests: nothing is set while sounds are off).

import { setting } from "./settings.js";

let audio = null;

/** The notes of each sound: [frequency in Hz, start in s, length in s]. */
const SOUNDS = {
  card: [[660, 0, 0.05]],
  turn: [
    [784, 0, 0.12],
    [1047, 0.1, 0.18],
  ],
  trick: [
    [523, 0, 0.08],
    [659, 0.06, 0.08],
    [784, 0.12, 0.12],
  ],
};

function context() {
  if (audio === null) {
    const Context = window.AudioContext ?? window.webkitAudioContext;
    if (!Context) return null;
    audio = new Context();
  }
  if (audio.state === "suspended") audio.resume().catch(() => {});
  return audio;
}

/** Get the audio ready: browsers let a page make sound only after a tap, so the tap
 * that turns sounds on does this. */
export function unlockSound() {
  context();
}

/** Play one of SOUNDS, if sounds are on and the page is in view. */
export function sound(name) {
  if (!setting("sound") || document.hidden || !(name in SOUNDS)) return;
  const ctx = context();
  if (!ctx) return;
  const now = ctx.currentTime;
  for (const [frequency, start, length] of SOUNDS[name]) {
    const tone = ctx.createOscillator();
    const gain = ctx.createGain();
    tone.type = "sine";
    tone.frequency.value = frequency;
    gain.gain.setValueAtTime(0.0001, now + start);
    gain.gain.exponentialRampToValueAtTime(0.12, now + start + 0.01);
    gain.gain.exponentialRampToValueAtTime(0.0001, now + start + length);
    tone.connect(gain).connect(ctx.destination);
    tone.start(now + start);
    tone.stop(now + start + length + 0.02);
  }
  document.body.dataset.sound = name;
  document.body.dataset.sounds = String(Number(document.body.dataset.sounds ?? 0) + 1);
}
