/**
 * What the HTTP runs (playbacks, validations) of one browser owe each other: `cairn serve` keeps
 * its browsers between runs (one for playbacks, one for validations, or with `CAIRN_BROWSER_WS`
 * one connection each to the user's browser). Each playback and validation, and each replay of a
 * validation, starts in a fresh tab the driver opens ({@linkcode freshTab}), the tabs of the run
 * before it closed, so no page, history or script of an earlier run is there. In a browser Cairn
 * launched that tab is in a fresh browser context (no cookie, storage or cache of an earlier run;
 * the last run's context closed); in a `CAIRN_BROWSER_WS` browser it is in the user's own
 * context (signed in as they are), and the user's own tabs are never navigated, resized or
 * closed. Every value given to a run in a browser is also taken
 * out of the events of every later run there: a playback given `tab` plays on in a tab the last
 * playback left (`lock.html?code=<pin>`), and what the browser keeps across tabs (cookies, local
 * storage) can show a secret in a fresh tab too. The browser is the one the driver drives, not the
 * registry's driver: with `CAIRN_BROWSER_WS` the playbacks' and the validations' drivers are two
 * connections to one browser, so a playback's secret is kept out of a later validation and the
 * other way round. Private to `api/`.
 *
 * @module
 */
import type { Driver } from "../drivers/mod.ts";
import { ChromeDriver } from "../drivers/chrome/mod.ts";

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
 * Moves a run into a fresh tab once it holds the browser (never under a run still playing
 * there), in a fresh browser context in a browser Cairn launched:
 * {@linkcode ChromeDriver.freshTab}. Any other driver is left as it is.
 *
 * @param driver the browser
 */
export async function freshTab(driver: Driver): Promise<void> {
  if (driver instanceof ChromeDriver) await driver.freshTab();
}

/**
 * Forgets the values given to the runs of a browser that is closing. A browser Cairn only
 * connected to (`CAIRN_BROWSER_WS`) outlives the connection, and its cookies and storage with it:
 * its values are kept while this process runs.
 *
 * @param driver the driver being closed
 */
export function leaveBrowser(driver: Driver): void {
  if (driver instanceof ChromeDriver && driver.userDataDir === undefined) return;
  given.delete(browserOf(driver));
}
