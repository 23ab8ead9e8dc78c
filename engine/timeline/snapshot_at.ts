/**
 * The snapshot text of a run at a position: the screen of a time-travel state, parsed and
 * rendered as `cairn snapshot` prints it.
 *
 * @module
 */
import type { EventStore } from "../../events/mod.ts";
import { parseHierarchy } from "../screens/mod.ts";
import { renderSnapshot } from "../screens/mod.ts";
import { HierarchyFormat } from "../screens/mod.ts";
import type { SessionState } from "./time_travel.ts";

/**
 * The snapshot text (elements and refs, as `cairn snapshot`) of a state's screen.
 *
 * @param store the store
 * @param state the state
 * @param options `bounds`: append each element's bounds
 * @returns the text, or null when the state has no screen with a hierarchy
 */
export async function snapshotAt(
  store: EventStore,
  state: SessionState,
  options: { bounds?: boolean } = {},
): Promise<string | null> {
  const ref = state.screen?.hierarchy;
  if (!ref) return null;
  const blob = await store.getBlob(ref.hash);
  const text = new TextDecoder().decode(blob.bytes);
  const format = state.screen!.format;
  const known = HierarchyFormat.safeParse(format);
  const screen = parseHierarchy(text, known.success ? { format: known.data } : {});
  return renderSnapshot(screen, options.bounds ? { bounds: true } : {});
}
