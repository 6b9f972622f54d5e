/**
 * The oclif command manifest (`oclif.manifest.json` in the package root). With it, `svcdb --help`
 * and the dispatch of a command read one JSON file instead of importing every command module
 * (and through them the daemon, fastify and the storage engine). It is a build product: `npm run
 * build` writes it from the compiled commands in dist/, and a test fails when it differs from
 * what they declare now. Man pages are rendered from the commands themselves, never from it.
 */
import { Config, Plugin, settings } from '@oclif/core';

export const MANIFEST_FILE = 'oclif.manifest.json';

/**
 * The package's commands loaded from their compiled modules in dist/, whatever NODE_ENV says and
 * whether or not a manifest exists: the code bin/run.js runs.
 */
async function loadCompiledCommands(root: string): Promise<Plugin> {
  const autoTranspile = settings.enableAutoTranspile;
  settings.enableAutoTranspile = false;
  try {
    const plugin = new Plugin({ root, type: 'core', isRoot: true, ignoreManifest: true, errorOnManifestCreate: true });
    await plugin.load();
    return plugin;
  } finally {
    settings.enableAutoTranspile = autoTranspile;
  }
}

/**
 * The manifest of the compiled commands under `root`, as the file's content. oclif lists the
 * commands in the order their modules finished loading, which varies from run to run on a busy
 * machine; they are sorted by id, so the same commands always give the same file.
 */
export async function renderManifest(root: string): Promise<string> {
  const plugin = await loadCompiledCommands(root);
  const { commands, ...rest } = plugin.manifest;
  const sorted = Object.fromEntries(Object.entries(commands).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return `${JSON.stringify({ ...rest, commands: sorted }, null, 2)}\n`;
}

/** An oclif Config of the compiled commands under `root` that ignores any manifest on disk. */
export async function configFromCompiledCommands(root: string): Promise<Config> {
  const plugin = await loadCompiledCommands(root);
  return Config.load({ root, plugins: new Map([[plugin.name, plugin]]) });
}
