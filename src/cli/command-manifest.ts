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

/** The manifest of the compiled commands under `root`, as the file's content. */
export async function renderManifest(root: string): Promise<string> {
  const plugin = await loadCompiledCommands(root);
  return `${JSON.stringify(plugin.manifest, null, 2)}\n`;
}

/** An oclif Config of the compiled commands under `root` that ignores any manifest on disk. */
export async function configFromCompiledCommands(root: string): Promise<Config> {
  const plugin = await loadCompiledCommands(root);
  return Config.load({ root, plugins: new Map([[plugin.name, plugin]]) });
}
