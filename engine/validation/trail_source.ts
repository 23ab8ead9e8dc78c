/**
 * The trail validation writes back for a trail the user gave (`validate --trail FILE`): their
 * file with only what validation changed replaced, so their comments, their spelling of the
 * steps and actions it left alone (`- back`, `click: "Login"`, `${email}`, flow mappings) and
 * their key order survive. What changed (a refined selector, a step marked `recordable: false`,
 * the url replayed) is written as {@linkcode stringifyTrail} writes it. When the file cannot be
 * edited in place (its steps no longer line up), the whole trail is written anew.
 *
 * @module
 */
import YAML, { type Document } from "yaml";
import { parseTrail, stringifyTrail, type Trail } from "../trail/mod.ts";

type Path = (string | number)[];

/** JSON with object keys sorted: equal values give equal text whatever their key order. */
function canonical(v: unknown): string {
  return JSON.stringify(
    v,
    (_k, x) =>
      x && typeof x === "object" && !Array.isArray(x)
        ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0))
        : x,
  );
}

function same(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

/** The node at `path` of `final` as {@linkcode stringifyTrail} writes it. */
function written(final: Trail, path: Path): unknown {
  const doc = YAML.parseDocument(stringifyTrail(final));
  return doc.getIn(path, true);
}

/**
 * The user's trail text with the edits that turn `original` into `final`.
 *
 * @param source the text of the trail file the user gave
 * @param original the trail parsed from `source`
 * @param final the trail validation ended with
 * @returns YAML text that parses to `final`, keeping what did not change as written
 * @example
 * ```ts
 * import { parseTrail } from "../trail/trail.ts";
 * const src = "config: {}\ntrail:\n  - step: Go # first\n    recording:\n      - back\n";
 * const t = parseTrail(src);
 * if (editTrailSource(src, t, t) !== src) throw new Error();
 * ```
 */
export function editTrailSource(source: string, original: Trail, final: Trail): string {
  if (same(original, final)) return source;
  try {
    const text = edit(source, original, final);
    // what is written must read back as the trail validation ended with
    if (text !== undefined && same(parseTrail(text), final)) return text;
  } catch {
    // written anew below
  }
  return stringifyTrail(final);
}

function edit(source: string, original: Trail, final: Trail): string | undefined {
  const doc: Document = YAML.parseDocument(source);
  const steps = doc.getIn(["trail"], true);
  if (
    doc.errors.length > 0 || !YAML.isSeq(steps) || steps.items.length !== original.trail.length ||
    original.trail.length !== final.trail.length
  ) return undefined;
  const from = original.config as Record<string, unknown>;
  const to = final.config as Record<string, unknown>;
  for (const key of new Set([...Object.keys(from), ...Object.keys(to)])) {
    if (same(from[key], to[key])) continue;
    if (to[key] === undefined) doc.deleteIn(["config", key]);
    else if (YAML.isMap(doc.getIn(["config"], true))) {
      doc.setIn(["config", key], written(final, ["config", key]));
    } else doc.set("config", written(final, ["config"]));
  }
  for (const [i, next] of final.trail.entries()) {
    const before = original.trail[i]!;
    if (same(before, next)) continue;
    const { recording: r0, ...head0 } = before;
    const { recording: r1, ...head1 } = next;
    const actions = doc.getIn(["trail", i, "recording"], true);
    if (
      !same(head0, head1) || !r0 || !r1 || r0.length !== r1.length || !YAML.isSeq(actions) ||
      actions.items.length !== r1.length
    ) {
      // the step itself changed (recordable: false, its recording dropped): written anew, the
      // comment before it kept
      const old = doc.getIn(["trail", i], true) as YAML.Node | undefined;
      const node = written(final, ["trail", i]) as YAML.Node;
      if (old && YAML.isNode(node)) keepComments(old, node);
      doc.setIn(["trail", i], node);
      continue;
    }
    for (const [j, a] of r1.entries()) {
      if (same(r0[j], a)) continue;
      const old = actions.items[j] as YAML.Node | undefined;
      const node = written(final, ["trail", i, "recording", j]) as YAML.Node;
      if (old && YAML.isNode(node)) keepComments(old, node);
      actions.items[j] = node;
    }
  }
  return doc.toString({ lineWidth: 0, indentSeq: true });
}

/** Carries the comments of the node replaced over to its replacement. */
function keepComments(old: YAML.Node, node: YAML.Node): void {
  if (old.commentBefore) node.commentBefore = old.commentBefore;
  // `- click: { text: Add } # why`: the comment is the inner mapping's, the action's own here
  const inner = YAML.isMap(old) && old.items.length === 1 && YAML.isNode(old.items[0]!.value)
    ? old.items[0]!.value.comment
    : undefined;
  const comment = [old.comment, inner].filter((c) => c).join("\n");
  if (comment) node.comment = comment;
}
