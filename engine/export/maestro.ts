/**
 * Trails ⇄ Maestro flows.
 *
 * {@linkcode trailToMaestro} (`cairn export TRAIL --format maestro`, Android and iOS trails): a
 * header (`appId`, `name` = the trail's id, `tags` = its platform, `env` = the memory defaults),
 * `---`, `launchApp`, then one inline `runFlow` per step, labelled with the step's text, holding
 * its commands: `tapOn` (`id` / `text` / `point`, `index`, `childOf`, `repeat`), `doubleTapOn`,
 * `longPressOn`, `inputText` (after a `tapOn` labelled `cairn: inputText` and `eraseText` when it
 * names its field), `assertVisible` / `assertNotVisible`, `assertText` as `assertVisible` with
 * the expected text (labelled `cairn: assertText`), `readText` as `copyTextFrom` + `evalScript`
 * (`output.NAME = maestro.copiedText`), `pressKey`, `back`, `openLink`, `swipe`, `scroll`,
 * `extendedWaitUntil`, `waitForAnimationToEnd`. A template `{{expr}}` is `${expr}` over the env
 * and `output` (a number where it does arithmetic). Maestro matches text as a regular
 * expression, so literal texts are escaped. Maestro has no selector fallbacks: the first
 * selector of a chain Maestro can say is used and the others are named in a warning.
 *
 * {@linkcode maestroToTrail} reads such a flow (and plain Maestro flows) back into a trail: the
 * export of a trail imports to the same trail (for what the format carries).
 *
 * @module
 */
import YAML, { isMap, parseAllDocuments } from "yaml";
import type { Selector, Trail, TrailAction, TrailStep } from "../trail/mod.ts";
import { templateVariables } from "../trail/mod.ts";
import { type MaestroCommand, parseMaestroFlow } from "../formats/mod.ts";
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

/** Commands Maestro documents (maestro.mobile.dev "Commands"); the export uses only these. */
export const MAESTRO_COMMANDS: readonly string[] = [
  "addMedia",
  "assertNotVisible",
  "assertTrue",
  "assertVisible",
  "assertWithAI",
  "assertNoDefectsWithAI",
  "back",
  "clearKeychain",
  "clearState",
  "copyTextFrom",
  "doubleTapOn",
  "eraseText",
  "evalScript",
  "extendedWaitUntil",
  "extractTextWithAI",
  "hideKeyboard",
  "inputText",
  "inputRandomEmail",
  "inputRandomNumber",
  "inputRandomPersonName",
  "inputRandomText",
  "killApp",
  "launchApp",
  "longPressOn",
  "openLink",
  "pasteText",
  "pressKey",
  "repeat",
  "retry",
  "runFlow",
  "runScript",
  "scroll",
  "scrollUntilVisible",
  "setAirplaneMode",
  "setLocation",
  "startRecording",
  "stopApp",
  "stopRecording",
  "swipe",
  "takeScreenshot",
  "tapOn",
  "toggleAirplaneMode",
  "travel",
  "waitForAnimationToEnd",
];

const REGEX_CHARS = /[.*+?^$()[\]{}|\\]/g;
const escapeRegex = (s: string): string => s.replace(REGEX_CHARS, "\\$&");
/** A Maestro text back as the literal it escapes, or undefined when it is a real regex. */
function unescapeRegex(s: string): string | undefined {
  let out = "";
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === "\\") {
      const n = s[i + 1];
      if (n === undefined || !/[.*+?^$()[\]{}|\\]/.test(n)) return undefined;
      out += n;
      i++;
    } else if (/[.*+?^$()[\]{}|]/.test(c)) return undefined;
    else out += c;
  }
  return out;
}

const LABEL = "cairn: ";

