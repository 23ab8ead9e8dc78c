/**
 * Keeps the values typed into password and sensitive fields out of everything a recorder stores
 * (events, hierarchy blobs) and prints. A secret is replaced by `[redacted]` only where it can
 * actually appear: a string that equals it, a url query or fragment parameter whose decoded value
 * holds it, a whole token of free text (when the secret is long enough to be told from ordinary
 * words), and the value of a sensitive field in a hierarchy. Structural strings (schema names,
 * roles, attribute names, ids, event kinds) are never touched, so a one-letter password cannot
 * corrupt what is stored.
 *
 * @module
 */
import type { NewEvent } from "../events/mod.ts";
import { REDACTED } from "../engine/playback/mod.ts";

/**
 * Secrets shorter than this are matched only as a whole string or a whole url parameter value:
 * as a token of free text they would match ordinary words (`e`, `ok`, `the`).
 */
const MIN_TOKEN_LENGTH = 4;
/** A letter, digit or underscore: a secret inside a longer word is not a token of the text. */
const WORD_CHAR = /[\p{L}\p{N}_]/u;
/** `name=value` in a url's query or fragment (value up to the next separator). */
const URL_PARAM = /([?&#;][^=&#?\s"'<>]*=)([^&#;\s"'<>]*)/g;
/** Hierarchy JSON keys whose strings are page content (the rest is structure). */
const CONTENT_KEYS = new Set(["name", "value", "description", "text", "title", "url"]);
/** DOM attributes (a Chrome node's `dom`) whose values are page content, not selectors. */
const DOM_CONTENT_KEYS = new Set(["placeholder", "aria-label", "alt", "href", "title"]);
/**
 * Attributes of an XML hierarchy whose values are page content: Android's text, content-desc,
 * hint, tooltip-text and state-description, iOS's value, label and placeholderValue.
 */
const XML_CONTENT_ATTR =
  /(\s(?:text|content-desc|hint|tooltip-text|state-description|value|label|placeholderValue)=")([^"]*)(")/g;
/** An XML start tag of a password field (`password="true"`), up to the end of the tag. */
const XML_PASSWORD_TAG = /<[^<>]*\spassword="true"[^<>]*>/g;
/** An iOS secure text field's start tag, up to the end of the tag. */
const XML_SECURE_TAG = /<XCUIElementTypeSecureTextField\b[^<>]*>/g;
/** A password field's text that shows only mask characters: the platform hid the value. */
const MASKED = /^[\u2022\u25CF\u00B7*]*$/;

/** Values to keep out of what is stored: add each secret when it is typed. */
export class SecretScrubber {
  #secrets = new Set<string>();

  /**
   * Remembers a secret (the empty string is ignored).
   *
   * @param secret the value typed into a sensitive field
   */
  add(secret: string): void {
    if (secret !== "") this.#secrets.add(secret);
  }

  /** How many secrets are known. */
  get size(): number {
    return this.#secrets.size;
  }

  /**
   * Whether a string holds a known secret where {@linkcode SecretScrubber.text} would hide it.
   *
   * @param s the string
   * @returns true when scrubbing changes it
   */
  holds(s: string): boolean {
    return this.text(s) !== s;
  }

  /**
   * A string with each secret replaced: the whole string when it equals one, url parameter
   * values that hold one (decoded as `encodeURIComponent` or form encoding), and whole-token
   * occurrences (raw or url-encoded) of secrets of at least {@linkcode MIN_TOKEN_LENGTH} chars.
   *
   * @param s free text, a url, a name or a value
   * @returns the scrubbed string
   * @example
   * ```ts
   * const s = new SecretScrubber();
   * s.add("p@ss w0rd!");
   * s.text("/w?password=p%40ss+w0rd%21&x=1"); // "/w?password=[redacted]&x=1"
   * ```
   */
  text(s: string): string {
    if (this.#secrets.size === 0 || s === "") return s;
    if (this.#secrets.has(s)) return REDACTED;
    // url parameter names are structure: only the text between parameters and their values
    let out = "";
    let from = 0;
    for (const m of s.matchAll(URL_PARAM)) {
      const [all, name = "", value = ""] = m;
      const decoded = formDecode(value);
      const secret = this.#secrets.has(decoded) || this.#tokenIn(decoded);
      out += this.#tokens(s.slice(from, m.index)) + name + (secret ? REDACTED : value);
      from = m.index + all.length;
    }
    out += this.#tokens(s.slice(from));
    return out;
  }

  /**
   * A copy of a JSON value with {@linkcode SecretScrubber.text} applied to every string.
   *
   * @param value tool parameters, dialogs, an error
   * @returns the scrubbed copy
   */
  value<T>(value: T): T {
    if (this.#secrets.size === 0) return value;
    const scrub = (v: unknown): unknown => {
      if (typeof v === "string") return this.text(v);
      if (Array.isArray(v)) return v.map(scrub);
      if (v && typeof v === "object" && !(v instanceof Uint8Array)) {
        return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, scrub(x)]));
      }
      return v;
    };
    return scrub(value) as T;
  }

  /**
   * An event with the secrets taken out of the fields that can carry one: urls, typed and read
   * text, target names, tool parameters (not the ref, nor a memory call's key), messages, step
   * text, memory values (set or snapshotted). Structural fields (kinds, roles, ids, hashes,
   * memory keys) are kept as they are.
   *
   * @param event the event to store
   * @returns the event to store instead
   */
  event(event: NewEvent): NewEvent {
    if (this.#secrets.size === 0) return event;
    const t = (s: string | undefined) => s === undefined ? undefined : this.text(s);
    switch (event.type) {
      case "NavigationOccurred": {
        const d = event.data;
        return { ...event, data: { ...d, url: this.text(d.url), ...opt("from", t(d.from)) } };
      }
      case "ScreenCaptured":
        return { ...event, data: { ...event.data, ...opt("url", t(event.data.url)) } };
      case "StepStarted":
        return { ...event, data: { ...event.data, text: this.text(event.data.text) } };
      case "ActionCompleted": {
        const d = event.data;
        return {
          ...event,
          data: {
            ...d,
            ...opt("error", t(d.error)),
            ...opt("value", t(d.value)),
            ...(d.dialogs ? { dialogs: this.value(d.dialogs) } : {}),
          },
        };
      }
      case "MemorySnapshotted": {
        const memory = Object.fromEntries(
          Object.entries(event.data.memory).map(([k, v]) => [k, this.text(v)]),
        );
        return { ...event, data: { ...event.data, memory } };
      }
      case "ActionPerformed": {
        const d = event.data;
        if (d.kind === "memorySet" || d.kind === "memoryGet") {
          // the memory key and the operation are structure: only the value and free text
          const { name, op, ...params } = d.toolParams ?? {};
          return {
            ...event,
            data: {
              ...d,
              ...opt("value", t(d.value)),
              ...(d.toolParams ? { toolParams: { ...this.value(params), name, op } } : {}),
            },
          };
        }
        const { ref, ...params } = d.toolParams ?? {};
        const target = d.target && {
          ...d.target,
          ...opt("name", t(d.target.name)),
          ...(d.target.selectors ? { selectors: this.#selectors(d.target.selectors) } : {}),
        };
        return {
          ...event,
          data: {
            ...d,
            ...opt("text", t(d.text)),
            ...opt("value", t(d.value)),
            ...opt("url", t(d.url)),
            ...opt("expected", t(d.expected)),
            ...(d.toolParams
              ? { toolParams: { ...this.value(params), ...(ref !== undefined ? { ref } : {}) } }
              : {}),
            ...(target ? { target } : {}),
          },
        };
      }
      default:
        return event;
    }
  }

  /**
   * A raw hierarchy with the secrets taken out of its content: in a JSON hierarchy (Chrome) the
   * content strings of every node (name, value, text, description, url-like attributes), and the
   * value of every sensitive field; in an XML hierarchy (Android, iOS) the content attributes
   * (`text`, `content-desc`, `hint`, …, iOS `value` and `label`), and the unmasked text of every
   * password field. Everything else (schema version, roles, attribute names, ids) is kept, so
   * the blob stays valid for its format. Text of any other media type, or JSON that does not
   * parse, is scrubbed as text with no structure to keep ({@linkcode SecretScrubber.opaque}).
   *
   * @param bytes the hierarchy as captured
   * @param mediaType its media type
   * @returns the bytes to store
   */
  hierarchy(bytes: Uint8Array, mediaType: string): Uint8Array {
    if (this.#secrets.size === 0) {
      // no secret to look for, but a masked password field still shows the password's length
      if (!mediaType.includes("xml")) return bytes;
      const text = new TextDecoder().decode(bytes);
      const out = redactPasswordFields(text, false);
      return out === text ? bytes : new TextEncoder().encode(out);
    }
    const text = new TextDecoder().decode(bytes);
    if (mediaType.includes("json")) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        return new TextEncoder().encode(this.opaque(text)); // not JSON after all
      }
      return new TextEncoder().encode(JSON.stringify(this.hierarchyJson(parsed)));
    }
    if (mediaType.includes("xml")) {
      const out = redactPasswordFields(text, true)
        .replace(XML_CONTENT_ATTR, (all, open: string, v: string, close: string) => {
          // an attribute with no secret in it is kept byte for byte (`&#983536;` stays as is)
          const plain = xmlUnescape(v);
          const scrubbed = this.text(plain);
          return scrubbed === plain ? all : open + xmlEscape(scrubbed) + close;
        });
      return new TextEncoder().encode(out);
    }
    return new TextEncoder().encode(this.opaque(text));
  }

  /**
   * Text of a format the scrubber cannot parse (neither JSON nor XML, or not well-formed), with
   * every secret taken out as {@linkcode SecretScrubber.text} takes it out of free text, and
   * then, having no structure to keep, every occurrence of a secret long enough to be told from
   * ordinary words (raw, url-, form-, JSON- or XML-encoded), even inside a longer word. When a
   * secret still shows after that (it overlaps `[redacted]` itself), the whole text is withheld.
   *
   * @param text the hierarchy as text
   * @returns the text to store
   * @example
   * ```ts
   * const s = new SecretScrubber();
   * s.add("hunter22");
   * s.opaque("- textbox: xhunter22y"); // "- textbox: x[redacted]y"
   * ```
   */
  opaque(text: string): string {
    let out = this.text(text);
    for (const secret of this.#secrets) {
      for (const form of storedForms(secret)) {
        out = secret.length >= MIN_TOKEN_LENGTH
          ? out.replaceAll(form, REDACTED)
          : replaceTokens(out, form);
      }
    }
    for (const secret of this.#secrets) {
      if (secret.length < MIN_TOKEN_LENGTH) continue;
      if ([...storedForms(secret)].some((form) => out.includes(form))) return REDACTED;
    }
    return out;
  }

  /**
   * A parsed JSON hierarchy with the secrets taken out of its content (see
   * {@linkcode SecretScrubber.hierarchy}).
   *
   * @param value the parsed hierarchy
   * @returns the scrubbed copy
   */
  hierarchyJson<T>(value: T): T {
    // a string is scrubbed when its key is content: a node's, or a DOM attribute's under `dom`
    const scrub = (v: unknown, key: string | undefined, content: Set<string>): unknown => {
      if (typeof v === "string") return key && content.has(key) ? this.text(v) : v;
      if (Array.isArray(v)) return v.map((x) => scrub(x, key, content));
      if (v && typeof v === "object") {
        const inner = key === "dom" ? DOM_CONTENT_KEYS : CONTENT_KEYS;
        return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, scrub(x, k, inner)]));
      }
      return v;
    };
    const out = scrub(value, undefined, CONTENT_KEYS) as T;
    redactSensitiveValues(out);
    return out;
  }

  #selectors(sel: Record<string, string | undefined>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(sel)) {
      if (v === undefined) continue;
      out[k] = k === "name" || k === "text" || k === "ariaLabel" ? this.text(v) : v;
    }
    return out;
  }

  /** `s` with the whole-token occurrences of every long enough secret (any encoding) replaced. */
  #tokens(s: string): string {
    for (const secret of this.#secrets) {
      if (secret.length < MIN_TOKEN_LENGTH) continue;
      for (const form of encodings(secret)) s = replaceTokens(s, form);
    }
    return s;
  }

  #tokenIn(s: string): boolean {
    for (const secret of this.#secrets) {
      if (secret.length >= MIN_TOKEN_LENGTH && replaceTokens(s, secret) !== s) return true;
    }
    return false;
  }
}

