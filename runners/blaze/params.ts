/**
 * The parameters of each blaze tool, parsed once at the edge (CLI `key=value` words or an
 * HTTP JSON body). CLI values arrive as strings, so numbers and booleans are coerced.
 *
 * @module
 */
import { z } from "zod";
import type { Platform } from "../../engine/screens/mod.ts";
import { Coordinate, MAX_COORDINATE } from "../../engine/formats/mod.ts";

const Num = z.union([z.number(), z.string().trim().regex(/^-?\d+(\.\d+)?$/).transform(Number)]);
const Bool = z.union([z.boolean(), z.enum(["true", "false"]).transform((s) => s === "true")]);
const Ref = z.string().trim().transform((s) => s.replace(/^(@|ref=)/, "")).pipe(
  z.string().regex(/^[a-z]\d{1,3}[a-z]*$/, "expected a ref such as y778 or k42b"),
);
const Direction = z.enum(["up", "down", "left", "right"]);

/**
 * The schemes of a page to open. Not `javascript:` (it runs script in the current page instead)
 * nor the browser's own pages (`chrome:`, `about:` other than blank).
 */
const PAGE_SCHEMES = new Set(["http:", "https:", "data:", "file:"]);

/** Why a url is not one a browser session may open. */
export const PAGE_URL_RULE = "expected an http, https, data or file URL, or about:blank";

/**
 * Whether a browser session may open a url: http, https, data, file, or about:blank. (An
 * Android session opens apps and deep links of any scheme.)
 *
 * @param url the url
 * @returns true when it names a page to load
 * @example
 * ```ts
 * if (!isPageUrl("https://example.com/") || isPageUrl("javascript:alert(1)")) throw new Error();
 * ```
 */
export function isPageUrl(url: string): boolean {
  return PAGE_SCHEMES.has(URL.parse(url)?.protocol ?? "") || url === "about:blank";
}

/**
 * What every action call may add: the NL step it serves (starts that step when it is not the
 * current one, like the `-o "Tap Network & internet"`), the agent's reason for it, and notes
 * and a confidence that recording_v1 keeps on the decision.
 */
const Meta = {
  step: z.string().min(1).optional(),
  notes: z.string().optional(),
  /** Why the agent takes the action: stored with the decision (its tool call), shown by the viewer. */
  reason: z.string().trim().min(1).max(4000).optional(),
  confidence: Num.pipe(z.number().min(0).max(1)).optional(),
};

/** A target: a ref from the latest snapshot, or a point. */
const Target = {
  ref: Ref.optional(),
  x: Num.pipe(Coordinate).optional(),
  y: Num.pipe(Coordinate).optional(),
};

function oneTarget<
  T extends { ref?: string | undefined; x?: number | undefined; y?: number | undefined },
>(
  v: T,
  ctx: z.RefinementCtx,
) {
  const point = v.x !== undefined || v.y !== undefined;
  if (v.ref !== undefined && point) {
    ctx.addIssue({ code: "custom", message: "give ref or x,y, not both", path: ["ref"] });
  } else if (point && (v.x === undefined || v.y === undefined)) {
    ctx.addIssue({ code: "custom", message: "a point needs both x and y", path: ["x"] });
  }
}

function requireTarget<T extends { ref?: string | undefined; x?: number | undefined }>(
  v: T,
  ctx: z.RefinementCtx,
) {
  if (v.ref === undefined && v.x === undefined) {
    ctx.addIssue({ code: "custom", message: "needs ref=… or x=…,y=…", path: ["ref"] });
  }
}

