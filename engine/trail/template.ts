/**
 * Cairn's own small expression evaluator for trail templates (`{{name}}`, `{{a + 2}}`,
 * `{{price * quantity}}`, `"Hello {{firstName}}"`). A hand-written lexer and recursive-descent
 * parser: no `eval`, no `Function`.
 *
 * Grammar, loosest first: `||`, `&&`, `== != < <= > >=`, `+ -`, `* / %`, unary `- + !`,
 * then a number, a string in single or double quotes, `true`/`false`, a variable (a memory
 * key: letters, digits, `_` and `.`) or a parenthesised expression.
 *
 * Numbers keep their display format: a value such as `$25.00`, `1,200`, `-€3.50` or `3 items`
 * (from memory or written literally) carries its prefix, suffix, thousands grouping and
 * decimals into the result: `$25.00 * 2` → `$50.00`, `1,200 + 5` → `1,205`. The left operand's
 * format wins; the result has the larger of the two decimal counts.
 *
 * @module
 */

/** A memory map: key → value; `null` or absent means the key has no value. */
export type Memory = Readonly<Record<string, string | null | undefined>>;

/** The result of an expression: formatted numbers come back as strings. */
export type TemplateValue = string | number | boolean;

interface NumFormat {
  prefix: string;
  suffix: string;
  decimals: number;
  grouping: boolean;
  /** The thousands separator when it is not "," ("1.234,56 €", "1 234"). */
  groupMark?: string;
  /** Decimals after a comma ("12,50 €"). */
  decimalComma?: boolean;
}
type Value =
  | { t: "num"; v: number; fmt: NumFormat | null }
  | { t: "str"; v: string }
  | { t: "bool"; v: boolean };

type Tok =
  | { k: "num"; v: number; fmt: NumFormat | null; col: number }
  | { k: "str"; v: string; col: number }
  | { k: "id"; v: string; col: number }
  | { k: "op"; v: string; col: number }
  | { k: "end"; col: number };

const NUMERIC =
  /^\s*(-?)\s*([$€£¥]?)\s*(-?)(\d{1,3}(?:,\d{3})+|\d+)?(?:\.(\d+))?(\s*[A-Za-z%]+(?:\s[A-Za-z]+)*)?\s*$/;

/** Currency symbols and ISO codes an amount may carry besides `$€£¥` (`₹1,200`, `CHF 20.00`). */
const SYMBOL = "[$€£¥₹₩₽₺₪฿₫₱]";
const CODE =
  "(?:USD|EUR|GBP|JPY|CNY|INR|CHF|CAD|AUD|NZD|SEK|NOK|DKK|PLN|CZK|BRL|MXN|ZAR|KRW|SGD|HKD|RUB|TRY)";
/**
 * Amounts in the shapes {@linkcode NUMERIC} does not read: decimals after a comma with "." or
 * space grouping (`12,50 €`, `1.234,56 €`, `€ 3,99`), space grouping (`1 234`), a symbol
 * after the amount, another currency's symbol or code before it (`₹1,200`, `CHF 20.00`), a
 * temperature (`49°F`, `-4 °C`).
 */
const INTL = new RegExp(
  String.raw`^\s*(-?)((?:${SYMBOL}|${CODE}(?=[\s\d-]))\s?)?(-?)` +
    String.raw`(?:(\d{1,3}(?:([.\u00a0\u202f ])\d{3})+|\d+),(\d{1,2})` +
    String.raw`|(\d{1,3}(?:([\u00a0\u202f ])\d{3})+)` +
    String.raw`|(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?)` +
    String.raw`(\s?(?:${SYMBOL}|${CODE}|°[CF]?)|\s*[A-Za-z%]+(?:\s[A-Za-z]+)*)?\s*$`,
);

/**
 * Reads a display number (`$25.00`, `1,200`, `7`, `3 items`) with its format; with `intl`, also
 * the amounts of {@linkcode INTL} (`12,50 €`, `1.234,56 €`, `₹1,200`, `CHF 20.00`), each only
 * when writing it back in its format gives the same text.
 *
 * @param s the text
 * @param options `intl`: read the other shapes too (the evaluator does; heuristics v1 and v2
 *   of the optimizer do not, so what they write never changes)
 * @returns the number and format, or undefined when the text is not a number
 */
