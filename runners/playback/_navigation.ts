/**
 * Page-level actions that move between pages or tabs: navigate (with the landing compared to
 * the url asked for), back, reload, switch_tab.
 *
 * @module
 */
import { STATUS_CODES } from "node:http";
import type { PlaybackAction } from "../../engine/playback/mod.ts";
import { isUnsafeUrl } from "../../drivers/mod.ts";
import { ActionFailure, errorText, type Outcome, type RunContext } from "./_context.ts";
import { template } from "./_memory.ts";
import { settle } from "./_settle.ts";
import { joinWarnings } from "./report.ts";

/** A `navigate`: the url (from memory) loaded, and how the landing differs from it. */
export async function navigate(ctx: RunContext, action: PlaybackAction): Promise<Outcome> {
  const d = ctx.driver;
  if (!action.url) throw new ActionFailure("page_error", "navigate has no url");
  const url = template(ctx, action.url);
  let nav;
  try {
    nav = await d.navigate(url);
  } catch (err) {
    throw new ActionFailure(isUnsafeUrl(err) ? "unsafe_url" : "page_error", errorText(err));
  }
  ctx.lastUrl = nav.finalUrl;
  const out: Outcome = {
    status: "ok",
    selectorUsed: "navigate",
    pageUrl: nav.finalUrl,
    navigation: { waitedFor: nav.waitedFor, durationMs: nav.durationMs },
  };
  if (nav.waitedFor === "timeout" && !sameUrl(nav.finalUrl, url)) {
    // Still on the previous page: the server was slow, not an auth redirect.
    throw new ActionFailure(
      "navigation_timeout",
      `${url} did not load within 5 s; the browser still shows ${nav.finalUrl}`,
    );
  }
  if (sameUrl(nav.finalUrl, url)) {
    ctx.urlMismatch = false;
  } else {
    ctx.urlMismatch = true;
    out.originalUrl = url;
    out.errorCode = "url_mismatch";
    out.error = `Expected ${url}, landed on ${nav.finalUrl}. Browser may need authentication.`;
  }
  if (nav.waitedFor === "timeout") {
    out.warning = "navigation_timeout: the page was not ready after 5 s; continuing";
    if (!out.errorCode) {
      out.errorCode = "navigation_timeout";
      out.error = `${url} did not finish loading within 5 s`;
    }
  }
  if (nav.status !== undefined && nav.status >= 400) {
    // The page loaded (as Playwright's goto, a 404 does not fail it), but later selectors
    // will look for the recorded page on an error page: the report says why.
    const reason = nav.statusText || STATUS_CODES[nav.status] || "";
    out.warning = joinWarnings(
      out.warning,
      `HTTP ${nav.status}${reason ? ` ${reason}` : ""}`,
    );
  }
  return out;
}

/** A `back`: the tab's history on the web (waiting for the page), the Back key elsewhere. */
export async function back(ctx: RunContext): Promise<Outcome> {
  const d = ctx.driver;
  if (!d.back) {
    await d.press("Back");
    await settle(ctx);
    return { status: "ok", selectorUsed: "back" };
  }
  let nav;
  try {
    nav = await d.back();
  } catch (err) {
    throw new ActionFailure("page_error", errorText(err));
  }
  ctx.lastUrl = nav.finalUrl;
  if (nav.waitedFor === "timeout" && !sameUrl(nav.finalUrl, nav.requestedUrl)) {
    throw new ActionFailure(
      "navigation_timeout",
      `Going back to ${nav.requestedUrl} did not finish within 5 s; the browser still shows ${nav.finalUrl}`,
    );
  }
  return {
    status: "ok",
    selectorUsed: "back",
    pageUrl: nav.finalUrl,
    navigation: { waitedFor: nav.waitedFor, durationMs: nav.durationMs },
    ...(nav.waitedFor === "timeout"
      ? { warning: "navigation_timeout: the page was not ready after 5 s; continuing" }
      : {}),
  };
}

/** A `reload` (the browser's F5): the tab's page shown again, waiting for it (web only). */
export async function reload(ctx: RunContext): Promise<Outcome> {
  if (!ctx.driver.reload) {
    throw new ActionFailure(
      "unsupported_action_type",
      `reload: the ${ctx.plan.platform} driver cannot reload a page`,
    );
  }
  let nav;
  try {
    nav = await ctx.driver.reload();
  } catch (err) {
    throw new ActionFailure("page_error", errorText(err));
  }
  ctx.lastUrl = nav.finalUrl;
  if (nav.waitedFor === "timeout") {
    throw new ActionFailure(
      "navigation_timeout",
      `${nav.requestedUrl} did not reload within 5 s`,
    );
  }
  return { status: "ok", selectorUsed: "reload", pageUrl: nav.finalUrl };
}

/**
 * A `switch_tab`: a new tab (`newTab`, then its url if any), or the open tab that shows the
 * url — the one with the recorded id first when several do, else the recorded id alone.
 */
export async function switchTab(ctx: RunContext, action: PlaybackAction): Promise<Outcome> {
  const d = ctx.driver;
  const url = action.url ? template(ctx, action.url) : undefined;
  if (action.newTab) {
    if (!d.openTab) {
      throw new ActionFailure(
        "unsupported_action_type",
        `switch_tab: the ${ctx.plan.platform} driver cannot open a tab`,
      );
    }
    await d.openTab();
    if (!url) return { status: "ok", selectorUsed: "new_tab" };
    let nav;
    try {
      nav = await d.navigate(url);
    } catch (err) {
      throw new ActionFailure("page_error", errorText(err));
    }
    ctx.lastUrl = nav.finalUrl;
    return { status: "ok", selectorUsed: "new_tab", pageUrl: nav.finalUrl };
  }
  const tabs = await d.tabs();
  const showing = url ? tabs.filter((t) => sameUrl(t.url, url)) : [];
  const tab = showing.find((t) => t.id === action.tab) ?? showing[0] ??
    tabs.find((t) => t.id === action.tab);
  if (!tab) {
    throw new ActionFailure(
      "selector_not_found",
      `switch_tab: no open tab shows ${url ?? "the recorded page"}${
        action.tab ? ` and no tab ${action.tab} is open` : ""
      } (open: ${tabs.map((t) => `${t.id} ${t.url}`).join(", ") || "none"})`,
    );
  }
  await d.switchTab(tab.id);
  ctx.lastUrl = tab.url;
  return { status: "ok", selectorUsed: `tab ${tab.id}`, pageUrl: tab.url };
}

/**
 * Whether two urls name the same page: equal after dropping the fragment and a trailing slash.
 *
 * @param a a url
 * @param b another url
 * @returns true when they name the same page
 */
export function sameUrl(a: string, b: string): boolean {
  const norm = (u: string) => {
    try {
      const x = new URL(u);
      x.hash = "";
      return x.href.replace(/\/$/, "");
    } catch {
      return u.replace(/#.*$/, "").replace(/\/$/, "");
    }
  };
  return norm(a) === norm(b);
}
