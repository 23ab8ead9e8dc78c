/**
 * Pre-processing slot analysis (optional, before a blaze): NL steps → named memory slots,
 * the relationships between them, and the instructions to hand the agent so that it stores
 * what it observes under those names (`memory.set("appleCount", value)`).
 *
 * Two analysers sit behind one interface: {@linkcode HeuristicSlotAnalyzer} (the default; pure,
 * no network) and {@linkcode ChatSlotAnalyzer}, an OpenAI-compatible chat endpoint configured
 * by `CAIRN_SLOTS_BASE_URL`, `CAIRN_SLOTS_MODEL` and `CAIRN_SLOTS_API_KEY`
 * ({@linkcode slotAnalyzerFromEnv}). Tests never call the endpoint.
 *
 * @module
 */
import { z } from "zod";
import { camelName } from "./naming.ts";
import { statedDeltas, statedRelations, statesDoubled, statesTotal } from "./nl_relations.ts";

/** A named slot. */
export const AnalysedSlot = z.object({
  name: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/),
  /** input: provided before the test (config.memory); captured: read from the screen. */
  kind: z.enum(["input", "captured"]),
  /** 0-based index of the step that provides or captures it. */
  step: z.number().int().nonnegative(),
  description: z.string(),
});
export type AnalysedSlot = z.infer<typeof AnalysedSlot>;

/** A relationship: a later step's expectation as an expression over slots. */
export const SlotRelationship = z.object({
  step: z.number().int().nonnegative(),
  expression: z.string(),
  description: z.string(),
});
export type SlotRelationship = z.infer<typeof SlotRelationship>;

/** The analysis of a trail's NL steps. */
export const SlotAnalysis = z.object({
  slots: z.array(AnalysedSlot),
  relationships: z.array(SlotRelationship),
  /** Text to add to the agent's system prompt. */
  instructions: z.string(),
});
export type SlotAnalysis = z.infer<typeof SlotAnalysis>;

/** An analyser of NL steps. */
export interface SlotAnalyzer {
  /** Which analyser this is (`heuristic`, `chat:<model>`). */
  readonly name: string;
  analyze(steps: readonly string[]): Promise<SlotAnalysis>;
}

const VERIFY = /^\s*(verify|check|assert|confirm|ensure|expect|make sure)\b/i;

function singular(w: string): string {
  if (/ies$/.test(w)) return w.slice(0, -3) + "y";
  if (/(ss|us)$/.test(w)) return w;
  return w.replace(/s$/, "");
}

/** The captured slot a "note"-like step names, if any. */
function capturedName(step: string): { name: string; what: string } | undefined {
  const many = /\bhow many (\w+)/i.exec(step);
  if (many) {
    const noun = singular(many[1]!.toLowerCase());
    return { name: camelName(`${noun} count`), what: `the ${noun} count` };
  }
  const note =
    /^\s*(?:note|remember|read|record|store|save|capture|write down)\s+(?:down\s+)?(?:the\s+)?(?:current\s+)?(.+?)\s*$/i
      .exec(step);
  if (note) {
    const what = note[1]!.replace(/\s+(shown|displayed|on (the )?screen)$/i, "");
    const name = camelName(what);
    if (name) return { name, what: `the ${what.toLowerCase()}` };
  }
  return undefined;
}

const INPUT_HINTS: [RegExp, string[]][] = [
  [/\b(sign|log)\s*(in|on)\b|\blogin\b/i, ["email", "password"]],
  [/\bsearch\b/i, ["searchTerm"]],
  [/\be-?mail\b/i, ["email"]],
  [/\bpassword\b/i, ["password"]],
  [/\bphone\b/i, ["phone"]],
];

/**
 * The default analyser: regular expressions over the NL steps, no network.
 *
 * @example
 * ```ts
 * const a = await new HeuristicSlotAnalyzer().analyze([
 *   "Note how many apples are in the cart", "Add 2 more apples", "Verify apple count increased by 2",
 * ]);
 * if (a.relationships[0]?.expression !== "{{appleCount + 2}}") throw new Error();
 * ```
 */
export class HeuristicSlotAnalyzer implements SlotAnalyzer {
  readonly name = "heuristic";

  /**
   * Analyses NL steps.
   *
   * @param steps the trail's NL steps
   * @returns slots, relationships and agent instructions
   */
  analyze(steps: readonly string[]): Promise<SlotAnalysis> {
    const slots: AnalysedSlot[] = [];
    const relationships: SlotRelationship[] = [];
    const has = (n: string) => slots.some((s) => s.name === n);
    steps.forEach((step, i) => {
      if (!VERIFY.test(step)) {
        const cap = capturedName(step);
        if (cap && !has(cap.name)) {
          slots.push({ name: cap.name, kind: "captured", step: i, description: cap.what });
          return;
        }
        for (const [re, names] of INPUT_HINTS) {
          if (!re.test(step)) continue;
          for (const n of names) {
            if (!has(n)) {
              slots.push({
                name: n,
                kind: "input",
                step: i,
                description: `${n} typed in "${step}"`,
              });
            }
          }
          break;
        }
        return;
      }
      const captured = slots.filter((s) => s.kind === "captured");
      if (captured.length === 0) return;
      const words = step.toLowerCase().split(/\W+/).map(singular);
      const target = [...captured].reverse().find((s) =>
        words.some((w) =>
          w.length > 2 && s.name.toLowerCase().includes(w)
        )
      ) ?? captured[captured.length - 1]!;
      const [delta] = statedDeltas(step);
      let expression: string | undefined;
      let what = "";
      if (delta) {
        [expression, what] = [
          `{{${target.name} ${delta.op} ${delta.amount}}}`,
          `${delta.op === "+" ? "increased" : "decreased"} by ${delta.amount}`,
        ];
      } else if (statesDoubled(step)) {
        [expression, what] = [`{{${target.name} * 2}}`, "doubled"];
      } else if (statesTotal(step) && captured.length >= 2) {
        const [a, b] = captured.slice(-2) as [AnalysedSlot, AnalysedSlot];
        [expression, what] = [`{{${a.name} * ${b.name}}}`, "total"];
      } else {
        // the other relations the optimizer's expressions pass reads ("4 times", "half", "15%")
        const r = statedRelations(step);
        const [f, d, p] = [r.factors[0], r.divisors[0], r.percents[0]];
        if (f) [expression, what] = [`{{${target.name} * ${f.amount}}}`, f.phrase];
        else if (d) [expression, what] = [`{{${target.name} / ${d.amount}}}`, d.phrase];
        else if (p) {
          [expression, what] = [`{{${target.name} * ${p.amount} / 100}}`, p.phrase];
        } else if (r.difference && captured.length >= 2) {
          const [a, b] = captured.slice(-2) as [AnalysedSlot, AnalysedSlot];
          [expression, what] = [`{{${a.name} - ${b.name}}}`, r.difference];
        }
      }
      if (expression) {
        relationships.push({ step: i, expression, description: `${target.description} ${what}` });
      }
    });
    return Promise.resolve({ slots, relationships, instructions: instructionsFor(slots) });
  }
}

