// The layers of DESIGN.md §1, checked on every import of src/: a folder imports only the layers
// below it (commands → cli → daemon → maint → storage → common), storage knows nothing of HTTP
// or the CLI, and route files never touch files.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';

const source = fileURLToPath(new URL('../src', import.meta.url));
const ORDER = ['commands', 'cli', 'daemon', 'maint', 'storage', 'common'] as const;
type Layer = (typeof ORDER)[number];

function filesUnder(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    return entry.isDirectory() ? filesUnder(path) : entry.name.endsWith('.ts') ? [path] : [];
  });
}

function layerOf(path: string): Layer {
  return relative(source, path).split('/')[0] as Layer;
}

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/^\s*(?:import|export)\s[^'"]*?from\s+'([^']+)'/gm)].map((match) => match[1]);
}

const files = filesUnder(source);

t.test('every file of src/ imports only its own layer and the layers below it', async (t) => {
  t.ok(files.length > 50, `${files.length} source files`);
  const breaches: string[] = [];
  for (const file of files) {
    const from = layerOf(file);
    for (const specifier of importsOf(file)) {
      if (!specifier.startsWith('.')) continue;
      const to = layerOf(resolve(dirname(file), specifier));
      if (ORDER.indexOf(to) < ORDER.indexOf(from)) breaches.push(`${relative(source, file)} imports ${specifier} (${from} → ${to})`);
    }
  }
  t.same(breaches, [], 'no import reaches up a layer');
});

t.test('the engine and the common leaves never import the HTTP server or the CLI framework', async (t) => {
  const outside = /^(fastify|@fastify\/|@oclif\/|ora|chalk)/;
  const breaches = files
    .filter((file) => ['storage', 'common'].includes(layerOf(file)))
    .flatMap((file) => importsOf(file).filter((specifier) => outside.test(specifier)).map((specifier) => `${relative(source, file)} imports ${specifier}`));
  t.same(breaches, []);
});

t.test('HTTP route files never open files themselves', async (t) => {
  const breaches = files
    .filter((file) => relative(source, file).startsWith('daemon/http/'))
    .flatMap((file) => importsOf(file).filter((specifier) => /^node:fs/.test(specifier)).map((specifier) => `${relative(source, file)} imports ${specifier}`));
  t.same(breaches, []);
});