export function parseDisplayNumber(
  s: string,
  options: { intl?: boolean } = {},
): { value: number; format: NumFormat } | undefined {
  const m = NUMERIC.exec(s);
  if (!m) return options.intl ? parseIntlNumber(s) : undefined;
  const [, sign1, cur, sign2, int, frac, suffix] = m;
  if (int === undefined && frac === undefined) return undefined;
  if (sign1 && sign2) return undefined;
  const digits = (int ?? "0").replaceAll(",", "") + (frac !== undefined ? "." + frac : "");
  const value = Number(digits) * (sign1 || sign2 ? -1 : 1);
  if (!Number.isFinite(value)) return undefined;
  return {
    value,
    format: {
      prefix: cur ?? "",
      suffix: suffix ?? "",
      decimals: frac?.length ?? 0,
      grouping: (int ?? "").includes(","),
    },
  };
}

function parseIntlNumber(s: string): { value: number; format: NumFormat } | undefined {
  const m = INTL.exec(s);
  if (!m) return undefined;
  const [, sign1, prefix, sign2, cInt, cMark, cFrac, sInt, sMark, uInt, uFrac, suffix] = m;
  if (sign1 && sign2) return undefined;
  const int = cInt ?? sInt ?? uInt!;
  const mark = cMark ?? sMark ?? (uInt?.includes(",") ? "," : undefined);
  const frac = cFrac ?? uFrac;
  const digits = int.replace(/\D/g, "") + (frac !== undefined ? "." + frac : "");
  const value = Number(digits) * (sign1 || sign2 ? -1 : 1);
  if (!Number.isFinite(value)) return undefined;
  const format: NumFormat = {
    prefix: prefix ?? "",
    suffix: suffix ?? "",
    decimals: frac?.length ?? 0,
    grouping: mark !== undefined,
    ...(mark !== undefined && mark !== "," ? { groupMark: mark } : {}),
    ...(cFrac !== undefined ? { decimalComma: true } : {}),
  };
  // only a text this format writes back as it is: `{{price}}` must show what was read
  return formatDisplayNumber(value, format) === s.trim() ? { value, format } : undefined;
}

function isRich(f: NumFormat | null): f is NumFormat {
  return f !== null && (f.prefix !== "" || f.suffix !== "" || f.decimals > 0 || f.grouping);
}

/**
 * Formats a number in a display format (the inverse of {@linkcode parseDisplayNumber}).
 *
 * @param value the number
 * @param format prefix, suffix, decimals and grouping
 * @returns the text
 */
export function formatDisplayNumber(value: number, format: NumFormat): string {
  const neg = value < 0;
  const fixed = Math.abs(value).toFixed(format.decimals);
  let [int, frac] = fixed.split(".") as [string, string | undefined];
  if (format.grouping) int = int.replace(/\B(?=(\d{3})+(?!\d))/g, format.groupMark ?? ",");
  const body = frac !== undefined ? `${int}${format.decimalComma ? "," : "."}${frac}` : int;
  return `${neg ? "-" : ""}${format.prefix}${body}${format.suffix}`;
}

function plainNumber(v: number): number {
  return Number(v.toPrecision(15));
}

