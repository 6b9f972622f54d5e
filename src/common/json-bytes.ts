/**
 * A validating scanner of strict JSON in bytes: where each value of a UTF-8 body starts and ends,
 * so a value can be kept as the bytes the client sent without decoding the body to a string,
 * parsing it to JavaScript values and encoding the values again. It accepts exactly what
 * `JSON.parse(bytes.toString('utf8'))` accepts, given bytes that are valid UTF-8 (the caller
 * checks that with `isUtf8` first: a decoded string would have U+FFFD where bytes are not, and the
 * stored bytes would then differ). It is iterative, so nesting depth costs no stack; -1 is every
 * refusal, and a caller that needs the reason asks JSON.parse.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const MINUS = 0x2d;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

/** What follows a backslash in a string (`u` then takes four hex digits). */
const ESCAPED = new Set([0x22, 0x5c, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74]);
/** The bytes a string holds as they are: not a quote, a backslash or a control character. */
const PLAIN = new Uint8Array(256).fill(1, 0x20);
PLAIN[QUOTE] = 0;
PLAIN[BACKSLASH] = 0;
const LITERALS = new Map([[0x74, Buffer.from('true')], [0x66, Buffer.from('false')], [0x6e, Buffer.from('null')]]);

function isWhitespace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

function isDigit(byte: number): boolean {
  return byte >= ZERO && byte <= NINE;
}

function isHexDigit(byte: number): boolean {
  return isDigit(byte) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66);
}

export class JsonBytes {
  /** Whether the last string skipped held an escape (its value is then not its bytes). */
  escaped = false;
  /** Whether each open container of skipValue is an object (else an array). */
  private readonly objects: boolean[] = [];

  constructor(readonly bytes: Uint8Array) {}

  skipWhitespace(at: number): number {
    const { bytes } = this;
    while (at < bytes.length && isWhitespace(bytes[at])) at++;
    return at;
  }

  /** The index after the string literal that starts at `at`, or -1. */
  skipString(at: number): number {
    const { bytes } = this;
    if (bytes[at] !== QUOTE) return -1;
    let escaped = false;
    for (let index = at + 1; index < bytes.length; index++) {
      // Most of a body is the inside of strings: one look-up per byte there.
      if (PLAIN[bytes[index]] === 1) continue;
      if (bytes[index] === QUOTE) {
        this.escaped = escaped;
        return index + 1;
      }
      if (bytes[index] !== BACKSLASH) return -1; // A control character.
      escaped = true;
      index = this.skipEscape(index + 1);
      if (index < 0) return -1;
    }
    return -1;
  }

  /** The index of the escape's last byte, the escape being the one after the backslash at `at` - 1. */
  private skipEscape(at: number): number {
    const { bytes } = this;
    if (ESCAPED.has(bytes[at])) return at;
    if (bytes[at] !== 0x75) return -1;
    for (let digit = 1; digit <= 4; digit++) if (!isHexDigit(bytes[at + digit])) return -1;
    return at + 4;
  }

  /** The index after the number that starts at `at`, or -1: -?(0|[1-9]d*)(.d+)?([eE][+-]?d+)?. */
  private skipNumber(at: number): number {
    const { bytes } = this;
    let index = bytes[at] === MINUS ? at + 1 : at;
    if (bytes[index] === ZERO) index++;
    else if (isDigit(bytes[index])) while (isDigit(bytes[index])) index++;
    else return -1;
    if (bytes[index] === DOT) {
      index++;
      if (!isDigit(bytes[index])) return -1;
      while (isDigit(bytes[index])) index++;
    }
    if (bytes[index] === 0x65 || bytes[index] === 0x45) {
      index++;
      if (bytes[index] === 0x2b || bytes[index] === MINUS) index++;
      if (!isDigit(bytes[index])) return -1;
      while (isDigit(bytes[index])) index++;
    }
    return index;
  }

  /** The index after the string, number or literal that starts at `at`, or -1. */
  private skipScalar(at: number): number {
    const byte = this.bytes[at];
    if (byte === QUOTE) return this.skipString(at);
    if (byte === MINUS || isDigit(byte)) return this.skipNumber(at);
    const literal = LITERALS.get(byte);
    if (literal === undefined) return -1;
    for (let index = 1; index < literal.length; index++) if (this.bytes[at + index] !== literal[index]) return -1;
    return at + literal.length;
  }

  /** The index after a member's key and its colon, the key starting at `at`, or -1. */
  private skipKey(at: number): number {
    const end = this.skipString(at);
    if (end < 0) return -1;
    const colon = this.skipWhitespace(end);
    return this.bytes[colon] === COLON ? colon + 1 : -1;
  }

  /**
   * The index after the value that starts at `at` (no leading whitespace), or -1 when it is not
   * a JSON value. After a string value, `escaped` describes it.
   */
  skipValue(at: number): number {
    const { bytes, objects } = this;
    // Left open by a value that was not JSON.
    if (objects.length > 0) objects.length = 0;
    let index = at;
    for (;;) {
      // A value is expected at `index`, after whitespace.
      index = this.skipWhitespace(index);
      const byte = bytes[index];
      if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
        const close = byte === OPEN_OBJECT ? CLOSE_OBJECT : CLOSE_ARRAY;
        const inside = this.skipWhitespace(index + 1);
        if (bytes[inside] === close) {
          index = inside + 1;
        } else {
          objects.push(byte === OPEN_OBJECT);
          index = byte === OPEN_OBJECT ? this.skipKey(inside) : inside;
          if (index < 0) return -1;
          continue;
        }
      } else {
        index = this.skipScalar(index);
        if (index < 0) return -1;
      }
      // A value ended: a comma leads to the next one, a bracket closes its container.
      index = this.afterValue(index);
      if (index < 0 || objects.length === 0) return index;
    }
  }

  /**
   * After a value ends at `index`: the index of the next value of the open container, or the
   * index after the outermost value once every container is closed, or -1.
   */
  private afterValue(index: number): number {
    const { bytes, objects } = this;
    while (objects.length > 0) {
      index = this.skipWhitespace(index);
      const isObject = objects[objects.length - 1];
      const byte = bytes[index];
      if (byte === COMMA) {
        return isObject ? this.skipKey(this.skipWhitespace(index + 1)) : index + 1;
      }
      if (byte !== (isObject ? CLOSE_OBJECT : CLOSE_ARRAY)) return -1;
      objects.pop();
      index++;
    }
    return index;
  }
}
