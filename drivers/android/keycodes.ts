/**
 * Android key codes (`android.view.KeyEvent.KEYCODE_*`) for the key names Cairn records, sent
 * with Appium's `mobile: pressKey`.
 *
 * @module
 */

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
};

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
  const name = key === " " ? key : key.toLowerCase().replace(/[\s_-]/g, "").replace(/^keycode/, "");
  return KEYCODES[name];
}
