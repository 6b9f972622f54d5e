/**
 * Did-you-mean for command names: the words that may follow a command or topic (`svcdb backup`
 * → `verify`), and the nearest of them to a mistyped word, by edit distance.
 */
import type { Interfaces } from '@oclif/core';
import { closest } from '../common/nearest-name.js';

/** The names that may follow `parent` (a command or topic id, '' for the top level). */
export function childNames(config: Interfaces.Config, parent: string): string[] {
  const prefix = parent === '' ? '' : `${parent}:`;
  const visible = config.commandIDs.filter((id) => !config.findCommand(id)?.hidden);
  const names = visible.filter((id) => id.startsWith(prefix) && id.length > prefix.length).map((id) => id.slice(prefix.length).split(':')[0]);
  return [...new Set(names)].sort();
}

/** `svcdb backup verify`, from a command id. */
export function spaced(config: Interfaces.Config, id: string): string {
  return `${config.bin} ${id.replace(/:/g, ' ')}`.trim();
}

/** The child of `parent` nearest to `word`, as the id it would make; undefined when none is near. */
export function nearestChild(config: Interfaces.Config, parent: string, word: string): string | undefined {
  const near = closest(word, childNames(config, parent));
  return near === undefined ? undefined : parent === '' ? near : `${parent}:${near}`;
}
