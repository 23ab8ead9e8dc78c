/**
 * Test helper: reads refs out of snapshot text.
 *
 * @module
 */

/**
 * The ref a snapshot shows on the line with `label` (quoted, or inline after a colon).
 *
 * @param snapshot the rendered snapshot
 * @param label the element's label
 * @returns the ref
 */
export function refIn(snapshot: string, label: string): string {
  const line = snapshot.split("\n").find((l) =>
    l.includes(JSON.stringify(label)) || l.endsWith(`: ${label}`)
  );
  const m = line?.match(/\[(?:ref=)?([a-z]\d{1,3}[a-z]*)\]/);
  if (!m) throw new Error(`No ref for ${label} in snapshot:\n${snapshot}`);
  return m[1]!;
}

/**
 * The ref of the button named `name`, when another element (a heading) has the same name.
 *
 * @param snapshot the rendered snapshot
 * @param name the button's name
 * @returns the ref
 */
export function buttonRef(snapshot: string, name: string): string {
  const line = snapshot.split("\n").find((l) => l.includes("button") && l.includes(`"${name}"`));
  return refIn(line ?? "", name);
}
