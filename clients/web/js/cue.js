// Telling a player it is their turn when they look elsewhere: the tab's title says so, and a
// short tone sounds if they turned it on (the choice is remembered on this device).

import { t } from "./i18n.js";

const SOUND_KEY = "allfives.sound";

export class TurnCue {
  constructor() {
    this.sound = false;
    try {
      this.sound = localStorage.getItem(SOUND_KEY) === "on";
    } catch {
      // storage off: sound stays off
    }
    this.audio = null;
    this.turn = null;
    this.base = document.title;
  }

  /** Turn the sound on or off (a click, so the browser lets it play), and remember it. */
  setSound(on) {
    this.sound = on;
    try {
      localStorage.setItem(SOUND_KEY, on ? "on" : "off");
    } catch {
      // not kept
    }
    if (on) this.beep();
  }

  /** The room's title, and whether it is now this player's turn (`key` names the turn). */
  update(base, myTurn, key) {
    this.base = base;
    document.title = myTurn ? `${t("cue.turn_title")} · ${base}` : base;
    const fresh = myTurn && key !== this.turn;
    this.turn = myTurn ? key : null;
    if (fresh && this.sound && document.hidden) this.beep();
  }

  beep() {
    try {
      this.audio ??= new AudioContext();
      const now = this.audio.currentTime;
      const tone = this.audio.createOscillator();
      const gain = this.audio.createGain();
      tone.frequency.value = 660;
      gain.gain.setValueAtTime(0.0001, now);
      gain.gain.exponentialRampToValueAtTime(0.2, now + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, now + 0.35);
      tone.connect(gain).connect(this.audio.destination);
      tone.start(now);
      tone.stop(now + 0.4);
    } catch {
      // no audio here
    }
  }
}
