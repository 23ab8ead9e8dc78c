/**
 * What the long-running routers (blaze, playbacks, validations) share: one registry per event
 * store, and the browser they open when the caller gives no driver.
 *
 * @module
 */
import type { EventStore } from "../events/mod.ts";
import type { Driver } from "../drivers/mod.ts";
import { ChromeDriver } from "../drivers/chrome/mod.ts";

/** A registry whose options can be changed after it was made. */
export interface Configurable<O> {
  configure(options: O): void;
}

/**
 * Makes a per-store accessor: the first call for a store creates its registry, later calls
 * return it (reconfigured when options are given).
 *
 * @param create makes the registry of a store
 * @returns `(store, options?) → registry`
 * @example
 * ```ts
 * class R { n = 0; configure(o: { n: number }) { this.n = o.n; } }
 * const of = perStore((_s, o?: { n: number }) => { const r = new R(); if (o) r.configure(o); return r; });
 * const store = {} as Parameters<typeof of>[0];
 * if (of(store) !== of(store, { n: 2 }) || of(store).n !== 2) throw new Error();
 * ```
 */
export function perStore<R extends Configurable<O>, O>(
  create: (store: EventStore, options?: O) => R,
): (store: EventStore, options?: O) => R {
  const registries = new WeakMap<EventStore, R>();
  return (store, options) => {
    let r = registries.get(store);
    if (!r) {
      r = create(store, options);
      registries.set(store, r);
    } else if (options) r.configure(options);
    return r;
  };
}

/**
 * Launches the default browser: Debian's Chromium, or the one at `CAIRN_BROWSER_WS`.
 *
 * @param options `localFiles`: it may open `file:` pages (the blaze daemon of the user's own
 *   CLI; never a server's)
 * @returns a Chrome driver
 */
export function launchDefaultChrome(options: { localFiles?: boolean } = {}): Promise<Driver> {
  const ws = Deno.env.get("CAIRN_BROWSER_WS");
  return ChromeDriver.launch({ ...(ws ? { browserWs: ws } : {}), ...options });
}
