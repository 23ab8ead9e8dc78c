/**
 * What the HTTP runs (playbacks, validations) of one browser owe each other: `cairn serve` keeps
 * its browser between runs, so a run starts where the last one left the tab (`lock.html?code=<pin>`,
 * a secret given to that run as `memory`). Each run opens about:blank first, so nothing of that
 * page reaches its events, and every value given to a run in the browser is taken out of the
 * events of every later run there too (the guarantee: a playback given `tab` plays on the page it
 * finds, and a page may not let go). The browser is the one the driver drives, not the registry's
 * driver: with `CAIRN_BROWSER_WS` the playbacks' and the validations' drivers both drive the
 * first tab of the same browser, so a playback's secret is kept out of a later validation and
 * the other way round. Private to `api/`.
 *
 * @module
 */
import type { Driver } from "../drivers/driver.ts";
import { ChromeDriver } from "../drivers/chrome/chrome_driver.ts";

/** How long a page may take to let go for about:blank (it is left as it is after that). */
const BLANK_MS = 5_000;

/** The values given to the runs of each browser since it launched, by {@linkcode browserOf}. */
const given = new Map<unknown, Set<string>>();

/**
 * The browser a driver drives: a Chrome driver's by its DevTools endpoint (every driver
 * connected to one `CAIRN_BROWSER_WS` browser drives the same tabs), any other the driver itself.
 */
function browserOf(driver: Driver): unknown {
  return driver instanceof ChromeDriver ? `ws:${driver.browser.wsEndpoint()}` : driver;
}

/**
 * Remembers the memory values given to a run in a browser.
 *
 * @param driver the browser the run plays in
 * @param values the memory values given to this run
 * @returns every value given to a run in this browser so far (these included): the run takes
 *   each out of every event it stores
 */
export function browserSecrets(driver: Driver, values: Iterable<string>): string[] {
  const key = browserOf(driver);
  const secrets = given.get(key) ?? new Set<string>();
  for (const v of values) if (v !== "") secrets.add(v);
  if (secrets.size > 0) given.set(key, secrets);
  return [...secrets];
}

/**
 * Opens about:blank in the tab a run is about to play in, once the run holds the browser (never
 * under a run still playing there). A page that does not let go within 5 s is left as it is:
 * {@linkcode browserSecrets} still keeps what it shows out of the run's events.
 *
 * @param driver the browser
 */
export async function blankPage(driver: Driver): Promise<void> {
  if (!(driver instanceof ChromeDriver)) return;
  // the page itself, not the driver's navigate: about:blank has no response, and the driver
  // would wait for the DOM to settle as after a same-document navigation (~0.65 s, not ~0.15)
  await driver.page.goto("about:blank", { waitUntil: "load", timeout: BLANK_MS }).catch(() => {});
}

/**
 * Forgets the values given to the runs of a browser that is closing. A browser Cairn only
 * connected to (`CAIRN_BROWSER_WS`) outlives the connection, its tab still on the page the last
 * run left: its values are kept while this process runs.
 *
 * @param driver the driver being closed
 */
export function leaveBrowser(driver: Driver): void {
  if (driver instanceof ChromeDriver && driver.userDataDir === undefined) return;
  given.delete(browserOf(driver));
}
