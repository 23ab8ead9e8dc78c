/**
 * Reads a recorder's selector map into a playback {@linkcode Target}. Accepts the keys of
 * Cairn's human recorder (`testId`, `ariaLabel`, `id`, `text`, `cssPath`, `role`, `name`),
 * their DOM spellings (`data-testid`, `aria-label`), and the Chrome Recorder's selector kinds
 * as the import names them (`aria`, `css`, `css.2`, `xpath`, `pierce`, `text`).
 *
 * @module
 */
import { readAriaChain } from "../formats/mod.ts";
import type { Target } from "./actions.ts";

const TEST_ID_CSS = /^\[data-test(?:id|-id)=(?:"([^"]+)"|'([^']+)'|([^\]"']+))\]$/;
const ARIA_LABEL_CSS = /^\[aria-label=(?:"([^"]+)"|'([^']+)'|([^\]"']+))\]$/;
const ID_CSS = /^#([A-Za-z_][\w-]*)$/;

/**
 * Builds a target from a selector map; an unknown key is ignored.
 *
 * @param selectors the recorder's selectors by kind
 * @returns the target (without a point)
 * @example
 * ```ts
 * const t = targetFromSelectors({ css: "[data-testid=go]", aria: 'Go[role="button"]' });
 * if (t.testId !== "go" || t.role !== "button" || t.name !== "Go") throw new Error();
 * ```
 */
export function targetFromSelectors(selectors: Readonly<Record<string, string>>): Target {
  const t: Target = {};
  const set = <K extends keyof Target>(key: K, value: Target[K] | undefined) => {
    if (value !== undefined && value !== "" && t[key] === undefined) t[key] = value;
  };
  for (const [rawKey, value] of Object.entries(selectors)) {
    if (!value) continue;
    const key = rawKey.replace(/\.\d+$/, "");
    switch (key) {
      case "testId":
      case "data-testid":
      case "testid":
        set("testId", value);
        break;
      case "ariaLabel":
      case "aria-label":
        set("ariaLabel", value);
        break;
      case "id":
        set("id", value.replace(/^#/, ""));
        break;
      case "text":
        set("text", value);
        break;
      case "role":
        set("role", value);
        break;
      case "name":
        set("name", value);
        break;
      case "cssPath":
      case "css_path":
        set("cssPath", value);
        break;
      case "xpath":
        set("xpath", value);
        break;
      case "aria": {
        // a chain (`Hello World >>> aria/[role="generic"]`): the element it names, the one
        // acted on lies inside it
        const aria = readAriaChain(value);
        if (aria) {
          set("name", aria.name);
          set("role", aria.role);
        }
        break;
      }
      case "css":
      case "pierce":
      case "selector": {
        const tid = TEST_ID_CSS.exec(value);
        const label = ARIA_LABEL_CSS.exec(value);
        const id = ID_CSS.exec(value);
        if (tid) set("testId", tid[1] ?? tid[2] ?? tid[3]);
        else if (label) set("ariaLabel", label[1] ?? label[2] ?? label[3]);
        else if (id) set("id", id[1]);
        else set("cssPath", value);
        break;
      }
    }
  }
  return t;
}
