/**
 * Captures Cairn's joined Chrome hierarchy (`cairn.chrome/v1`, see
 * `engine/screens/chrome_hierarchy.ts`) through a CDP session: three calls in parallel — the full
 * accessibility tree, a DOM snapshot with layout boxes and two computed styles (`overflow-x`,
 * `overflow-y`, to find scroll containers; DOM rects would double its cost), and one
 * `Runtime.evaluate` for url, title, viewport, device pixel ratio and scroll — then one join in
 * memory. No per-node CDP call.
 *
 * @module
 */
import type { CDPSession } from "puppeteer-core";
import type { ChromeHierarchy } from "../../engine/screens/mod.ts";
import {
  type AXNodeLike,
  type DomSnapshotLike,
  joinChromeHierarchy,
} from "../../engine/screens/mod.ts";

const PAGE_FACTS = `JSON.stringify({
  url: location.href,
  title: document.title,
  width: window.innerWidth,
  height: window.innerHeight,
  dpr: window.devicePixelRatio,
  x: window.scrollX,
  y: window.scrollY,
})`;

interface PageFacts {
  url: string;
  title: string;
  width: number;
  height: number;
  dpr: number;
  x: number;
  y: number;
}

/**
 * Captures the joined hierarchy of the page a CDP session is attached to.
 *
 * @param cdp a CDP session on the page (`page.createCDPSession()`)
 * @returns the joined hierarchy, ready to store as JSON or parse with `parseChromeHierarchy`
 * @throws {Error} when a CDP call fails (the page closed or navigated away mid-capture)
 */
export async function captureChromeHierarchy(cdp: CDPSession): Promise<ChromeHierarchy> {
  const [ax, snapshot, facts] = await Promise.all([
    cdp.send("Accessibility.getFullAXTree", {}),
    cdp.send("DOMSnapshot.captureSnapshot", { computedStyles: ["overflow-x", "overflow-y"] }),
    cdp.send("Runtime.evaluate", { expression: PAGE_FACTS, returnByValue: true }),
  ]);
  const f = JSON.parse(String(facts.result.value ?? "{}")) as PageFacts;
  const page = {
    url: f.url,
    title: f.title,
    viewport: { width: f.width || 1, height: f.height || 1 },
    devicePixelRatio: f.dpr || 1,
    scroll: { x: f.x || 0, y: f.y || 0 },
  };
  return joinChromeHierarchy({
    axNodes: ax.nodes as AXNodeLike[],
    snapshot: snapshot as unknown as DomSnapshotLike,
  }, page);
}