function lex(src: string, offset: number): Tok[] {
  const toks: Tok[] = [];
  let i = 0;
  const col = (at: number) => offset + at + 1;
  while (i < src.length) {
    const c = src[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const start = i;
    const numMatch = /^[$€£¥]?(?:\d{1,3}(?:,\d{3})+(?!\d)|\d+)(?:\.\d+)?|^[$€£¥]?\.\d+/.exec(
      src.slice(i),
    );
    if (numMatch && (/[\d.]/.test(c) || /[$€£¥]/.test(c))) {
      const parsed = parseDisplayNumber(numMatch[0])!;
      toks.push({ k: "num", v: parsed.value, fmt: parsed.format, col: col(start) });
      i += numMatch[0].length;
      continue;
    }
    const idMatch = /^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*/.exec(src.slice(i));
    if (idMatch) {
      toks.push({ k: "id", v: idMatch[0], col: col(start) });
      i += idMatch[0].length;
      continue;
    }
    if (c === '"' || c === "'") {
      let out = "";
      i++;
      for (;;) {
        if (i >= src.length) throw new SyntaxError(`Unterminated string at column ${col(start)}`);
        const d = src[i]!;
        if (d === c) break;
        if (d === "\\" && i + 1 < src.length) {
          const e = src[i + 1]!;
          out += e === "n" ? "\n" : e === "t" ? "\t" : e;
          i += 2;
          continue;
        }
        out += d;
        i++;
      }
      i++;
      toks.push({ k: "str", v: out, col: col(start) });
      continue;
    }
    const op = /^(===|!==|==|!=|<=|>=|&&|\|\||[-+*/%()<>!])/.exec(src.slice(i));
    if (op) {
      const v = op[0] === "===" ? "==" : op[0] === "!==" ? "!=" : op[0];
      toks.push({ k: "op", v, col: col(start) });
      i += op[0].length;
      continue;
    }
    throw new SyntaxError(`Unexpected character ${JSON.stringify(c)} at column ${col(start)}`);
  }
  toks.push({ k: "end", col: col(src.length) });
  return toks;
}

class Parser {
  #toks: Tok[];
  #pos = 0;
  #memory: Memory;
  constructor(toks: Tok[], memory: Memory) {
    this.#toks = toks;
    this.#memory = memory;
  }
  parse(): Value {
    const v = this.#or();
    const t = this.#peek();
    if (t.k !== "end") throw this.#unexpected(t);
    return v;
  }
  #peek(): Tok {
    return this.#toks[this.#pos]!;
  }
  #eat(op: string): boolean {
    const t = this.#peek();
    if (t.k === "op" && t.v === op) {
      this.#pos++;
      return true;
    }
    return false;
  }
  #unexpected(t: Tok): SyntaxError {
    const what = t.k === "end" ? "end of expression" : JSON.stringify(String(t.v));
    return new SyntaxError(`Unexpected ${what} at column ${t.col}`);
  }
  #or(): Value {
    let l = this.#and();
    while (this.#eat("||")) {
      const r = this.#and();
      l = { t: "bool", v: truthy(l) || truthy(r) };
    }
    return l;
  }
  #and(): Value {
    let l = this.#cmp();
    while (this.#eat("&&")) {
      const r = this.#cmp();
      l = { t: "bool", v: truthy(l) && truthy(r) };
    }
    return l;
  }
  #cmp(): Value {
    let l = this.#add();
    for (;;) {
      const t = this.#peek();
      if (t.k !== "op" || !["==", "!=", "<", "<=", ">", ">="].includes(t.v)) return l;
      this.#pos++;
      const r = this.#add();
      l = { t: "bool", v: compare(t.v, l, r) };
    }
  }
  #add(): Value {
    let l = this.#mul();
    for (;;) {
      const t = this.#peek();
      if (t.k !== "op" || (t.v !== "+" && t.v !== "-")) return l;
      this.#pos++;
      const r = this.#mul();
      const a = asNum(l);
      const b = asNum(r);
      if (a && b) l = arith(t.v, a, b, t.col);
      else if (t.v === "+") l = { t: "str", v: show(l) + show(r) };
      else throw new TypeError(`Cannot subtract non-numbers at column ${t.col}`);
    }
  }
  #mul(): Value {
    let l = this.#unary();
    for (;;) {
      const t = this.#peek();
      if (t.k !== "op" || !["*", "/", "%"].includes(t.v)) return l;
      this.#pos++;
      const r = this.#unary();
      const a = asNum(l);
      const b = asNum(r);
      if (!a || !b) {
        throw new TypeError(`Operator ${t.v} needs numbers at column ${t.col}`);
      }
      l = arith(t.v, a, b, t.col);
    }
  }
  #unary(): Value {
    const t = this.#peek();
    if (t.k === "op" && (t.v === "-" || t.v === "+")) {
      this.#pos++;
      const v = asNum(this.#unary());
      if (!v) throw new TypeError(`Unary ${t.v} needs a number at column ${t.col}`);
      return t.v === "-" ? { t: "num", v: -v.v, fmt: v.fmt } : v;
    }
    if (t.k === "op" && t.v === "!") {
      this.#pos++;
      return { t: "bool", v: !truthy(this.#unary()) };
    }
    return this.#primary();
  }
  #primary(): Value {
    const t = this.#peek();
    this.#pos++;
    switch (t.k) {
      case "num":
        return { t: "num", v: t.v, fmt: t.fmt };
      case "str":
        return { t: "str", v: t.v };
      case "id": {
        if (t.v === "true" || t.v === "false") return { t: "bool", v: t.v === "true" };
        if (!Object.hasOwn(this.#memory, t.v)) {
          throw new ReferenceError(`Unknown variable ${JSON.stringify(t.v)} at column ${t.col}`);
        }
        const raw = this.#memory[t.v];
        if (raw === null || raw === undefined) {
          throw new ReferenceError(
            `Variable ${JSON.stringify(t.v)} has no value at column ${t.col}`,
          );
        }
        const n = parseDisplayNumber(raw, { intl: true });
        return n ? { t: "num", v: n.value, fmt: n.format } : { t: "str", v: raw };
      }
      case "op":
        if (t.v === "(") {
          const v = this.#or();
          if (!this.#eat(")")) throw this.#unexpected(this.#peek());
          return v;
        }
        throw this.#unexpected(t);
      case "end":
        throw this.#unexpected(t);
    }
  }
}

function asNum(v: Value): { t: "num"; v: number; fmt: NumFormat | null } | undefined {
  if (v.t === "num") return v;
  if (v.t === "str") {
    const n = parseDisplayNumber(v.v, { intl: true });
    if (n) return { t: "num", v: n.value, fmt: n.format };
  }
  return undefined;
}

function arith(
  op: string,
  a: { v: number; fmt: NumFormat | null },
  b: { v: number; fmt: NumFormat | null },
  col: number,
): Value {
  if ((op === "/" || op === "%") && b.v === 0) {
    throw new RangeError(`Division by zero at column ${col}`);
  }
  const v = op === "+"
    ? a.v + b.v
    : op === "-"
    ? a.v - b.v
    : op === "*"
    ? a.v * b.v
    : op === "/"
    ? a.v / b.v
    : a.v % b.v;
  const base = isRich(a.fmt) ? a.fmt : isRich(b.fmt) ? b.fmt : null;
  if (!base) return { t: "num", v: plainNumber(v), fmt: null };
  const decimals = Math.max(a.fmt?.decimals ?? 0, b.fmt?.decimals ?? 0);
  return { t: "num", v, fmt: { ...base, decimals } };
}

function compare(op: string, l: Value, r: Value): boolean {
  const a = asNum(l);
  const b = asNum(r);
  let c: number;
  if (a && b) c = a.v === b.v ? 0 : a.v < b.v ? -1 : 1;
  else {
    const x = show(l);
    const y = show(r);
    c = x === y ? 0 : x < y ? -1 : 1;
  }
  switch (op) {
    case "==":
      return c === 0;
    case "!=":
      return c !== 0;
    case "<":
      return c < 0;
    case "<=":
      return c <= 0;
    case ">":
      return c > 0;
    default:
      return c >= 0;
  }
}

function truthy(v: Value): boolean {
  if (v.t === "bool") return v.v;
  if (v.t === "num") return v.v !== 0;
  return v.v !== "";
}

function show(v: Value): string {
  if (v.t === "num") return isRich(v.fmt) ? formatDisplayNumber(v.v, v.fmt) : String(v.v);
  return String(v.v);
}

function evaluate(expr: string, memory: Memory, offset: number): Value {
  return new Parser(lex(expr, offset), memory).parse();
}

/**
 * Evaluates one expression against memory.
 *
 * @param expr the expression, e.g. `inventoryCount + 2`
 * @param memory the memory map (values are strings; numeric ones are read with their format)
 * @returns a boolean, a string, a plain number, or the formatted text of a formatted number
 * @throws {SyntaxError} on a parse error, naming the column (1-based)
 * @throws {ReferenceError} when a variable is unknown or has no value
 * @throws {TypeError} on arithmetic over non-numbers; {RangeError} on division by zero
 * @example
 * ```ts
 * if (evaluateExpression("price * 2", { price: "$25.00" }) !== "$50.00") throw new Error();
 * if (evaluateExpression("n + 2", { n: "5" }) !== 7) throw new Error();
 * ```
 */
export function evaluateExpression(expr: string, memory: Memory): TemplateValue {
  const v = evaluate(expr, memory, 0);
  if (v.t === "num") return isRich(v.fmt) ? formatDisplayNumber(v.v, v.fmt) : v.v;
  return v.v;
}

const PLACEHOLDER = /\{\{([\s\S]*?)\}\}|\$\{\s*([A-Za-z_][A-Za-z0-9_.]*)\s*\}/g;

/**
 * Evaluates a template: every `{{expression}}` (and `${name}`) is replaced by its value.
 *
 * @param template text with placeholders, e.g. `"Hello {{firstName}}"`
 * @param memory the memory map
 * @returns the text
 * @throws {SyntaxError} on a parse error, naming the column within the template
 * @throws {ReferenceError} when a variable is unknown or has no value
 * @example
 * ```ts
 * if (evaluateTemplate("Total: {{1,200 + 5}}", {}) !== "Total: 1,205") throw new Error();
 * ```
 */
export function evaluateTemplate(template: string, memory: Memory): string {
  const open = template.indexOf("{{");
  if (open >= 0 && template.indexOf("}}", open) < 0) {
    throw new SyntaxError(`Unclosed "{{" at column ${open + 1}`);
  }
  return template.replace(PLACEHOLDER, (_m, expr: string | undefined, name, at: number) => {
    if (expr !== undefined) return show(evaluate(expr, memory, at + 2));
    return show(evaluate(name as string, memory, at + 2));
  });
}

/**
 * Lists the variables a template reads, in order of first use.
 *
 * @param template text with placeholders
 * @returns memory keys
 * @throws {SyntaxError} on a parse error
 */
export function templateVariables(template: string): string[] {
  const out: string[] = [];
  for (const m of template.matchAll(PLACEHOLDER)) {
    const src = m[1] ?? m[2] ?? "";
    for (const t of lex(src, (m.index ?? 0) + 2)) {
      if (t.k === "id" && t.v !== "true" && t.v !== "false" && !out.includes(t.v)) out.push(t.v);
    }
  }
  return out;
}

/** Every variable reads as `1`: a template is parsed in full without memory. */
const ANY_MEMORY: Memory = new Proxy({}, {
  has: () => true,
  get: () => "1",
  getOwnPropertyDescriptor: () => ({ value: "1", enumerable: true, configurable: true }),
});

/**
 * The syntax error a template would throw whatever the memory holds, or undefined: an
 * unclosed `{{`, `{{1 +}}`, an unterminated string. A literal `{{` is written as an expression
 * giving it: `{{'{{'}}`.
 *
 * @param template text with placeholders
 * @returns the message (naming the column), or undefined when it parses
 * @example
 * ```ts
 * if (templateSyntaxError("{{1 +}}") !== "Unexpected end of expression at column 6") throw new Error();
 * if (templateSyntaxError("a {{'{{'}} b {{x * 2}}") !== undefined) throw new Error();
 * ```
 */
export function templateSyntaxError(template: string): string | undefined {
  if (!template.includes("{{") && !template.includes("${")) return undefined;
  try {
    evaluateTemplate(template, ANY_MEMORY);
    return undefined;
  } catch (err) {
    // a ReferenceError, TypeError or RangeError depends on the values memory holds at run time
    return err instanceof SyntaxError ? err.message : undefined;
  }
}
