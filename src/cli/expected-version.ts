/**
 * `--expected-version`: a word for the special values, or the number of the stream's last event.
 * The words are the ones a person reads in the help; the numbers are what the node takes.
 */
import { Errors } from '../common/errors.js';

export const EXPECTED_VERSION_WORDS: Readonly<Record<string, number>> = { any: -2, 'no-stream': -1, exists: -4 };

export const EXPECTED_VERSION_HELP = 'any, no-stream, exists or N';

/** The number the node takes, from a word, a special number or an event number. */
export function expectedVersionOf(text: string): number {
  const word = EXPECTED_VERSION_WORDS[text];
  if (word !== undefined) return word;
  if (/^(0|[1-9]\d*|-[124])$/.test(text) && Number.isSafeInteger(Number(text))) return Number(text);
  throw Errors.optionInvalid.create('--expected-version', `must be ${EXPECTED_VERSION_HELP} (the number of the stream's last event), got ${JSON.stringify(text)}`);
}
