/**
 * A trail as a Chrome DevTools Recorder flow (`cairn export TRAIL --format recorder`), the JSON
 * the Recorder panel imports and `@puppeteer/replay` plays: `setViewport`, `navigate`, then one
 * step per action. Each action's selector chain becomes the step's `selectors` array, in order:
 * `[data-testid="…"]` and `#id` CSS, `aria/Name[role="…"]`, `text/…`, and `xpath/…` for an
 * index or a row anchor (`childOf` text). Assertions are `waitForElement` steps (`assertText`'s
 * value as `properties.innerText`, `assertNotVisible` as `count: 0`).
 *
 * The Recorder has no variables: templates are evaluated against the trail's memory defaults,
 * and one that reads a value known only at run time (a `readText`, a secret) is kept as written
 * and warned about. What it cannot say at all (a regex, `readText`, a swipe, `back`) is a warning
 * naming the action.
 *
 * @module
 */
import type { Selector, Trail, TrailAction } from "../trail/mod.ts";
import { textAnchors } from "../trail/mod.ts";
import { evaluateTemplate } from "../trail/mod.ts";
import { splitKeyChord } from "../trail/mod.ts";
import {
  actionName,
  durationMs,
  type ExportResult,
  hasTemplate,
  isStrict,
  selectorChain,
  trailStem,
} from "./shared.ts";

type Step = Record<string, unknown>;

const xq = (s: string): string =>
  s.includes('"') ? `concat("${s.split('"').join(`", '"', "`)}")` : `"${s}"`;

/** An XPath step (`*[…]`) for one selector's own properties, or undefined. */
function xpathStep(sel: Selector): string | undefined {
  const preds: string[] = [];
  if (sel.testId !== undefined) preds.push(`@data-testid=${xq(sel.testId)}`);
  if (sel.id !== undefined) preds.push(`@id=${xq(sel.id)}`);
  if (sel.ariaLabel !== undefined) preds.push(`@aria-label=${xq(sel.ariaLabel)}`);
  if (sel.text !== undefined) preds.push(`normalize-space(.)=${xq(sel.text)}`);
  if (sel.cssPath !== undefined || sel.textRegex !== undefined || sel.role !== undefined) {
    return undefined;
  }
  return preds.length > 0 ? `*[${preds.join(" and ")}]` : undefined;
}

/** CSS for a selector's own properties (test id, id), or undefined. */
function cssOf(sel: Selector): string | undefined {
  const parts: string[] = [];
  if (sel.testId !== undefined) parts.push(`[data-testid=${JSON.stringify(sel.testId)}]`);
  if (sel.id !== undefined) {
    parts.unshift(
      /^[A-Za-z][\w-]*$/.test(sel.id) ? `#${sel.id}` : `[id=${JSON.stringify(sel.id)}]`,
    );
  }
  if (sel.cssPath !== undefined) return parts.length === 0 ? sel.cssPath : undefined;
  return parts.length > 0 ? parts.join("") : undefined;
}

/** One Recorder selector for a trail selector, or undefined when it has none. */
export function recorderSelector(sel: Selector): string | undefined {
  const anchors = textAnchors(sel);
  const { childOf, index, viewport: _v, xy: _xy, ...own } = sel;
  if (childOf !== undefined || index !== undefined) {
    const stepX = xpathStep(own);
    if (!stepX) return undefined;
    if (childOf === undefined) return `xpath/(//${stepX})[${index! + 1}]`;
    if (anchors) {
      // the innermost container showing each anchor text that holds the target
      let path = "";
      for (const text of [...anchors].reverse()) {
        path += `(//*[.//*[normalize-space(.)=${xq(text)}] and .//${stepX}])[last()]`;
      }
      const target = `${path}//${stepX}`;
      return `xpath/${index !== undefined ? `(${target})[${index + 1}]` : target}`;
    }
    const parentCss = cssOf(childOf);
    const childCss = cssOf(own);
    if (parentCss && childCss && index === undefined && childOf.childOf === undefined) {
      return `${parentCss} ${childCss}`;
    }
    const parentX = childOf.childOf === undefined ? xpathStep(childOf) : undefined;
    if (!parentX) return undefined;
    const target = `//${parentX}//${stepX}`;
    return `xpath/${index !== undefined ? `(${target})[${index + 1}]` : target}`;
  }
  const css = cssOf(own);
  if (css) return css;
  const role = own.role;
  const name = own.name ?? own.ariaLabel ?? own.contentDescription;
  if (name !== undefined) return `aria/${name}${role ? `[role=${JSON.stringify(role)}]` : ""}`;
  if (own.text !== undefined) return `text/${own.text}`;
  return undefined;
}

