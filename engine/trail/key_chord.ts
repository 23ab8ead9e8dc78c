/**
 * Key chords as a `key_press` names them: `Shift+Tab`, `Control+Shift+ArrowLeft` — modifiers
 * held down while the last key is pressed, written as Playwright's `press` takes them.
 *
 * @module
 */

/**
 * Splits a key press into the keys held down in order, the pressed key last. A `+` right after
 * another `+` (or alone) is the plus key itself: `Shift++` is Shift held while `+` is pressed.
 *
 * @param key a key name or a chord
 * @returns the keys, at least one
 * @example
 * ```ts
 * if (splitKeyChord("Shift+Tab").join(" ") !== "Shift Tab") throw new Error();
 * if (splitKeyChord("Tab").join(" ") !== "Tab" || splitKeyChord("+").join(" ") !== "+") throw new Error();
 * if (splitKeyChord("Control++").join(" ") !== "Control +") throw new Error();
 * ```
 */
export function splitKeyChord(key: string): string[] {
  const keys: string[] = [];
  let cur = "";
  for (const c of key) {
    if (c === "+" && cur !== "") {
      keys.push(cur);
      cur = "";
    } else cur += c;
  }
  if (cur !== "" || keys.length === 0) keys.push(cur);
  return keys;
}
