/**
 * A trail as a `@playwright/test` spec (`cairn export TRAIL --format playwright`): one `test`
 * with one `test.step` per trail step; memory as constants (a secret — a key without a default —
 * from `process.env`, the key in upper snake case); each action's selector chain as
 * `locator.or(...)` of `getByTestId` / `getByRole(role, { name })` / `getByLabel` / `getByText`
 * / CSS, `.nth(i)` for an index and a row anchor (`childOf` text) as the nearest container showing
 * that text; `{{expr}}` templates as TypeScript expressions over the memory object; `matches`
 * as `toHaveText(/^(?:re)$/)`; `readText` into a memory variable.
 *
 * Navigations are re-pointed at `CAIRN_BASE_URL` when it is set (as `cairn replay --url`), so the
 * same spec runs against a test server. What Playwright has no way to say (a point without an
 * element) becomes a `// cairn:` comment and a warning naming the action.
 *
 * @module
 */
import type { Selector, Trail, TrailAction } from "../trail/mod.ts";
import { textAnchors } from "../trail/mod.ts";
import {
  actionName,
  durationMs,
  type ExportResult,
  hasTemplate,
  isStrict,
  secretEnvName,
  selectorChain,
  trailStem,
} from "./shared.ts";

const q = (s: string): string => JSON.stringify(s);

