/**
 * A minimal recorder for the playback tests and the robustness benchmark: given a CSS
 * selector on the live page, computes every selector a recorder keeps for the element
 * (data-testid, aria-label, role + accessible name from the accessibility tree, id, text, a
 * CSS path without ids, the center point and the viewport), as the human recorder does.
 *
 * @module
 */
/// <reference lib="dom" />
import type { Page } from "puppeteer-core";
import type { Target } from "../../engine/playback/actions.ts";

/** The element facts computed in the page. */
interface Facts {
  testId: string;
  ariaLabel: string;
  id: string;
  text: string;
  cssPath: string;
  x: number;
  y: number;
}

/**
 * Records the target an action on `selector` would have.
 *
 * @param page the live page
 * @param selector a CSS selector naming exactly one element
 * @returns the target with every selector the recorder knows
 * @throws {Error} when the selector matches nothing
 */
export async function recordTarget(page: Page, selector: string): Promise<Target> {
  const handle = await page.$(selector);
  if (!handle) throw new Error(`recordTarget: nothing matches ${selector}`);
  try {
    const facts = await handle.evaluate(factsInPage);
    const ax = await page.accessibility.snapshot({ root: handle, interestingOnly: false });
    const target: Target = { point: { x: Math.round(facts.x), y: Math.round(facts.y) } };
    if (facts.testId) target.testId = facts.testId;
    if (facts.ariaLabel) target.ariaLabel = facts.ariaLabel;
    if (ax?.role && ax.role !== "generic" && ax.role !== "none") target.role = ax.role;
    if (ax?.name && target.role) target.name = ax.name;
    if (facts.id) target.id = facts.id;
    if (facts.text) target.text = facts.text;
    if (facts.cssPath) target.cssPath = facts.cssPath;
    return target;
  } finally {
    await handle.dispose();
  }
}

function factsInPage(el: Element): Facts {
  const segment = (e: Element): string => {
    const tag = e.tagName.toLowerCase();
    const classes = Array.from(e.classList).map((c) => "." + CSS.escape(c)).join("");
    const parent = e.parentElement;
    if (!parent) return tag + classes;
    const same = Array.from(parent.children).filter((c) => c.tagName === e.tagName);
    return tag + classes + (same.length > 1 ? `:nth-of-type(${same.indexOf(e) + 1})` : "");
  };
  const parts: string[] = [];
  for (
    let e: Element | null = el;
    e && e !== document.body && e !== document.documentElement;
    e = e.parentElement
  ) {
    parts.unshift(segment(e));
  }
  const r = el.getBoundingClientRect();
  const own = el instanceof HTMLInputElement || el instanceof HTMLSelectElement ||
      el instanceof HTMLTextAreaElement
    ? ""
    : ((el as HTMLElement).innerText ?? "").replace(/\s+/g, " ").trim();
  return {
    testId: el.getAttribute("data-testid") ?? "",
    ariaLabel: el.getAttribute("aria-label") ?? "",
    id: el.id,
    text: own.length <= 80 ? own : "",
    cssPath: "body > " + parts.join(" > "),
    x: r.x + r.width / 2,
    y: r.y + r.height / 2,
  };
}
