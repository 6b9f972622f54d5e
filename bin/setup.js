// What bin/run.js and bin/dev.js both do before oclif runs a command.
import { join } from 'node:path';
import { Plugin } from '@oclif/core';

/**
 * NO_COLOR (no-color.org) and --no-color turn colours off, whatever FORCE_COLOR says: chalk reads
 * only FORCE_COLOR when it is set, and never NO_COLOR. Call it before any command module loads.
 */
export function honourNoColor() {
  const words = process.argv.slice(2);
  const flagsEnd = words.indexOf('--');
  if (process.env.NO_COLOR || (flagsEnd === -1 ? words : words.slice(0, flagsEnd)).includes('--no-color')) process.env.FORCE_COLOR = '0';
}

/**
 * oclif's load options for the package's commands read from their modules (no manifest). Plugins
 * given to oclif replace the ones package.json lists (help, autocomplete): those are loaded too.
 */
export async function loadWithoutManifest(root) {
  const plugin = new Plugin({ root, type: 'core', isRoot: true, ignoreManifest: true });
  await plugin.load();
  const plugins = new Map([[plugin.name, plugin]]);
  for (const name of plugin.pjson.oclif.plugins ?? []) {
    const dependency = new Plugin({ root: join(root, 'node_modules', name), type: 'core' });
    await dependency.load();
    plugins.set(dependency.name, dependency);
  }
  return { root, plugins };
}
