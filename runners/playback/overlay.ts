/// <reference lib="dom" />
/**
 * The in-page overlay of playback: a subtitle (`Playback [3/12]: click …`) and a
 * highlight box around the element a healed action matched. Drawn in a closed shadow root,
 * `aria-hidden` and `pointer-events: none`, so lookups and input never see it.
 *
 * Works with any driver that exposes a puppeteer-like `page.evaluate` (the Chrome driver);
 * on other drivers it does nothing.
 *
 * @module
 */
import type { Bounds } from "../../engine/screens/mod.ts";

interface EvaluatingPage {
  evaluate<A extends unknown[], R>(fn: (...args: A) => R, ...args: A): Promise<Awaited<R>>;
}

function pageOf(driver: unknown): EvaluatingPage | undefined {
  const page = (driver as { page?: unknown }).page;
  if (page && typeof (page as EvaluatingPage).evaluate === "function") {
    return page as EvaluatingPage;
  }
  return undefined;
}

/**
 * Shows `text` as the playback subtitle and, when given, a highlight box at `highlight`.
 * Failures (a page mid-navigation) are ignored: the overlay never fails an action.
 *
 * @param driver a driver (the Chrome driver draws; others ignore the call)
 * @param overlay the subtitle text and an optional box in viewport pixels
 * @returns whether the overlay was drawn
 */
export async function showOverlay(
  driver: unknown,
  overlay: { subtitle?: string; highlight?: Bounds | null },
): Promise<boolean> {
  const page = pageOf(driver);
  if (!page) return false;
  try {
    await page.evaluate(
      drawOverlayInPage,
      overlay.subtitle ?? null,
      overlay.highlight === undefined ? "keep" : overlay.highlight,
    );
    return true;
  } catch {
    return false;
  }
}

/** Removes the overlay from the page. */
export async function clearOverlay(driver: unknown): Promise<void> {
  const page = pageOf(driver);
  if (!page) return;
  await page.evaluate(() => {
    document.querySelectorAll("cairn-playback-overlay").forEach((e) => e.remove());
  }).catch(() => {});
}

/** Runs in the page: creates or updates the overlay host. Self-contained (serialised). */
function drawOverlayInPage(
  subtitle: string | null,
  highlight: { x: number; y: number; w: number; h: number } | null | "keep",
): void {
  const w = window as unknown as { __cairnOverlay?: ShadowRoot };
  let root = w.__cairnOverlay;
  if (!root || !root.host.isConnected) {
    const host = document.createElement("cairn-playback-overlay");
    host.setAttribute("aria-hidden", "true");
    host.style.cssText =
      "position:fixed;inset:0;pointer-events:none;z-index:2147483647;display:block;";
    root = host.attachShadow({ mode: "closed" });
    root.innerHTML = `<style>
      .sub{position:fixed;left:50%;bottom:16px;transform:translateX(-50%);max-width:90vw;
        background:rgba(0,0,0,.78);color:#fff;font:14px/1.4 system-ui,sans-serif;
        padding:6px 12px;border-radius:6px;white-space:nowrap;overflow:hidden;
        text-overflow:ellipsis}
      .box{position:fixed;border:3px solid #ff2d55;box-shadow:0 0 0 2px rgba(255,255,255,.8);
        border-radius:3px;display:none}
    </style><div class="sub"></div><div class="box"></div>`;
    (document.body ?? document.documentElement).appendChild(host);
    w.__cairnOverlay = root;
  }
  const sub = root.querySelector(".sub") as HTMLElement;
  const box = root.querySelector(".box") as HTMLElement;
  if (subtitle !== null) sub.textContent = subtitle;
  if (highlight === null) box.style.display = "none";
  else if (highlight !== "keep") {
    box.style.display = "block";
    box.style.left = `${highlight.x - 3}px`;
    box.style.top = `${highlight.y - 3}px`;
    box.style.width = `${highlight.w}px`;
    box.style.height = `${highlight.h}px`;
  }
}
