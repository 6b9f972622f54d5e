// The layers of DESIGN.md §1, checked on every import of src/: a folder imports only its own layer
// and the floors below it (commands → {cli, daemon, maint} → storage → common), cli/, daemon/ and
// maint/ share a floor and never import one another, nothing below commands/ reads process.env,
// storage knows nothing of HTTP or the CLI, and route files never touch files.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';

const source = fileURLToPath(new URL('../src', import.meta.url));
/** The floor of each layer: a file imports its own layer and lower floors, never a sibling on its floor. */
const FLOOR = { commands: 3, cli: 2, daemon: 2, maint: 2, storage: 1, common: 0 } as const;
type Layer = keyof typeof FLOOR;

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
  const statics = [...text.matchAll(/^\s*(?:import|export)\s[^'"]*?from\s+'([^']+)'/gm)].map((match) => match[1]);
  const dynamics = [...text.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g)].map((match) => match[1]);
  return [...statics, ...dynamics];
}

/** Every relative import of src/ as `from → to` layers, with a line that names it. */
function layerImports(): Array<{ from: Layer; to: Layer; line: string }> {
  return files.flatMap((file) => importsOf(file).filter((specifier) => specifier.startsWith('.')).map((specifier) => {
    const from = layerOf(file);
    const to = layerOf(resolve(dirname(file), specifier));
    return { from, to, line: `${relative(source, file)} imports ${specifier} (${from} → ${to})` };
  }));
}

const files = filesUnder(source);

t.test('every file of src/ imports only its own layer and the floors below it', async (t) => {
  t.ok(files.length > 50, `${files.length} source files`);
  t.same(Object.keys(FLOOR).sort(), readdirSync(source).sort(), 'every folder of src/ is a layer with a floor');
  const breaches = layerImports().filter(({ from, to }) => FLOOR[to] > FLOOR[from]).map(({ line }) => line);
  t.same(breaches, [], 'no import reaches up a floor');
});

t.test('cli/, daemon/ and maint/ never import one another: what two of them share lives in storage/ or common/', async (t) => {
  const breaches = layerImports().filter(({ from, to }) => from !== to && FLOOR[to] === FLOOR[from]).map(({ line }) => line);
  t.same(breaches, [], 'no import crosses to a sibling');
});

t.test('nothing below commands/ reads process.env: options come in from the command that parsed them', async (t) => {
  const reads = /\bprocess\s*(?:\.\s*env\b|\[\s*['"]env['"]\s*\])/;
  const breaches = files
    .filter((file) => layerOf(file) !== 'commands')
    .flatMap((file) => readFileSync(file, 'utf8').split('\n').map((text, index) => ({ text, line: `${relative(source, file)}:${index + 1}` })))
    .filter(({ text }) => reads.test(text) && !/^\s*(?:\/\/|\*)/.test(text))
    .map(({ line, text }) => `${line}: ${text.trim()}`);
  t.same(breaches, [], 'no file outside commands/ reads the environment');
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