/** Template → Maestro `${…}` over env names and `output.NAME` for values set during the run. */
function toMaestroString(s: string, runtime: Set<string>): string {
  if (!hasTemplate(s)) return s;
  return s.replace(
    /\{\{([\s\S]*?)\}\}|\$\{\s*([A-Za-z_][A-Za-z0-9_.]*)\s*\}/g,
    (_m, expr: string | undefined, name: string | undefined) => {
      const e = (expr ?? name!).trim();
      const numeric = /[-+*/%<>]/.test(e.replace(/(["'])(?:\\.|(?!\1).)*\1/g, ""));
      const js = e.replace(
        /(["'])(?:\\.|(?!\1).)*\1|\b([A-Za-z_][A-Za-z0-9_.]*)\b/g,
        (tok: string, quote: string | undefined, id: string | undefined) => {
          if (quote || id === undefined || id === "true" || id === "false") return tok;
          const ref = runtime.has(id) ? `output.${id}` : id;
          return numeric ? `Number(${ref})` : ref;
        },
      ).replace(/==/g, "===").replace(/!===/g, "!==").replace(/====/g, "===");
      return "${" + js + "}";
    },
  );
}

/** Maestro `${…}` back to a trail template. */
function fromMaestroString(s: string): string {
  return s.replace(/\$\{([^}]*)\}/g, (_m, js: string) => {
    const e = js.trim().replace(/Number\(([A-Za-z_][A-Za-z0-9_.]*)\)/g, "$1")
      .replace(/\boutput\./g, "").replace(/===/g, "==").replace(/!==/g, "!=");
    return "{{" + e + "}}";
  });
}

/** A trail selector as a Maestro selector map, or undefined when Maestro cannot say it. */
function maestroSelector(
  sel: Selector,
  str: (s: string) => string,
): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  const keys = Object.keys(sel).filter((k) => k !== "viewport");
  if (keys.length === 1 && sel.xy) {
    return { point: `${Math.round(sel.xy[0])},${Math.round(sel.xy[1])}` };
  }
  if (sel.id !== undefined) out.id = escapeRegex(str(sel.id));
  const text = sel.text ?? sel.contentDescription ?? sel.ariaLabel ?? sel.name;
  if (text !== undefined) out.text = hasTemplate(text) ? str(text) : escapeRegex(text);
  else if (sel.textRegex !== undefined) out.text = sel.textRegex;
  if (out.id === undefined && out.text === undefined) return undefined;
  if (sel.index !== undefined) out.index = sel.index;
  if (sel.childOf !== undefined) {
    const parent = maestroSelector(sel.childOf, str);
    if (!parent || parent.point !== undefined) return undefined;
    out.childOf = parent;
  }
  return out;
}

/** Options of {@linkcode trailToMaestro}. */
export interface MaestroExportOptions {
  /** The app's id (`com.example.app`); default: the trail's `appId` memory key, else a placeholder. */
  appId?: string;
}

/**
 * Renders a trail as a Maestro flow.
 *
 * @param trail the trail
 * @param options the app id
 * @returns the flow's text, the warnings and its file name
 */
export function trailToMaestro(trail: Trail, options: MaestroExportOptions = {}): ExportResult {
  const warnings: string[] = [];
  const platform = trail.config.platform ?? "web";
  if (platform === "web") {
    warnings.push(
      "trail: a web trail: Maestro flows drive Android and iOS apps; openLink opens its pages",
    );
  }
  const appId = options.appId ?? "com.example.app";
  if (options.appId === undefined) {
    warnings.push(`trail: no --app-id: the flow's appId is the placeholder ${appId}`);
  }
  for (const k of ["title", "selectorMode", "heuristics", "url", "viewport"] as const) {
    if (trail.config[k] !== undefined && !(k === "url" && platform === "web")) {
      warnings.push(`trail: config.${k} has no place in a Maestro flow; left out`);
    }
  }
  const memory = trail.config.memory ?? {};
  const env: Record<string, string> = {};
  const secrets: string[] = [];
  for (const [k, v] of Object.entries(memory)) {
    if (v === null) secrets.push(k);
    else env[k] = v;
  }
  const runtime = new Set<string>();
  const header: Record<string, unknown> = { appId };
  if (trail.config.id) header.name = trail.config.id;
  if (platform !== "web") header.tags = [platform];
  if (Object.keys(env).length > 0) header.env = env;
  const commands: unknown[] = ["launchApp"];
  if (platform === "web" && trail.config.url) commands.push({ openLink: trail.config.url });
  trail.trail.forEach((step, si) => {
    const inner: unknown[] = [];
    if (step.selectorMode !== undefined && step.selectorMode !== trail.config.selectorMode) {
      warnings.push(
        `step ${si + 1} ${
          JSON.stringify(step.step)
        }: selectorMode ${step.selectorMode} has no place in a Maestro flow`,
      );
    }
    if (step.recordable === false) {
      warnings.push(`step ${si + 1} ${JSON.stringify(step.step)}: not recordable; left empty`);
    }
    (step.recording ?? []).forEach((action, ai) => {
      const name = actionName(si, step, ai, action);
      inner.push(
        ...actionCommands(
          action,
          isStrict(trail, step),
          runtime,
          (w) => warnings.push(`${name}: ${w}`),
        ),
      );
    });
    // a step without commands still keeps its place (and its text)
    if (inner.length === 0) inner.push({ waitForAnimationToEnd: { label: `${LABEL}empty step` } });
    commands.push({ runFlow: { label: step.step, commands: inner } });
  });
  let text = "";
  if (secrets.length > 0) {
    text += `# Secrets: pass ${
      secrets.map((k) => `-e ${k}=… (or ${secretEnvName(k)} in the environment)`).join(", ")
    }\n`;
  }
  text += YAML.stringify(header, { lineWidth: 0 }) + "---\n" +
    YAML.stringify(commands, { lineWidth: 0 });
  return { text, warnings, fileName: `${trailStem(trail)}.maestro.yaml` };
}

function actionCommands(
  a: TrailAction,
  strict: boolean,
  runtime: Set<string>,
  warn: (w: string) => void,
): unknown[] {
  const str = (s: string) => toMaestroString(s, runtime);
  const chain = selectorChain(a, strict);
  let sel: Record<string, unknown> | undefined;
  let used = -1;
  for (const [i, s] of chain.entries()) {
    sel = maestroSelector(s, str);
    if (sel) {
      used = i;
      break;
    }
  }
  if (chain.length > 1 && sel) {
    warn(
      `Maestro has no selector fallbacks: selector ${
        used + 1
      } of ${chain.length} used, the others left out`,
    );
  }
  const need = (): boolean => {
    if (sel) return true;
    warn(
      chain.length === 0 ? "no selector; left out" : "no selector Maestro can express; left out",
    );
    return false;
  };
  const withRepeat = (m: Record<string, unknown>) =>
    a.repeat && a.repeat > 1 ? { ...m, repeat: a.repeat } : m;
  switch (a.kind) {
    case "tap":
      return need() ? [{ tapOn: withRepeat(sel!) }] : [];
    case "doubleTap":
      return need() ? [{ doubleTapOn: sel }] : [];
    case "longPress":
      return need() ? [{ longPressOn: sel }] : [];
    case "hover":
      warn("a device has no pointer to hover with; left out");
      return [];
    case "inputText": {
      const typed = { inputText: str(a.text ?? "") };
      if (chain.length === 0) return [typed];
      if (!need()) return [];
      return [{ tapOn: { ...sel, label: `${LABEL}inputText` } }, "eraseText", typed];
    }
    case "select":
      warn("Maestro has no dropdown choice; left out");
      return [];
    case "check":
      if (!need()) return [];
      warn(
        `a tap toggles it: it ends ${
          a.checked ?? true ? "checked" : "unchecked"
        } only if it was not already`,
      );
      return [{ tapOn: { ...sel, label: `${LABEL}check ${a.checked ?? true}` } }];
    case "readText": {
      if (!need()) return [];
      const key = a.storeAs ?? "copiedText";
      runtime.add(key);
      return [
        { copyTextFrom: { ...sel, label: `${LABEL}readText` } },
        { evalScript: "${output." + key + " = maestro.copiedText}" },
      ];
    }
    case "memorySet": {
      const key = a.storeAs ?? "value";
      const value = a.value ?? "";
      runtime.add(key);
      if (hasTemplate(value) && !/^\{\{[^}]*\}\}$/.test(value)) {
        warn("a value mixing text and a template is written as the template's text");
      }
      const js = /^\{\{[^}]*\}\}$/.test(value) ? str(value).slice(2, -1) : JSON.stringify(value);
      return [{ evalScript: "${output." + key + " = " + js + "}" }];
    }
    case "assertVisible":
      return need() ? [{ assertVisible: sel }] : [];
    case "assertNotVisible":
      return need() ? [{ assertNotVisible: sel }] : [];
    case "assertText": {
      if (!need()) return [];
      if (sel!.text !== undefined || sel!.point !== undefined) {
        warn(
          "its selector names a text (or a point): Maestro checks one text per element; checked visible only",
        );
        return [{ assertVisible: sel }];
      }
      const out: unknown[] = [];
      if (a.equals !== undefined) {
        const t = hasTemplate(a.equals) ? str(a.equals) : escapeRegex(a.equals);
        out.push({ assertVisible: { ...sel, text: t, label: `${LABEL}assertText equals` } });
      }
      if (a.matches !== undefined) {
        out.push({
          assertVisible: { ...sel, text: str(a.matches), label: `${LABEL}assertText matches` },
        });
      }
      return out.length > 0 ? out : [{ assertVisible: sel }];
    }
    case "navigate":
      return [{ openLink: str(a.url ?? "") }];
    case "reload":
      warn("a page reload has no Maestro command; left out");
      return [];
    case "switchTab":
      warn("a browser tab switch has no Maestro command; left out");
      return [];
    case "back":
      return ["back"];
    case "keyPress":
      if (chain.length > 0) warn("the key goes to the focused element (pressKey names none)");
      return [{ pressKey: a.key ?? "" }];
    case "scroll":
      if ((a.direction ?? "down") !== "down" || chain.length > 0) {
        warn(
          `scroll ${a.direction ?? "down"}${
            chain.length > 0 ? " on an element" : ""
          }: written as a swipe the other way`,
        );
        const opposite =
          { up: "DOWN", down: "UP", left: "RIGHT", right: "LEFT" }[a.direction ?? "down"];
        return Array.from({ length: a.repeat ?? 1 }, () => ({
          swipe: { direction: opposite, label: `${LABEL}scroll ${a.direction ?? "down"}` },
        }));
      }
      return Array.from({ length: a.repeat ?? 1 }, () => "scroll");
    case "swipe": {
      const m: Record<string, unknown> = { direction: (a.direction ?? "up").toUpperCase() };
      if (chain.length > 0 && need()) m.from = sel;
      return Array.from({ length: a.repeat ?? 1 }, () => ({ swipe: m }));
    }
    case "wait": {
      const ms = durationMs(a.value);
      if (chain.length > 0) {
        if (!need()) return [];
        return [{
          extendedWaitUntil: { visible: sel, ...(ms !== undefined ? { timeout: ms } : {}) },
        }];
      }
      if (ms !== undefined) {
        return [{ waitForAnimationToEnd: { timeout: ms, label: `${LABEL}wait ${a.value}` } }];
      }
      return ["waitForAnimationToEnd"];
    }
  }
}

/** A Maestro selector back as a trail selector. */
function trailSelector(raw: unknown, where: string): Selector {
  if (typeof raw === "string") return textSel(raw);
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) {
    throw new SyntaxError(`${where}: expected a text or a selector map`);
  }
  const m = raw as Record<string, unknown>;
  if (typeof m.point === "string") {
    const p = /^\s*(\d+(?:\.\d+)?)\s*,\s*(\d+(?:\.\d+)?)\s*$/.exec(m.point);
    if (!p) {
      throw new SyntaxError(
        `${where}: point ${JSON.stringify(m.point)}: only pixel points (x,y) are read`,
      );
    }
    return { xy: [Number(p[1]), Number(p[2])] };
  }
  const sel: Selector = {};
  if (typeof m.id === "string") {
    // Maestro flows write ids unescaped (org.app:id/x): a dot matches itself there too
    const id = unescapeRegex(m.id) ??
      (/[*+?^$()[\]{}|\\]/.test(m.id.replaceAll("\\.", ""))
        ? undefined
        : m.id.replaceAll("\\.", "."));
    if (id === undefined) {
      throw new SyntaxError(
        `${where}: id ${
          JSON.stringify(m.id)
        } is a regular expression, which a trail's id cannot be`,
      );
    }
    sel.id = fromMaestroString(id);
  }
  if (typeof m.text === "string") Object.assign(sel, textSel(m.text));
  if (typeof m.index === "number") sel.index = m.index;
  if (m.childOf !== undefined) sel.childOf = trailSelector(m.childOf, `${where}.childOf`);
  if (sel.id === undefined && sel.text === undefined && sel.textRegex === undefined) {
    throw new SyntaxError(`${where}: a selector needs an id, a text or a point`);
  }
  return sel;
}

function textSel(t: string): Selector {
  if (hasTemplate(t)) return { text: fromMaestroString(t) };
  const lit = unescapeRegex(t);
  return lit !== undefined ? { text: lit } : { textRegex: t };
}

/** Commands of Maestro's web support and of no device: refused by name. */
const WEB_ONLY = new Set(["openBrowser"]);

/**
 * Reads a Maestro flow into a trail.
 *
 * @param text the flow's text
 * @param source the file name, for messages
 * @param warnings receives a line for each thing of the flow the trail does not carry
 *   (`optional: true`, `launchApp` options)
 * @returns the trail
 * @throws {SyntaxError} `SOURCE:LINE: what` for a command a trail cannot hold (a `runScript`, a
 *   `runFlow` of another file, a web flow)
 */
export function maestroToTrail(text: string, source = "flow", warnings: string[] = []): Trail {
  const flow = parseMaestroFlow(text, source);
  const headerDoc = parseAllDocuments(text)[0]?.contents;
  const header = isMap(headerDoc)
    ? (YAML.parseAllDocuments(text)[0]!.toJS() as Record<string, unknown>)
    : {};
  if (typeof header.url === "string" || /^https?:/.test(flow.appId)) {
    throw new SyntaxError(
      `${source}: a Maestro web flow (appId/url ${
        JSON.stringify(header.url ?? flow.appId)
      }): Cairn plays the web from trails, recordings and Recorder flows; only Android and iOS flows are read`,
    );
  }
  const env = header.env && typeof header.env === "object"
    ? header.env as Record<string, unknown>
    : {};
  const memory: Record<string, string | null> = {};
  for (const [k, v] of Object.entries(env)) memory[k] = v === null ? null : String(v);
  const platform = flow.tags.includes("ios") ? "ios" : "android";
  const steps: TrailStep[] = [];
  let loose: TrailStep | undefined;
  const used = new Set<string>();
  const read = (cmds: MaestroCommand[], where: string): TrailAction[] => {
    const out: TrailAction[] = [];
    for (let i = 0; i < cmds.length; i++) {
      const c = cmds[i]!;
      const at = `${where}:${c.line}: ${c.name}`;
      const args = c.args as Record<string, unknown> | string | undefined;
      const label = typeof args === "object" && args !== null && typeof args.label === "string"
        ? args.label
        : undefined;
      if (typeof args === "object" && args !== null && args.optional === true) {
        warnings.push(`${at}: optional: true is not carried: a miss fails the action`);
      }
      const strip = (m: unknown) => {
        if (!m || typeof m !== "object") return m;
        const { label: _l, repeat: _r, optional: _o, ...rest } = m as Record<string, unknown>;
        return rest;
      };
      const sel = () => trailSelector(strip(args), at);
      if (WEB_ONLY.has(c.name)) {
        throw new SyntaxError(`${at}: a web-only command; a trail of a device cannot hold it`);
      }
      switch (c.name) {
        case "launchApp":
          if (i === 0 && steps.length === 0 && out.length === 0) {
            if (typeof args === "object" && args !== null) {
              warnings.push(
                `${at}: its options (${
                  Object.keys(args).join(", ")
                }) are not carried: the replay starts the app as --app-package says`,
              );
            }
            continue;
          }
          throw new SyntaxError(`${at}: a trail starts its app once, before the first step`);
        case "tapOn": {
          if (label === `${LABEL}inputText`) {
            let j = i + 1;
            if (cmds[j]?.name === "eraseText") j++;
            const typed = cmds[j];
            if (typed?.name === "inputText") {
              out.push({ kind: "inputText", selector: sel(), text: inputTextOf(typed.args) });
              i = j;
              continue;
            }
          }
          if (label?.startsWith(`${LABEL}check `)) {
            out.push({ kind: "check", selector: sel(), checked: label.endsWith("true") });
            continue;
          }
          const rep = typeof args === "object" && typeof args?.repeat === "number"
            ? args.repeat
            : undefined;
          out.push({ kind: "tap", selector: sel(), ...(rep && rep > 1 ? { repeat: rep } : {}) });
          continue;
        }
        case "doubleTapOn":
          out.push({ kind: "doubleTap", selector: sel() });
          continue;
        case "longPressOn":
          out.push({ kind: "longPress", selector: sel() });
          continue;
        case "inputText":
          out.push({ kind: "inputText", text: inputTextOf(c.args) });
          continue;
        case "assertVisible":
        case "assertNotVisible": {
          if (label === `${LABEL}assertText equals` || label === `${LABEL}assertText matches`) {
            const { text, ...rest } = strip(args) as Record<string, unknown>;
            const t = String(text ?? "");
            const equals = label.endsWith("equals");
            const value = hasTemplate(t)
              ? fromMaestroString(t)
              : equals
              ? unescapeRegex(t) ?? t
              : t;
            out.push({
              kind: "assertText",
              selector: trailSelector(rest, at),
              ...(equals ? { equals: value } : { matches: value }),
            });
            continue;
          }
          out.push({ kind: c.name, selector: sel() });
          continue;
        }
        case "copyTextFrom": {
          const next = cmds[i + 1];
          const m = next?.name === "evalScript" && typeof next.args === "string"
            ? /^\$\{\s*output\.([A-Za-z_][A-Za-z0-9_.]*)\s*=\s*maestro\.copiedText\s*\}$/.exec(
              next.args,
            )
            : null;
          out.push({ kind: "readText", selector: sel(), storeAs: m ? m[1]! : "copiedText" });
          if (m) i++;
          continue;
        }
        case "evalScript": {
          const m = typeof c.args === "string"
            ? /^\$\{\s*output\.([A-Za-z_][A-Za-z0-9_.]*)\s*=\s*([\s\S]*)\}$/.exec(c.args)
            : null;
          if (!m) {
            throw new SyntaxError(
              `${at}: only output.NAME = value scripts become a trail's memorySet`,
            );
          }
          const rhs = m[2]!.trim();
          const value = /^"/.test(rhs)
            ? JSON.parse(rhs) as string
            : fromMaestroString("${" + rhs + "}");
          out.push({ kind: "memorySet", storeAs: m[1]!, value });
          continue;
        }
        case "pressKey":
          out.push({ kind: "keyPress", key: String(c.args) });
          continue;
        case "back":
          out.push({ kind: "back" });
          continue;
        case "openLink":
          out.push({
            kind: "navigate",
            url: fromMaestroString(
              typeof args === "string"
                ? args
                : String(strip(args) && (args as Record<string, unknown>).link),
            ),
          });
          continue;
        case "scroll":
          out.push({ kind: "scroll", direction: "down" });
          continue;
        case "swipe": {
          const m = (typeof args === "object" && args) ? args : {};
          const d = typeof m.direction === "string" ? m.direction.toLowerCase() : undefined;
          if (d !== "up" && d !== "down" && d !== "left" && d !== "right") {
            throw new SyntaxError(`${at}: only a swipe with a direction becomes a trail action`);
          }
          if (label?.startsWith(`${LABEL}scroll `)) {
            out.push({ kind: "scroll", direction: label.slice(`${LABEL}scroll `.length) as "up" });
            continue;
          }
          out.push({
            kind: "swipe",
            direction: d,
            ...(m.from !== undefined ? { selector: trailSelector(m.from, at) } : {}),
          });
          continue;
        }
        case "extendedWaitUntil": {
          const m = (typeof args === "object" && args) ? args : {};
          if (m.visible === undefined) {
            throw new SyntaxError(`${at}: only extendedWaitUntil.visible becomes a trail wait`);
          }
          out.push({
            kind: "wait",
            selector: trailSelector(m.visible, at),
            ...(typeof m.timeout === "number" ? { value: `${m.timeout}ms` } : {}),
          });
          continue;
        }
        case "waitForAnimationToEnd": {
          if (label === `${LABEL}empty step`) continue;
          if (label?.startsWith(`${LABEL}wait `)) {
            out.push({ kind: "wait", value: label.slice(`${LABEL}wait `.length) });
            continue;
          }
          out.push({ kind: "wait" });
          continue;
        }
        case "runFlow": {
          if (typeof args === "object" && args && Array.isArray(args.commands)) {
            throw new SyntaxError(`${at}: a runFlow inside a step cannot become a trail step`);
          }
          throw new SyntaxError(`${at}: runs another file; import that flow on its own`);
        }
        default:
          throw new SyntaxError(`${at}: no trail action does this`);
      }
    }
    return out;
  };
  for (const c of flow.commands) {
    const args = c.args as Record<string, unknown> | undefined;
    if (c.name === "runFlow" && args && typeof args === "object" && Array.isArray(args.commands)) {
      loose = undefined;
      const inner = parseMaestroFlow(
        `appId: x\n---\n${YAML.stringify(args.commands)}`,
        source,
      ).commands.map((ic) => ({ ...ic, line: c.line }));
      const recording = read(inner, source);
      steps.push({
        step: typeof args.label === "string" ? args.label : `Flow at line ${c.line}`,
        ...(recording.length > 0 ? { recording } : {}),
      });
      continue;
    }
    const actions = read([c], source);
    if (actions.length === 0) continue;
    if (!loose) {
      loose = {
        step: steps.length === 0 && flow.name ? flow.name : `Commands from line ${c.line}`,
        recording: [],
      };
      steps.push(loose);
    }
    loose.recording!.push(...actions);
  }
  for (const s of steps) {
    for (const a of s.recording ?? []) {
      for (const k of ["text", "equals", "value", "url"] as const) {
        const v = a[k];
        if (typeof v === "string") { for (const name of templateVariables(v)) used.add(name); }
      }
    }
  }
  // a variable the flow reads but neither declares nor sets is a secret passed with -e
  const set = new Set(
    steps.flatMap((s) => (s.recording ?? []).map((a) => a.storeAs)).filter(Boolean),
  );
  for (const k of used) if (!(k in memory) && !set.has(k)) memory[k] = null;
  return {
    config: {
      ...(flow.name ? { id: flow.name } : {}),
      platform,
      ...(Object.keys(memory).length > 0 ? { memory } : {}),
    },
    trail: steps,
  };
}

function inputTextOf(args: unknown): string {
  const t = typeof args === "object" && args !== null ? (args as { text?: unknown }).text : args;
  return fromMaestroString(String(t ?? ""));
}
