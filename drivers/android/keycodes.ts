/**
 * Android key codes (`android.view.KeyEvent.KEYCODE_*`) for the key names Cairn records, and key
 * chords (`Ctrl+A`, `Shift+Tab`) as a key code plus `KeyEvent` meta state flags, sent with
 * Appium's `mobile: pressKey` (`{ keycode, metastate }`, as the legacy
 * `POST /session/:id/appium/device/press_keycode` takes them).
 *
 * @module
 */
import { splitKeyChord } from "../../engine/trail/mod.ts";
import { type PlaybackAction, sourceNumbers } from "../../engine/playback/mod.ts";

/** Key name (as `Driver.press` takes it, case-insensitive) → Android key code. */
const KEYCODES: Readonly<Record<string, number>> = {
  home: 3,
  back: 4,
  call: 5,
  endcall: 6,
  arrowup: 19,
  dpadup: 19,
  arrowdown: 20,
  dpaddown: 20,
  arrowleft: 21,
  dpadleft: 21,
  arrowright: 22,
  dpadright: 22,
  dpadcenter: 23,
  volumeup: 24,
  volumedown: 25,
  power: 26,
  camera: 27,
  tab: 61,
  space: 62,
  " ": 62,
  enter: 66,
  return: 66,
  backspace: 67,
  del: 67,
  menu: 82,
  search: 84,
  mediaplaypause: 85,
  pageup: 92,
  pagedown: 93,
  escape: 111,
  esc: 111,
  delete: 112,
  forwarddelete: 112,
  moveend: 123,
  end: 123,
  movehome: 122,
  appswitch: 187,
  recents: 187,
  // the modifiers pressed alone
  shift: 59,
  shiftleft: 59,
  control: 113,
  ctrl: 113,
  controlleft: 113,
  alt: 57,
  altleft: 57,
  meta: 117,
  metaleft: 117,
  capslock: 115,
  insert: 124,
  // letters (KEYCODE_A 29 … KEYCODE_Z 54) and function keys (KEYCODE_F1 131 … KEYCODE_F12 142)
  ...Object.fromEntries([..."abcdefghijklmnopqrstuvwxyz"].map((c, i) => [c, 29 + i])),
  ...Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`f${i + 1}`, 131 + i])),
};

/** Printable keys named by their character (the digits are not: `"7"` is key code 7). */
const CHARACTERS: Readonly<Record<string, number>> = {
  "`": 68,
  "-": 69,
  "=": 70,
  "[": 71,
  "]": 72,
  "\\": 73,
  ";": 74,
  "'": 75,
  "/": 76,
  "@": 77,
  "+": 81,
  ",": 55,
  ".": 56,
  "*": 17,
  "#": 18,
};

/** `KeyEvent` meta state flags of the modifiers a chord may hold (`META_*_ON`). */
export const ANDROID_META_STATE: Readonly<Record<"shift" | "alt" | "ctrl" | "meta", number>> = {
  shift: 1, // META_SHIFT_ON
  alt: 2, // META_ALT_ON
  ctrl: 4096, // META_CTRL_ON
  meta: 65536, // META_META_ON
};

/** Modifier names (case-insensitive, as web key chords spell them) → their meta state flag. */
const MODIFIERS: Readonly<Record<string, number>> = {
  shift: ANDROID_META_STATE.shift,
  alt: ANDROID_META_STATE.alt,
  option: ANDROID_META_STATE.alt,
  control: ANDROID_META_STATE.ctrl,
  ctrl: ANDROID_META_STATE.ctrl,
  controlormeta: ANDROID_META_STATE.ctrl, // Playwright's portable shortcut modifier
  meta: ANDROID_META_STATE.meta,
  command: ANDROID_META_STATE.meta,
  cmd: ANDROID_META_STATE.meta,
};

/** A key press as Android takes it: the key code and the meta state held (0: none). */
export interface AndroidKeyPress {
  keycode: number;
  metastate: number;
}

/**
 * Looks up the Android key code of a key name.
 *
 * @param key a key name (`Enter`, `Back`, `ArrowDown`) or a numeric code as a string
 * @returns the key code, or undefined when the name is unknown
 * @example
 * ```ts
 * if (androidKeycode("Back") !== 4 || androidKeycode("Enter") !== 66) throw new Error();
 * ```
 */
export function androidKeycode(key: string): number | undefined {
  if (/^\d+$/.test(key)) return Number(key);
  if (key in CHARACTERS) return CHARACTERS[key];
  const name = key === " " ? key : key.toLowerCase().replace(/[\s_-]/g, "").replace(/^keycode/, "");
  return KEYCODES[name];
}

/**
 * Reads a key or a key chord (`Enter`, `Ctrl+A`, `Shift+Tab`, `Control+Shift+ArrowLeft`): the
 * last key's code, the modifiers before it as `KeyEvent` meta state flags.
 *
 * @param key a key name or a chord, as a `key_press` names it
 * @returns the key code and meta state, or why it has no Android equivalent (one line)
 * @example
 * ```ts
 * const chord = androidKeyPress("Ctrl+A");
 * if (!("keycode" in chord) || chord.keycode !== 29 || chord.metastate !== 4096) throw new Error();
 * const tab = androidKeyPress("Shift+Tab");
 * if (!("keycode" in tab) || tab.keycode !== 61 || tab.metastate !== 1) throw new Error();
 * if (!("problem" in androidKeyPress("Hyper+A"))) throw new Error();
 * ```
 */
export function androidKeyPress(key: string): AndroidKeyPress | { problem: string } {
  const keys = splitKeyChord(key);
  const last = keys.pop()!;
  let metastate = 0;
  for (const k of keys) {
    const flag = MODIFIERS[k.toLowerCase().replace(/[\s_-]/g, "")];
    if (flag === undefined) {
      return {
        problem: `${JSON.stringify(k)} in ${JSON.stringify(key)} is not a modifier ` +
          `(Shift, Ctrl, Alt, Meta)`,
      };
    }
    metastate |= flag;
  }
  const keycode = androidKeycode(last);
  if (keycode === undefined) {
    return { problem: `no Android key code for ${JSON.stringify(last)}` };
  }
  return { keycode, metastate };
}

/**
 * The first `key_press` of a plan's actions that Android cannot press, named as the replay table
 * numbers it (`action N`, the page opened first has none) with its trail step when known.
 *
 * @param actions a plan's actions
 * @returns one line naming the action and why, or undefined when every key maps
 * @example
 * ```ts
 * const line = androidKeyProblem([{ type: "key_press", key: "Ctrl+A" }, { type: "key_press", key: "Hyper+A", stepIndex: 1 }]);
 * if (line !== 'action 1 (step 2, key_press "Hyper+A"): "Hyper" in "Hyper+A" is not a modifier (Shift, Ctrl, Alt, Meta)') throw new Error(line);
 * ```
 */
export function androidKeyProblem(actions: readonly PlaybackAction[]): string | undefined {
  const numbers = sourceNumbers(actions);
  for (const [i, a] of actions.entries()) {
    if (a.type !== "key_press" || a.key === undefined) continue;
    const press = androidKeyPress(a.key);
    if (!("problem" in press)) continue;
    const which = numbers[i] === undefined ? "the added action" : `action ${numbers[i]}`;
    const step = a.stepIndex !== undefined ? `step ${a.stepIndex + 1}, ` : "";
    return `${which} (${step}key_press ${JSON.stringify(a.key)}): ${press.problem}`;
  }
  return undefined;
}
