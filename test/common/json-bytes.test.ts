// The byte scanner accepts exactly what JSON.parse accepts, and ends each value where it ends:
// written-out edge cases, then random JSON laid out with random whitespace, then random
// near-JSON text, each checked against JSON.parse.
import fc from 'fast-check';
import t from 'tap';
import { JsonBytes } from '../../src/common/json-bytes.js';
import { isJsonText } from '../../src/common/json-scan.js';
import { laidOut } from '../helpers/json-layout.js';
import { testSeed } from '../helpers/random.js';

/** Whether the scanner reads `text` as one JSON value with only whitespace around it. */
function scannerAccepts(text: string): boolean {
  const scanner = new JsonBytes(Buffer.from(text));
  const start = scanner.skipWhitespace(0);
  const end = scanner.skipValue(start);
  return end >= 0 && scanner.skipWhitespace(end) === scanner.bytes.length;
}

const CASES = [
  '0', '-0', '1', '-12', '1.5', '1e5', '1E+5', '1e-5', '-0.0e0', '123123123123123123', '1.0',
  '01', '-', '+1', '1.', '.5', '1e', '1e+', '1.e5', '0x10', 'NaN', 'Infinity', '- 1', '1 2',
  'true', 'false', 'null', 'tru', 'nul', 'nulls', 'True', 'undefined',
  '""', '"a"', '"\\"\\\\\\/\\b\\f\\n\\r\\t"', '"\\u00e9"', '"\\uD800"', '"\\x41"', '"\\u12G4"', '"\\u12"', '"\\', '"abc', '"a\tb"', '"a\u0001"', '"é☃😀"', '"\u2028"',
  '[]', '{}', '[ ]', '{ }', '[1,]', '[,1]', '[1 2]', '{"a":1,}', '{"a" 1}', '{"a":}', '{a:1}', "{'a':1}", '{"a":1 "b":2}', '[}', '{]', '[[[]]]', '[[[]]', '{"a":{"b":[1,{"c":null}]}}',
  ' \t\n\r[ 1 , { "a" : [ ] } ] \r\n', '\u00a01', '\ufeff[]', '[1]//', '[1]/**/', '', ' ', '[1]]', '{"a":1}}',
];

t.test('written-out cases: accepted exactly when JSON.parse accepts them', async (t) => {
  // Named in ASCII: a line separator in a test's name would split its TAP line.
  const named = (text: string) => JSON.stringify(text).replace(/[^\x20-\x7e]/gu, (char) => `\\u{${char.codePointAt(0)!.toString(16)}}`);
  for (const text of CASES) t.equal(scannerAccepts(text), isJsonText(text), named(text));
});

t.test('nesting a hundred thousand deep costs no stack', async (t) => {
  const depth = 100_000;
  t.equal(scannerAccepts(`${'['.repeat(depth)}${']'.repeat(depth)}`), true, 'balanced');
  t.equal(scannerAccepts(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`), true, 'objects');
  t.equal(scannerAccepts(`${'['.repeat(depth)}${']'.repeat(depth - 1)}`), false, 'one bracket short');
});

t.test('a value ends where it ends: the span of each member value is its text', async (t) => {
  const text = '{"a" : [1, {"b": "}]\\""}] , "c":-1.5e3,"d":"x"}';
  const scanner = new JsonBytes(Buffer.from(text));
  const start = text.indexOf('[');
  t.equal(text.slice(start, scanner.skipValue(start)), '[1, {"b": "}]\\""}]');
  t.equal(text.slice(text.indexOf('-'), scanner.skipValue(text.indexOf('-'))), '-1.5e3');
  t.equal(scanner.skipValue(text.lastIndexOf('"x"')), text.length - 1);
  t.equal(scanner.escaped, false, 'no escape in "x"');
  scanner.skipValue(text.indexOf('"}]'));
  t.equal(scanner.escaped, true, 'the escaped quote is seen');
});

t.test('random JSON with random whitespace between its tokens is accepted', async (t) => {
  const whitespace = fc.array(fc.stringMatching(/^[ \t\r\n]{0,3}$/), { minLength: 1, maxLength: 8 });
  fc.assert(fc.property(fc.jsonValue(), whitespace, (value, spaces) => scannerAccepts(`${spaces[0]}${laidOut(value, spaces)}${spaces[0]}`)), { numRuns: 2000, seed: testSeed(t) });
  t.pass('2000 values');
});

t.test('random near-JSON text: accepted exactly when JSON.parse accepts it', async (t) => {
  const token = fc.constantFrom('{', '}', '[', ']', ',', ':', '"', '"a"', '\\', '\\u00e9', '\\n', '1', '-', '0', '.', 'e', '+', 'true', 'null', 'fals', ' ', '\n', '\t', 'é', '\u0001', 'x');
  const nearJson = fc.array(token, { maxLength: 20 }).map((tokens) => tokens.join(''));
  // Also valid JSON cut short or with one character changed, which sits nearer the boundary.
  const damaged = fc.tuple(fc.jsonValue(), fc.nat(), fc.constantFrom('', ',', '"', '}', ']', ' ', '\\', 'x')).map(([value, at, inserted]) => {
    const text = JSON.stringify(value);
    const cut = at % (text.length + 1);
    return `${text.slice(0, cut)}${inserted}${text.slice(cut + 1)}`;
  });
  fc.assert(fc.property(fc.oneof(nearJson, damaged), (text) => scannerAccepts(text) === isJsonText(text)), { numRuns: 20000, seed: testSeed(t) });
  t.pass('20000 texts');
});