/**
 * The agent instructions for a set of slots ("You have a memory variable appleCount…").
 *
 * @param slots the slots
 * @returns text for the system prompt
 */
export function instructionsFor(slots: readonly AnalysedSlot[]): string {
  const lines: string[] = [];
  for (const s of slots) {
    if (s.kind === "captured") {
      lines.push(
        `You have a memory variable ${s.name}. When you observe ${s.description} on screen, ` +
          `call memory.set("${s.name}", value) to store it.`,
      );
    } else {
      lines.push(
        `Type the value of memory variable ${s.name} where ${s.name} is needed ({{${s.name}}}).`,
      );
    }
  }
  return lines.join("\n");
}

/** Configuration of {@linkcode ChatSlotAnalyzer}. */
export interface ChatConfig {
  /** Base URL of an OpenAI-compatible API, e.g. `https://api.example.com/v1`. */
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** Request timeout in milliseconds (default 30,000). */
  timeoutMs?: number;
}

const SYSTEM = "You analyse the natural-language steps of a UI test before it runs. Reply with " +
  'one JSON object {"slots":[{"name","kind":"input"|"captured","step","description"}],' +
  '"relationships":[{"step","expression","description"}],"instructions"}. Names are ' +
  "camelCase; expressions use {{name + 2}} syntax; instructions tell the agent to call " +
  'memory.set("name", value) when it observes a captured slot.';

/** An OpenAI-compatible chat endpoint behind the {@linkcode SlotAnalyzer} interface. */
export class ChatSlotAnalyzer implements SlotAnalyzer {
  readonly name: string;
  readonly #config: ChatConfig;

  constructor(config: ChatConfig) {
    this.#config = config;
    this.name = `chat:${config.model}`;
  }

  /**
   * Asks the endpoint and validates its answer.
   *
   * @param steps the NL steps
   * @returns the analysis
   * @throws {Error} when the endpoint fails or answers something that is not a SlotAnalysis
   */
  async analyze(steps: readonly string[]): Promise<SlotAnalysis> {
    const res = await fetch(`${this.#config.baseUrl.replace(/\/$/, "")}/chat/completions`, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        ...(this.#config.apiKey ? { Authorization: `Bearer ${this.#config.apiKey}` } : {}),
      },
      body: JSON.stringify({
        model: this.#config.model,
        response_format: { type: "json_object" },
        messages: [
          { role: "system", content: SYSTEM },
          { role: "user", content: steps.map((s, i) => `${i}. ${s}`).join("\n") },
        ],
      }),
      signal: AbortSignal.timeout(this.#config.timeoutMs ?? 30_000),
    });
    if (!res.ok) throw new Error(`Slot analysis endpoint answered ${res.status}`);
    const body = await res.json() as { choices?: { message?: { content?: string } }[] };
    const content = body.choices?.[0]?.message?.content;
    if (!content) throw new Error("Slot analysis endpoint answered without a message");
    const parsed = SlotAnalysis.safeParse(JSON.parse(content));
    if (!parsed.success) {
      throw new Error(
        `Slot analysis endpoint answered an invalid analysis: ${parsed.error.issues[0]!.message}`,
      );
    }
    return parsed.data;
  }
}

/**
 * The analyser the environment asks for: {@linkcode ChatSlotAnalyzer} when
 * `CAIRN_SLOTS_BASE_URL` and `CAIRN_SLOTS_MODEL` are set (`CAIRN_SLOTS_API_KEY` optional),
 * else {@linkcode HeuristicSlotAnalyzer}.
 *
 * @param env the environment (default `Deno.env`)
 * @returns the analyser
 * @example
 * ```ts
 * if (slotAnalyzerFromEnv({}).name !== "heuristic") throw new Error();
 * ```
 */
export function slotAnalyzerFromEnv(
  env: Readonly<Record<string, string | undefined>> = Deno.env.toObject(),
): SlotAnalyzer {
  const baseUrl = env.CAIRN_SLOTS_BASE_URL;
  const model = env.CAIRN_SLOTS_MODEL;
  if (!baseUrl || !model) return new HeuristicSlotAnalyzer();
  return new ChatSlotAnalyzer({
    baseUrl,
    model,
    ...(env.CAIRN_SLOTS_API_KEY ? { apiKey: env.CAIRN_SLOTS_API_KEY } : {}),
  });
}
