/**
 * The text of an imported file: strict UTF-8. A UTF-8 byte order mark is skipped (editors on
 * Windows write one); a UTF-16 file and bytes that are not UTF-8 (a Latin-1 "café") are refused
 * with where they are, never read with U+FFFD in their place.
 *
 * @module
 */
import { FormatError } from "./format_error.ts";

const strict = new TextDecoder("utf-8", { fatal: true }); // skips a UTF-8 BOM (ignoreBOM: false)

/**
 * Decodes a file's bytes as UTF-8.
 *
 * @param bytes the file's bytes
 * @returns the text, without a leading UTF-8 byte order mark
 * @throws {FormatError} `byte offset N (line L): …` at the first byte that is not UTF-8, or
 *   for a UTF-16 file (a byte order mark FF FE or FE FF, or a NUL byte in the first two)
 * @example
 * ```ts
 * if (decodeUtf8(new Uint8Array([0xef, 0xbb, 0xbf, 0x7b, 0x7d])) !== "{}") throw new Error();
 * ```
 */
export function decodeUtf8(bytes: Uint8Array): string {
  const bom = bytes[0] === 0xff && bytes[1] === 0xfe
    ? "FF FE"
    : bytes[0] === 0xfe && bytes[1] === 0xff
    ? "FE FF"
    : undefined;
  // without a byte order mark, UTF-16 shows as a NUL byte in the first two (JSON never has one)
  if (bom !== undefined || (bytes.length >= 2 && (bytes[0] === 0 || bytes[1] === 0))) {
    throw new FormatError(
      `UTF-16 is not supported (${
        bom ? `byte order mark ${bom}` : "a NUL byte at the start"
      }); save the file as UTF-8`,
    );
  }
  try {
    return strict.decode(bytes);
  } catch (err) {
    if (!(err instanceof TypeError)) throw err;
    const at = firstInvalidByte(bytes);
    let line = 1;
    for (let i = 0; i < at; i++) if (bytes[i] === 10) line++;
    const hex = bytes[at]!.toString(16).padStart(2, "0");
    throw new FormatError(
      `byte offset ${at} (line ${line}): not UTF-8 (byte 0x${hex}); save the file as UTF-8`,
      `byte ${at}`,
    );
  }
}

/** The offset of the first byte that does not start a well-formed UTF-8 sequence. */
function firstInvalidByte(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    // the sequence length and the range of its second byte (Unicode 15, table 3-7)
    let n: number, lo = 0x80, hi = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) n = 2;
    else if (b >= 0xe0 && b <= 0xef) {
      n = 3;
      if (b === 0xe0) lo = 0xa0;
      if (b === 0xed) hi = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      n = 4;
      if (b === 0xf0) lo = 0x90;
      if (b === 0xf4) hi = 0x8f;
    } else return i;
    for (let k = 1; k < n; k++) {
      const c = bytes[i + k];
      if (c === undefined || c < (k === 1 ? lo : 0x80) || c > (k === 1 ? hi : 0xbf)) return i;
    }
    i += n;
  }
  return bytes.length; // unreachable after a failed strict decode
}