/** The forms a secret takes in stored text: raw, `encodeURIComponent` and form-encoded. */
function encodings(secret: string): Set<string> {
  const uri = encodeURIComponent(secret);
  const form = uri.replace(/%20/g, "+").replace(
    /[!'()*~]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return new Set([secret, uri, form, uri.replace(/%20/g, "+")]);
}

/** The forms a secret takes in stored text of any format: {@linkcode encodings}, JSON, XML. */
function storedForms(secret: string): Set<string> {
  return new Set([...encodings(secret), JSON.stringify(secret).slice(1, -1), xmlEscape(secret)]);
}

/** A url parameter value decoded as form data (`+` is a space); undecodable: as it is. */
function formDecode(v: string): string {
  try {
    return decodeURIComponent(v.replace(/\+/g, " "));
  } catch {
    return v;
  }
}

/** `s` with each occurrence of `secret` that is a whole token (not inside a word) replaced. */
function replaceTokens(s: string, secret: string): string {
  let out = "";
  let from = 0;
  for (let i = s.indexOf(secret); i >= 0; i = s.indexOf(secret, i + 1)) {
    if (i < from) continue;
    const before = s[i - 1];
    const after = s[i + secret.length];
    const startsWord = WORD_CHAR.test(secret[0]!);
    const endsWord = WORD_CHAR.test(secret.at(-1)!);
    if (
      (before !== undefined && startsWord && WORD_CHAR.test(before)) ||
      (after !== undefined && endsWord && WORD_CHAR.test(after))
    ) continue;
    out += s.slice(from, i) + REDACTED;
    from = i + secret.length;
  }
  return out + s.slice(from);
}

/**
 * Sets `value` to `[redacted]` on every node of a Chrome hierarchy that is a sensitive field (the
 * rule of `isSensitiveNode`: a password input, a `data-sensitive` subtree, an `autocomplete` of
 * `cc-*` or a password): a value typed with `clear=false` is more than the secret typed.
 */
function redactSensitiveValues(h: unknown): void {
  const nodes = (h as { nodes?: unknown }).nodes;
  if (!Array.isArray(nodes)) return;
  type Node = { value?: unknown; dom?: Record<string, string>; children?: number[] };
  const inSensitive = new Set<number>();
  nodes.forEach((raw, i) => {
    const n = raw as Node;
    const dom = n.dom ?? {};
    const ac = (dom.autocomplete ?? "").toLowerCase();
    const wrapped = inSensitive.has(i) || dom["data-sensitive"] !== undefined;
    if (wrapped) { for (const c of n.children ?? []) inSensitive.add(c); }
    const secret = wrapped || dom.type === "password" || ac.startsWith("cc-") ||
      ac.includes("current-password") || ac.includes("new-password");
    if (secret && typeof n.value === "string" && n.value !== "") n.value = REDACTED;
  });
}

/**
 * A page source with the text of every filled password field (Android `password="true"`, iOS
 * `XCUIElementTypeSecureTextField`) as `[redacted]`: a masked text (`••••`, one mask character
 * a character) always, as it shows the password's length; an unmasked one when `unmasked`
 * (a secret is known: the value, or one with its last character shown, is hidden whole, as a
 * web hierarchy's sensitive values are). An empty field, and one showing its hint (Android
 * `hint`, `showing-hint="true"`; iOS `placeholderValue`), are kept.
 */
function redactPasswordFields(xml: string, unmasked: boolean): string {
  const redact = (tag: string, attr: "text" | "value", hintAttr: string, showing: boolean) => {
    const hint = tag.match(new RegExp(`\\s${hintAttr}="([^"]*)"`))?.[1];
    return tag.replace(
      new RegExp(`(\\s${attr}=")([^"]*)(")`),
      (all, open: string, v: string, close: string) => {
        if (v === "" || v === hint || showing) return all;
        return MASKED.test(xmlUnescape(v)) || unmasked ? open + REDACTED + close : all;
      },
    );
  };
  return xml
    .replace(
      XML_PASSWORD_TAG,
      (tag) => redact(tag, "text", "hint", /\sshowing-hint="true"/.test(tag)),
    )
    .replace(XML_SECURE_TAG, (tag) => redact(tag, "value", "placeholderValue", false));
}

function opt<K extends string>(key: K, v: string | undefined): { [k in K]?: string } {
  return (v === undefined ? {} : { [key]: v }) as { [k in K]?: string };
}

function xmlEscape(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;").replace(/'/g, "&apos;");
}

function xmlUnescape(s: string): string {
  return s.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&#(x[0-9a-f]+|[0-9]+);/gi, (all, code: string) => {
      const n = code[0] === "x" || code[0] === "X"
        ? parseInt(code.slice(1), 16)
        : parseInt(code, 10);
      return n <= 0x10FFFF ? String.fromCodePoint(n) : all;
    })
    .replace(/&amp;/g, "&");
}
