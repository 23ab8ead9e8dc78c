/**
 * Maestro flow files (`flow.yaml`): a header document (`appId`, optional `name`, `tags`, `env`,
 * hooks), `---`, then the list of commands — two YAML documents in one file, Maestro's normal
 * form. A command is a bare name (`- back`) or a one-key map (`- tapOn: Email`,
 * `- tapOn: { id: …, index: 1 }`). This module reads the file and checks that shape; what a
 * command does is `engine/playback/from_maestro.ts`'s business.
 *
 * @module
 */
import { isMap, isScalar, isSeq, LineCounter, parseAllDocuments } from "yaml";

/** One command of a flow, with the line it starts on. */
export interface MaestroCommand {
  /** The command's name: `tapOn`, `inputText`, `back`, … */
  name: string;
  /** Its argument: a scalar, a map, or undefined for a bare command. */
  args: unknown;
  /** 1-based line of the command in the file. */
  line: number;
}

/** A parsed Maestro flow. */
export interface MaestroFlow {
  appId: string;
  name?: string;
  tags: string[];
  commands: MaestroCommand[];
}

/**
 * Whether YAML text is meant as a Maestro flow: its first document is a map with an `appId`
 * (a trail has `config` and `trail`). {@linkcode parseMaestroFlow} then says what is wrong with
 * the rest, if anything.
 *
 * @param text the file's text
 * @returns true for a Maestro flow
 * @example
 * ```ts
 * if (!looksLikeMaestroFlow("appId: com.example\n---\n- back\n")) throw new Error();
 * if (looksLikeMaestroFlow("config: {}\ntrail: []\n")) throw new Error();
 * ```
 */
export function looksLikeMaestroFlow(text: string): boolean {
  const header = parseAllDocuments(text)[0]?.contents;
  return isMap(header) && header.has("appId");
}

/**
 * Reads a Maestro flow: the header document, then the commands document.
 *
 * @param text the file's text
 * @param source the file name, for error messages
 * @returns the flow
 * @throws {SyntaxError} one line, `SOURCE:LINE:COLUMN: what` — malformed YAML, a header without
 *   `appId`, commands that are not a list, a command that is not a name or a one-key map
 * @example
 * ```ts
 * const flow = parseMaestroFlow("appId: com.example\n---\n- launchApp\n- tapOn: Email\n");
 * if (flow.appId !== "com.example" || flow.commands[1]!.name !== "tapOn") throw new Error();
 * if (flow.commands[1]!.line !== 4) throw new Error();
 * ```
 */
export function parseMaestroFlow(text: string, source = "flow"): MaestroFlow {
  const lines = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter: lines });
  const at = (offset: number | undefined) => {
    const pos = lines.linePos(offset ?? 0);
    return `${source}:${pos.line}:${pos.col}`;
  };
  for (const doc of docs) {
    const err = doc.errors[0];
    if (err) {
      // the library's first line ends "at line L, column C:" (its excerpt follows); `at` says it
      const what = err.message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "");
      throw new SyntaxError(`${at(err.pos[0])}: ${what}`);
    }
  }
  if (docs.length !== 2) {
    const where = docs.length > 2 ? at(docs[2]!.range[0]) : `${source}:1:1`;
    throw new SyntaxError(
      `${where}: a Maestro flow is two YAML documents, the header (appId) then --- and the ` +
        `commands; found ${docs.length}`,
    );
  }
  const [headerDoc, commandsDoc] = docs as [typeof docs[0], typeof docs[0]];
  const header = headerDoc.contents;
  if (!isMap(header)) {
    throw new SyntaxError(`${at(headerDoc.range[0])}: expected the header, a map with appId`);
  }
  const appId = header.get("appId", true);
  if (!isScalar(appId) || typeof appId.value !== "string" || appId.value === "") {
    const where = isScalar(appId) ? at(appId.range?.[0]) : at(header.range?.[0]);
    throw new SyntaxError(`${where}: appId: expected the app's id (a string)`);
  }
  const name = header.get("name");
  const tags = header.get("tags", true);
  const list = commandsDoc.contents;
  if (!isSeq(list)) {
    throw new SyntaxError(
      `${at(list?.range?.[0] ?? commandsDoc.range[0])}: expected the list of commands`,
    );
  }
  const values = commandsDoc.toJS() as unknown[];
  const commands = list.items.map((item, i): MaestroCommand => {
    const offset = (item as { range?: [number, number, number] } | null)?.range?.[0];
    const line = lines.linePos(offset ?? 0).line;
    if (isScalar(item) && typeof item.value === "string" && item.value !== "") {
      return { name: item.value, args: undefined, line };
    }
    if (isMap(item) && item.items.length === 1) {
      const key = item.items[0]!.key;
      if (isScalar(key) && typeof key.value === "string") {
        const args = (values[i] as Record<string, unknown>)[key.value];
        return { name: key.value, args: args ?? undefined, line };
      }
    }
    throw new SyntaxError(
      `${at(offset)}: command ${i + 1}: expected a command name or a map with one command`,
    );
  });
  return {
    appId: appId.value,
    ...(typeof name === "string" ? { name } : {}),
    tags: isSeq(tags) ? tags.items.flatMap((t) => isScalar(t) ? [String(t.value)] : []) : [],
    commands,
  };
}