/**
 * Renders a trail as a DevTools Recorder flow.
 *
 * @param trail the trail
 * @returns the JSON text, the warnings and the file name
 */
export function trailToRecorder(trail: Trail): ExportResult {
  const warnings: string[] = [];
  if ((trail.config.platform ?? "web") !== "web") {
    warnings.push(`trail: platform ${trail.config.platform}: the Recorder plays browser tabs`);
  }
  const memory = { ...(trail.config.memory ?? {}) };
  const vp = trail.config.viewport ?? { width: 1280, height: 800 };
  const steps: Step[] = [{
    type: "setViewport",
    width: vp.width,
    height: vp.height,
    deviceScaleFactor: 1,
    isMobile: false,
    hasTouch: false,
    isLandscape: false,
  }];
  if (trail.config.url) steps.push({ type: "navigate", url: trail.config.url });
  trail.trail.forEach((step, si) => {
    if (step.recordable === false) {
      warnings.push(`step ${si + 1} ${JSON.stringify(step.step)}: not recordable; left out`);
    }
    (step.recording ?? []).forEach((action, ai) => {
      const name = actionName(si, step, ai, action);
      const warn = (w: string) => warnings.push(`${name}: ${w}`);
      const value = (s: string): string => {
        if (!hasTemplate(s)) return s;
        try {
          return evaluateTemplate(s, memory);
        } catch {
          warn(`${JSON.stringify(s)} needs a value known only at run time; written as is`);
          return s;
        }
      };
      steps.push(...actionSteps(action, isStrict(trail, step), warn, value, memory));
    });
  });
  const flow = { title: trail.config.title ?? trail.config.id ?? "trail", steps };
  return {
    text: JSON.stringify(flow, null, 2) + "\n",
    warnings,
    fileName: `${trailStem(trail)}.recorder.json`,
  };
}