/** Tokens of a template expression, as engine/trail/template.ts reads them. */
const TOKEN =
  /\s*(?:(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)|('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")|([A-Za-z_][A-Za-z0-9_.]*)|(\|\||&&|==|!=|<=|>=|[-+*/%<>!()]))/y;

/**
 * A template expression as TypeScript over `mem`: a variable is `mem["name"]`, read as a number
 * (`num(…)`) where the expression does arithmetic or compares order; `==` is `===`.
 *
 * @param expr the expression inside `{{ }}`
 * @returns the TypeScript expression
 * @throws {SyntaxError} on a token the template language does not have
 */
export function expressionToTs(expr: string): string {
  const toks: { kind: "num" | "str" | "id" | "op"; v: string }[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < expr.length) {
    if (/^\s*$/.test(expr.slice(TOKEN.lastIndex))) break;
    const at = TOKEN.lastIndex;
    const m = TOKEN.exec(expr);
    if (!m) throw new SyntaxError(`unexpected ${q(expr.slice(at).trim())} in {{${expr}}}`);
    if (m[1] !== undefined) toks.push({ kind: "num", v: m[1].replaceAll(",", "") });
    else if (m[2] !== undefined) toks.push({ kind: "str", v: m[2] });
    else if (m[3] !== undefined) toks.push({ kind: "id", v: m[3] });
    else toks.push({ kind: "op", v: m[4]! });
  }
  const numeric = toks.some((t) => t.kind === "op" && /^(?:[-+*/%<>]|<=|>=)$/.test(t.v));
  return toks.map((t) => {
    if (t.kind === "id") {
      if (t.v === "true" || t.v === "false") return t.v;
      return numeric ? `num(mem[${q(t.v)}])` : `mem[${q(t.v)}]`;
    }
    if (t.kind === "op") return t.v === "==" ? "===" : t.v === "!=" ? "!==" : t.v;
    return t.v;
  }).join(" ");
}

const PLACEHOLDER = /\{\{([\s\S]*?)\}\}|\$\{\s*([A-Za-z_][A-Za-z0-9_.]*)\s*\}/g;

/**
 * A trail string (maybe a template) as a TypeScript string expression: a literal, or a template
 * literal whose `${…}` evaluate the placeholders.
 *
 * @param s the string
 * @returns TypeScript source
 */
export function stringToTs(s: string): string {
  if (!hasTemplate(s)) return q(s);
  let out = "`";
  let last = 0;
  for (const m of s.matchAll(PLACEHOLDER)) {
    out += s.slice(last, m.index).replace(/[`\\$]/g, (c) => "\\" + c);
    out += "${String(" + expressionToTs(m[1] ?? m[2]!) + ")}";
    last = m.index! + m[0].length;
  }
  return out + s.slice(last).replace(/[`\\$]/g, (c) => "\\" + c) + "`";
}

/** A selector as a Playwright locator expression on `root` (`page` or another locator). */
function locatorOf(sel: Selector, root: string, web: boolean): string | undefined {
  const s = (v: string) => stringToTs(v);
  let loc: string | undefined;
  const role = sel.role ?? (web ? sel.className : undefined);
  if (sel.testId !== undefined) loc = `${root}.getByTestId(${s(sel.testId)})`;
  else if (sel.id !== undefined) loc = `${root}.locator(${s(`[id="${cssString(sel.id)}"]`)})`;
  else if (sel.cssPath !== undefined) loc = `${root}.locator(${s(sel.cssPath)})`;
  else if (role !== undefined) {
    const name = sel.name ?? sel.ariaLabel ?? sel.text;
    loc = `${root}.getByRole(${s(role)}${
      name !== undefined ? `, { name: ${s(name)}, exact: true }` : ""
    })`;
  } else if (sel.ariaLabel !== undefined || sel.contentDescription !== undefined) {
    loc = `${root}.getByLabel(${s((sel.ariaLabel ?? sel.contentDescription)!)}, { exact: true })`;
  } else if (sel.text !== undefined) loc = `${root}.getByText(${s(sel.text)}, { exact: true })`;
  else if (sel.textRegex !== undefined) {
    loc = `${root}.getByText(new RegExp(${q(`^(?:${sel.textRegex})$`)}))`;
  } else if (sel.name !== undefined) loc = `${root}.getByText(${s(sel.name)}, { exact: true })`;
  if (loc === undefined) return undefined;
  // what the first property did not already say is a filter on the same node
  if (sel.testId !== undefined || sel.id !== undefined || sel.cssPath !== undefined) {
    if (sel.text !== undefined) loc += `.filter({ hasText: ${s(sel.text)} })`;
  }
  if (sel.index !== undefined) loc += `.nth(${sel.index})`;
  return loc;
}

function cssString(v: string): string {
  return v.replace(/["\\]/g, (c) => "\\" + c);
}

/**
 * A selector with its `childOf` as a locator: an ancestor selector scopes the lookup; a row
 * anchor (text only) is the innermost element showing that text that holds the target.
 */
function scopedLocator(sel: Selector, web: boolean): string | undefined {
  if (sel.childOf === undefined) return locatorOf(sel, "page", web);
  const { childOf: _c, ...own } = sel;
  const anchors = textAnchors(sel);
  if (anchors) {
    const inner = locatorOf(own, "page", web);
    if (!inner) return undefined;
    // innermost first: each anchor's container scopes the next one in
    let root = "page";
    for (const text of [...anchors].reverse()) {
      root = `${root}.locator("*").filter({ has: page.getByText(${
        stringToTs(text)
      }, { exact: true }) }).filter({ has: ${inner} }).last()`;
    }
    return locatorOf(own, root, web);
  }
  const parent = scopedLocator(sel.childOf, web);
  return parent ? locatorOf(own, parent, web) : undefined;
}

/** The chain of an action as one locator (`a.or(b)…`), with what could not be expressed. */
function chainLocator(
  chain: Selector[],
  web: boolean,
): { loc?: string; point?: Selector; dropped: number } {
  const locs: string[] = [];
  let point: Selector | undefined;
  let dropped = 0;
  for (const sel of chain) {
    const l = scopedLocator(sel, web);
    if (l) locs.push(l);
    else if (sel.xy && !point) point = sel;
    else dropped++;
  }
  if (locs.length === 0) return { ...(point ? { point } : {}), dropped };
  if (point) dropped++; // a point after an element locator: Playwright's .or takes locators only
  const loc = locs.length === 1
    ? locs[0]!
    : `${locs[0]}\n${locs.slice(1).map((l) => `        .or(${l})`).join("\n")}\n        .first()`;
  return { loc, dropped, ...(point ? { point } : {}) };
}

/**
 * Renders a trail as a Playwright spec.
 *
 * @param trail the trail
 * @returns the spec's text, the warnings and its file name
 */
export function trailToPlaywright(trail: Trail): ExportResult {
  const warnings: string[] = [];
  const web = (trail.config.platform ?? "web") === "web";
  if (!web) {
    warnings.push(
      `trail: platform ${trail.config.platform}: Playwright drives browsers; the spec is for a web view of the app`,
    );
  }
  const memory = trail.config.memory ?? {};
  const lines: string[] = [];
  lines.push(
    `// Exported by Cairn from trail ${q(trail.config.id ?? trail.config.title ?? "trail")}.`,
    `// Run: npx playwright test; CAIRN_BASE_URL re-points the trail's navigations at another origin.`,
    `import { expect, test } from "@playwright/test";`,
    ``,
  );
  const memLines = Object.entries(memory).map(([k, v]) =>
    v === null ? `  ${q(k)}: secret(${q(secretEnvName(k))}),` : `  ${q(k)}: ${q(v)},`
  );
  lines.push(
    `/** The trail's memory: its defaults; a secret comes from the environment. */`,
    `const mem: Record<string, string> = {`,
    ...memLines,
    `};`,
    ``,
    `function secret(name: string): string {`,
    "  const v = process.env[name];",
    "  if (v === undefined) throw new Error(`set ${name}: the trail's secret is read from the environment`);",
    "  return v;",
    `}`,
    ``,
    `/** A memory value as a number: display formats ($25.00, 1,200, 3 items) read as Cairn reads them. */`,
    `function num(v: string | number | boolean | undefined): number {`,
    `  if (typeof v === "number") return v;`,
    '  const n = Number(String(v ?? "").replace(/[$€£¥,\\s]|[A-Za-z%]+$/g, ""));',
    "  if (Number.isNaN(n)) throw new Error(`not a number: ${JSON.stringify(v)}`);",
    `  return n;`,
    `}`,
    ``,
    `const BASE_URL = process.env.CAIRN_BASE_URL;`,
    `/** A recorded url, re-pointed at CAIRN_BASE_URL's origin when it is set. */`,
    `function at(url: string): string {`,
    `  if (!BASE_URL) return url;`,
    `  const u = new URL(url, BASE_URL);`,
    `  return new URL(u.pathname + u.search + u.hash, BASE_URL).href;`,
    `}`,
    ``,
  );
  const vp = trail.config.viewport;
  if (vp) lines.push(`test.use({ viewport: { width: ${vp.width}, height: ${vp.height} } });`, ``);
  const title = trail.config.title ?? trail.config.id ?? "trail";
  lines.push(`test(${q(title)}, async ({ page }) => {`);
  if (trail.config.url) lines.push(`  await page.goto(at(${stringToTs(trail.config.url)}));`);
  trail.trail.forEach((step, si) => {
    lines.push(`  await test.step(${q(step.step)}, async () => {`);
    if (step.recordable === false || !step.recording?.length) {
      const why = step.recordable === false
        ? "not recordable: an agent plays it on every run"
        : "no recording";
      lines.push(`    // cairn: ${why}`);
      warnings.push(`step ${si + 1} ${q(step.step)}: ${why}; the spec leaves it empty`);
    }
    (step.recording ?? []).forEach((action, ai) => {
      const name = actionName(si, step, ai, action);
      const out = actionLines(action, isStrict(trail, step), web, (w) => {
        warnings.push(`${name}: ${w}`);
        lines.push(`    // cairn: ${name}: ${w}`);
      });
      lines.push(...out.map((l) => `    ${l}`));
    });
    lines.push(`  });`);
  });
  lines.push(`});`, ``);
  return { text: lines.join("\n"), warnings, fileName: `${trailStem(trail)}.spec.ts` };
}

function actionLines(
  a: TrailAction,
  strict: boolean,
  web: boolean,
  warn: (w: string) => void,
): string[] {
  const chain = selectorChain(a, strict);
  const { loc, point, dropped } = chainLocator(chain, web);
  if (dropped > 0) {
    warn(
      `${dropped} of the ${chain.length} selectors of its chain (a point, or a class of a device) have no Playwright locator; left out`,
    );
  }
  const repeat = a.repeat ?? 1;
  const times = (body: string): string[] =>
    repeat > 1 ? [`for (let i = 0; i < ${repeat}; i++) ${body}`] : [body];
  const needLoc = (what: string): string[] | undefined => {
    if (loc) return undefined;
    if (point?.xy && (what === "click" || what === "dblclick")) {
      const [x, y] = point.xy;
      if (point.viewport) {
        warn(
          `a point recorded on a ${point.viewport.width}x${point.viewport.height} viewport, clicked as is`,
        );
      }
      return times(`await page.mouse.${what}(${x}, ${y});`);
    }
    warn(
      chain.length === 0 ? "no selector; left out" : "no selector Playwright can express; left out",
    );
    return [];
  };
  switch (a.kind) {
    case "tap":
      return needLoc("click") ?? times(`await ${loc}.click();`);
    case "doubleTap":
      return needLoc("dblclick") ?? times(`await ${loc}.dblclick();`);
    case "longPress":
      return needLoc("") ?? times(`await ${loc}.click({ delay: 1000 });`);
    case "hover":
      return needLoc("") ?? [`await ${loc}.hover();`];
    case "inputText": {
      const text = stringToTs(a.text ?? "");
      if (chain.length === 0) return [`await page.keyboard.type(${text});`];
      return needLoc("") ?? [`await ${loc}.fill(${text});`];
    }
    case "select":
      return needLoc("") ?? [`await ${loc}.selectOption(${stringToTs(a.value ?? "")});`];
    case "check":
      return needLoc("") ?? [`await ${loc}.setChecked(${a.checked ?? true});`];
    case "readText": {
      const r = needLoc("");
      if (r) return r;
      if (!a.storeAs) warn("reads a text it stores nowhere");
      return [
        `${a.storeAs ? `mem[${q(a.storeAs)}] = ` : ""}(await ${loc}.innerText()).trim();`,
      ];
    }
    case "assertVisible":
      return needLoc("") ?? [`await expect(${loc}).toBeVisible();`];
    case "assertNotVisible":
      return needLoc("") ?? [`await expect(${loc}).toBeHidden();`];
    case "assertText": {
      const r = needLoc("");
      if (r) return r;
      const out: string[] = [];
      if (a.equals !== undefined) {
        out.push(`await expect(${loc}).toHaveText(${stringToTs(a.equals)});`);
      }
      if (a.matches !== undefined) {
        out.push(
          hasTemplate(a.matches)
            ? `await expect(${loc}).toHaveText(new RegExp(\`^(?:\${${stringToTs(a.matches)}})$\`));`
            : `await expect(${loc}).toHaveText(/^(?:${a.matches.replaceAll("/", "\\/")})$/);`,
        );
      }
      if (out.length === 0) out.push(`await expect(${loc}).toBeVisible();`);
      return out;
    }
    case "memorySet":
      return [`mem[${q(a.storeAs ?? "value")}] = ${stringToTs(a.value ?? "")};`];
    case "navigate":
      return [`await page.goto(at(${stringToTs(a.url ?? "")}));`];
    case "reload":
      return [`await page.reload();`];
    case "switchTab":
      warn("a tab switch is not written (the spec plays in one page); left out");
      return [];
    case "back":
      return [`await page.goBack();`];
    case "keyPress": {
      const key = stringToTs(a.key ?? "");
      return times(loc ? `await ${loc}.press(${key});` : `await page.keyboard.press(${key});`);
    }
    case "scroll": {
      const d = 480; // Cairn scrolls 60% of the viewport height (800 → 480)
      const dir = a.direction ?? "down";
      const [dx, dy] = dir === "up"
        ? [0, -d]
        : dir === "down"
        ? [0, d]
        : dir === "left"
        ? [-d, 0]
        : [d, 0];
      const out = loc ? [`await ${loc}.hover();`] : [];
      return [...out, ...times(`await page.mouse.wheel(${dx}, ${dy});`)];
    }
    case "swipe":
      warn("a swipe (a pointer drag) has no Playwright step; left out");
      return [];
    case "wait": {
      const ms = durationMs(a.value);
      if (loc) return [`await ${loc}.waitFor(${ms !== undefined ? `{ timeout: ${ms} }` : ""});`];
      if (ms !== undefined) return [`await page.waitForTimeout(${ms});`];
      return [`await page.waitForLoadState();`];
    }
  }
}