/** Parameters of every tool, by tool name. */
export const TOOL_PARAMS = {
  snapshot: z.strictObject({
    bounds: Bool.optional(),
    offscreen: Bool.optional(),
    /** Show at most this many levels. */
    depth: Num.pipe(z.number().int().positive()).optional(),
    /** Render only the subtree of this ref. */
    root: Ref.optional(),
    /** Only what changed since the previous snapshot with the same options. */
    diff: Bool.optional(),
  }),
  tap: z.strictObject({
    ...Meta,
    ...Target,
  }).superRefine(oneTarget).superRefine(requireTarget),
  type: z.strictObject({
    ...Meta,
    ...Target,
    text: z.string({
      error: (iss) =>
        iss.input === undefined
          ? 'missing: the text to type, e.g. text="alice@example.com" (text="" clears the field)'
          : "expected the text to type",
    }),
    clear: Bool.optional(),
  }).superRefine(
    oneTarget,
  ),
  press: z.strictObject({
    ...Meta,
    key: z.string().min(1),
  }),
  scroll: z.strictObject({
    ...Meta,
    ...Target,
    direction: Direction,
    distance: Num.pipe(z.number().positive().max(MAX_COORDINATE)).optional(),
  })
    .superRefine(oneTarget),
  navigate: z.strictObject({
    ...Meta,
    /** An app or a deep link on Android; on the web only what {@linkcode isPageUrl} allows. */
    url: z.string().url(),
  }),
  assert: z.strictObject({
    ...Meta,
    ref: Ref,
    visible: Bool.optional(),
    text: z.string().optional(),
  })
    .refine((v) => v.visible !== undefined || v.text !== undefined, {
      message: "needs visible or text=…",
      path: ["visible"],
    }),
  read: z.strictObject({
    ...Meta,
    ref: Ref,
    storeAs: z.string().regex(/^[A-Za-z_][\w]*$/),
  }),
  select: z.strictObject({
    ...Meta,
    ref: Ref,
    value: z.string({
      error: (iss) =>
        iss.input === undefined
          ? 'missing: the option to pick, by its value or text, e.g. value="Express"'
          : "expected the option's value or text",
    }),
  }),
  check: z.strictObject({
    ...Meta,
    ref: Ref,
    checked: Bool.optional(),
  }),
  memory: z.strictObject({
    ...Meta,
    op: z.enum(["set", "get"]),
    name: z.string().regex(/^[A-Za-z_][\w]*$/, "expected a name such as email or item_count"),
    value: z.string().optional(),
    /** `set`: the value is a secret (a password, a PIN): stored as `[redacted]`, never printed. */
    secret: Bool.optional(),
  }).refine((v) => v.op === "get" || v.value !== undefined, {
    message: "memory set needs a value",
    path: ["value"],
  }).refine((v) => v.op === "set" || v.secret === undefined, {
    message: "secret is for memory set",
    path: ["secret"],
  }),
  screenshot: z.strictObject({ marks: Bool.optional(), offscreen: Bool.optional() }),
  step: z.strictObject({ text: z.string().min(1) }),
  end: z.strictObject({
    reason: z.enum(["completed", "failed", "clarification"]).optional(),
    error: z.string().optional(),
  }),
} as const;

/** The tools' parameters in a browser: `navigate` goes to a page, never runs a `javascript:` url. */
const WEB_TOOL_PARAMS: typeof TOOL_PARAMS = {
  ...TOOL_PARAMS,
  navigate: TOOL_PARAMS.navigate.refine((p) => isPageUrl(p.url), {
    message: PAGE_URL_RULE,
    path: ["url"],
  }),
};

/**
 * The parameters of every tool on a platform.
 *
 * @param platform the session's platform
 * @returns the schemas by tool name
 */
export function toolParams(platform: Platform): typeof TOOL_PARAMS {
  return platform === "web" ? WEB_TOOL_PARAMS : TOOL_PARAMS;
}

/** The name of a blaze tool. */
export type ToolName = keyof typeof TOOL_PARAMS;
/** The parsed parameters of a tool. */
export type ToolParams<T extends ToolName> = z.output<typeof TOOL_PARAMS[T]>;

/** Every tool name, in the order help lists them. */
export const TOOL_NAMES = Object.keys(TOOL_PARAMS) as ToolName[];

/**
 * Whether a string names a blaze tool.
 *
 * @param name a tool name
 * @returns true for `tap`, `type`, …
 */
export function isToolName(name: string): name is ToolName {
  return Object.hasOwn(TOOL_PARAMS, name);
}
