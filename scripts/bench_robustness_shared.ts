/// <reference lib="dom" />
/**
 * What the two robustness benchmarks share (`bench_robustness.ts`, the recording of a fixture
 * shop; `bench_robustness_apps.ts`, optimized trails of three apps): the Chrome DevTools
 * Recorder's selectors of an element, computed in the page as the Recorder does.
 *
 * @module
 */

/** The Chrome Recorder's selector kinds for an element, computed as the Recorder does. */
export function recorderSelectorsInPage(el: Element): { css: string; xpath: string } {
  const testAttr = ["data-testid", "data-test", "data-qa", "data-cy", "data-test-id"]
    .find((a) => el.hasAttribute(a));
  const cssPart = (e: Element): string => {
    const tag = e.tagName.toLowerCase();
    const parent = e.parentElement;
    if (!parent) return tag;
    const same = Array.from(parent.children).filter((c) => c.tagName === e.tagName);
    return same.length > 1 ? `${tag}:nth-of-type(${same.indexOf(e) + 1})` : tag;
  };
  let css: string;
  if (testAttr) css = `[${testAttr}='${el.getAttribute(testAttr)}']`;
  else if (el.id) css = `#${CSS.escape(el.id)}`;
  else {
    const parts: string[] = [];
    let e: Element | null = el;
    while (e && e !== document.body) {
      if (e.id) {
        parts.unshift(`#${CSS.escape(e.id)}`);
        break;
      }
      parts.unshift(cssPart(e));
      e = e.parentElement;
    }
    css = parts.join(" > ");
  }
  const xparts: string[] = [];
  let x: Element | null = el;
  while (x && x !== document.documentElement) {
    if (x.id) {
      xparts.unshift(`//*[@id="${x.id}"]`);
      break;
    }
    const parent: Element | null = x.parentElement;
    const same = parent ? Array.from(parent.children).filter((c) => c.tagName === x!.tagName) : [];
    xparts.unshift(
      `/${x.tagName.toLowerCase()}${same.length > 1 ? `[${same.indexOf(x) + 1}]` : ""}`,
    );
    x = parent;
  }
  const xpath = xparts[0]?.startsWith("//*") ? xparts.join("") : `/html${xparts.join("")}`;
  return { css, xpath };
}
