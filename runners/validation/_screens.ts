/**
 * Captures the replay's screens without changing the playback runner: the driver is wrapped so
 * that the first element lookup after anything that may change the page takes a snapshot, and
 * the store is wrapped so that each `PlaybackActionCompleted` files the screen its action
 * resolved against under the action's index, and the navigation result (the HTTP status the page
 * answered with) of an action that navigated, and the document answer (HTTP status, or the network
 * error behind the browser's error page) of any action after which a new document had loaded — a
 * click on a link, a form posted. Private to `runners/validation/`.
 *
 * @module
 */
import type { DocumentAnswer, Driver, NavigationResult, Snapshot } from "../../drivers/mod.ts";
import type { EventStore } from "../../events/mod.ts";
import type { NewEvent } from "../../events/mod.ts";
import type { SecretScrubber } from "../../drivers/mod.ts";

const MUTATING = new Set([
  "navigate",
  "tap",
  "type",
  "press",
  "scroll",
  "scrollTo",
  "select",
  "check",
  "switchTab",
]);

/** A driver and store pair that records the screen each action resolved against. */
export interface ScreenRecorder {
  driver: Driver;
  store: EventStore;
  /** Snapshot each action's lookups ran against, by plan action index. */
  screens: Map<number, Snapshot>;
  /** The last navigation of each action that navigated (its HTTP status), by plan action index. */
  navigations: Map<number, NavigationResult>;
  /**
   * The new document each action led to (a link followed, a form posted, a navigate), by plan
   * action index: how it answered. A load the playback ended before filing goes to the last action.
   */
  documents: Map<number, DocumentAnswer>;
}

/**
 * Wraps a driver and a store for one playback.
 *
 * @param driver the browser or device
 * @param store the event store
 * @param scrubber secrets (memory values supplied for the replay) taken out of every event
 * @returns the wrapped pair and the screens they fill
 */
export function recordScreens(
  driver: Driver,
  store: EventStore,
  scrubber?: SecretScrubber,
): ScreenRecorder {
  let dirty = true;
  let current: Snapshot | undefined;
  let looked = false;
  const screens = new Map<number, Snapshot>();
  const navigations = new Map<number, NavigationResult>();
  let navigated: NavigationResult | undefined;
  const documents = new Map<number, DocumentAnswer>();
  let seenDocument = driver.documentAnswer?.()?.seq;
  let lastIndex: number | undefined;
  /** Files a document that loaded since the last look under action `index`. */
  const fileDocument = (index: number | undefined) => {
    const doc = driver.documentAnswer?.();
    if (index === undefined || !doc || doc.seq === seenDocument) return;
    seenDocument = doc.seq;
    documents.set(index, doc);
  };
  const wrappedDriver = new Proxy(driver, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      if (prop === "snapshot") {
        return async () => {
          current = await target.snapshot();
          dirty = false;
          looked = true;
          return current;
        };
      }
      if (prop === "find") {
        return async (...args: unknown[]) => {
          if (dirty || !current) {
            current = await target.snapshot();
            dirty = false;
          }
          looked = true;
          return await value.apply(target, args);
        };
      }
      if (typeof prop === "string" && MUTATING.has(prop)) {
        return async (...args: unknown[]) => {
          dirty = true;
          try {
            const out = await value.apply(target, args);
            if (prop === "navigate") navigated = out as NavigationResult;
            return out;
          } finally {
            dirty = true;
          }
        };
      }
      return value.bind(target);
    },
  });
  const wrappedStore = new Proxy(store, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      if (prop === "append") {
        return (streamId: string, events: NewEvent[], options?: unknown) => {
          for (const e of events) {
            if (e.type === "PlaybackCompleted") fileDocument(lastIndex);
            if (e.type !== "PlaybackActionCompleted") continue;
            fileDocument(e.data.index);
            lastIndex = e.data.index;
            if (looked && current) screens.set(e.data.index, current);
            looked = false;
            if (navigated) navigations.set(e.data.index, navigated);
            navigated = undefined;
          }
          // Playback events (page urls, errors) are scrubbed whole: no field of theirs is memory.
          const stored = scrubber
            ? events.map((e) => ({ ...e, data: scrubber.value(e.data) }) as NewEvent)
            : events;
          return value.call(target, streamId, stored, options);
        };
      }
      return value.bind(target);
    },
  });
  return { driver: wrappedDriver, store: wrappedStore, screens, navigations, documents };
}