function actionSteps(
  a: TrailAction,
  strict: boolean,
  warn: (w: string) => void,
  value: (s: string) => string,
  memory: Record<string, string | null>,
): Step[] {
  const chain = selectorChain(a, strict);
  const selectors: string[][] = [];
  let dropped = 0;
  for (const sel of chain) {
    const s = recorderSelector(sel);
    if (s) selectors.push([value(s)]);
    else dropped++;
  }
  if (dropped > 0 && selectors.length > 0) {
    warn(`${dropped} selector(s) of its chain have no Recorder selector; left out`);
  }
  const target = (): Step | undefined => {
    if (selectors.length > 0) return { target: "main", selectors };
    warn(
      chain.length === 0
        ? "no selector; left out"
        : "no selector the Recorder can express; left out",
    );
    return undefined;
  };
  const repeat = (s: Step[]): Step[] => Array.from({ length: a.repeat ?? 1 }, () => s).flat();
  switch (a.kind) {
    case "tap":
    case "longPress": {
      const t = target();
      if (!t) return [];
      if (a.kind === "longPress") {
        warn("a long press is played as a click (the Recorder has no hold)");
      }
      return repeat([{ type: "click", ...t, offsetX: 1, offsetY: 1 }]);
    }
    case "doubleTap": {
      const t = target();
      return t ? repeat([{ type: "doubleClick", ...t, offsetX: 1, offsetY: 1 }]) : [];
    }
    case "hover": {
      const t = target();
      return t ? [{ type: "hover", ...t }] : [];
    }
    case "inputText":
    case "select": {
      if (chain.length === 0 && a.kind === "inputText") {
        return [...value(a.text ?? "")].flatMap((ch) => [
          { type: "keyDown", key: ch },
          { type: "keyUp", key: ch },
        ]);
      }
      const t = target();
      return t
        ? [{ type: "change", ...t, value: value((a.kind === "select" ? a.value : a.text) ?? "") }]
        : [];
    }
    case "check": {
      const t = target();
      if (!t) return [];
      warn(
        `a click toggles the box: it ends ${
          a.checked ?? true ? "checked" : "unchecked"
        } only if it was not already`,
      );
      return [{ type: "click", ...t, offsetX: 1, offsetY: 1 }];
    }
    case "assertVisible":
    case "wait": {
      if (a.kind === "wait" && chain.length === 0) {
        const ms = durationMs(a.value) ?? 500;
        return [{
          type: "waitForExpression",
          expression: `new Promise((r) => setTimeout(() => r(true), ${ms}))`,
        }];
      }
      const t = target();
      return t ? [{ type: "waitForElement", ...t, visible: true }] : [];
    }
    case "assertNotVisible": {
      const t = target();
      return t ? [{ type: "waitForElement", ...t, operator: "==", count: 0 }] : [];
    }
    case "assertText": {
      const t = target();
      if (!t) return [];
      if (a.matches !== undefined) {
        warn(
          `matches /${a.matches}/: the Recorder compares no regular expressions; checked visible only`,
        );
      }
      if (a.equals === undefined) return [{ type: "waitForElement", ...t, visible: true }];
      const expected = value(a.equals);
      if (hasTemplate(expected)) return [{ type: "waitForElement", ...t, visible: true }];
      return [{ type: "waitForElement", ...t, properties: { innerText: expected } }];
    }
    case "readText":
      warn(
        `the Recorder has no variables: the text read${
          a.storeAs ? ` into ${a.storeAs}` : ""
        } is not kept`,
      );
      return [];
    case "memorySet":
      if (a.storeAs && a.value !== undefined) {
        try {
          memory[a.storeAs] = evaluateTemplate(a.value, memory);
          return [];
        } catch { /* warned below */ }
      }
      warn("sets a value known only at run time; the Recorder has no variables");
      return [];
    case "navigate":
      return [{ type: "navigate", url: value(a.url ?? "") }];
    case "keyPress": {
      const keys = splitKeyChord(a.key ?? "");
      const key = keys[keys.length - 1]!;
      const modifiers = keys.slice(0, -1);
      const one = [
        ...modifiers.map((m) => ({ type: "keyDown", key: m })),
        { type: "keyDown", key },
        { type: "keyUp", key },
        ...[...modifiers].reverse().map((m) => ({ type: "keyUp", key: m })),
      ];
      if (chain.length > 0) {
        warn("the key goes to the focused element (the Recorder's keys name none)");
      }
      return repeat(one);
    }
    case "scroll": {
      const d = 480 * (a.repeat ?? 1);
      const dir = a.direction ?? "down";
      warn(
        "a scroll is written as the window scrolled to the position the wheel would reach from the top",
      );
      return [{
        type: "scroll",
        x: dir === "right" ? d : 0,
        y: dir === "down" ? d : 0,
      }];
    }
    case "swipe":
      warn("a swipe (a pointer drag) has no Recorder step; left out");
      return [];
    case "reload":
      warn("the Recorder has no reload step; left out");
      return [];
    case "switchTab":
      warn("a tab switch is not written (the Recorder names a step's target tab only); left out");
      return [];
    case "back":
      warn("the Recorder has no back step; left out");
      return [];
  }
}
