/**
 * JSON text laid out as a client might write it: whitespace of the given kinds between tokens,
 * so a test can check that the bytes a client sent, spaces and all, are what is stored.
 */

/** JSON text of `value` with whitespace from `spaces` (taken in turn) between its tokens. */
export function laidOut(value: unknown, spaces: readonly string[]): string {
  let next = 0;
  const space = () => spaces[next++ % spaces.length];
  const write = (each: unknown): string => {
    if (Array.isArray(each)) return `[${space()}${each.map((item) => `${write(item)}${space()}`).join(`,${space()}`)}]`;
    if (each !== null && typeof each === 'object') {
      return `{${space()}${Object.entries(each).map(([key, item]) => `${JSON.stringify(key)}${space()}:${space()}${write(item)}`).join(`${space()},${space()}`)}${space()}}`;
    }
    return JSON.stringify(each);
  };
  return write(value);
}
