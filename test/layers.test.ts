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

/** Each file of src/ with the files it imports (`import type` and `export … from` count alike). */
function importGraph(): Map<string, string[]> {
  const known = new Set(files);
  return new Map(files.map((file) => [file, importsOf(file)
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) => resolve(dirname(file), specifier).replace(/\.js$/, '.ts'))
    .filter((target) => known.has(target))]));
}

/** The groups of files that reach one another through imports, each of more than one file or importing itself (Tarjan). */
function circularGroups(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (file: string): void => {
    order.set(file, counter);
    low.set(file, counter++);
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file)!) {
      if (!order.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(file, Math.min(low.get(file)!, order.get(next)!));
      }
    }
    if (low.get(file) !== order.get(file)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      group.push(member);
    } while (member !== file);
    if (group.length > 1 || graph.get(file)!.includes(file)) groups.push(group);
  };
  for (const file of graph.keys()) if (!order.has(file)) visit(file);
  return groups;
}

/** A shortest way from `start` through imports inside `group` back to `start`, as the files on it. */
function shortestCircle(graph: Map<string, string[]>, group: ReadonlySet<string>, start: string): string[] {
  const cameFrom = new Map<string, string>();
  const queue = [start];
  for (let at = 0; at < queue.length; at++) {
    const file = queue[at];
    for (const next of graph.get(file)!) {
      if (next === start) {
        const path = [file];
        while (path[0] !== start) path.unshift(cameFrom.get(path[0])!);
        return path;
      }
      if (group.has(next) && !cameFrom.has(next)) {
        cameFrom.set(next, file);
        queue.push(next);
      }
    }
  }
  throw new Error(`${start} is in a circular group but no circle leads back to it`);
}

/** Every import circle of src/ as a path `a.ts → b.ts → a.ts`: through each file of a circular group, its shortest one. */
function importCircles(): string[] {
  const graph = importGraph();
  const circles = new Set<string>();
  for (const group of circularGroups(graph)) {
    const members = new Set(group);
    for (const start of group) {
      const circle = shortestCircle(graph, members, start);
      // Written from its first file in sorted order, so one circle reads the same from any start.
      const first = circle.indexOf([...circle].sort()[0]);
      const path = [...circle.slice(first), ...circle.slice(0, first), circle[first]];
      circles.add(path.map((file) => relative(source, file)).join(' → '));
    }
  }
  return [...circles].sort();
}

t.test('no import circles anywhere in src/, types included: a type lives with its owner, shared types in a leaf', async (t) => {
  const circles = importCircles();
  t.same(circles, [], circles.map((circle) => `circle: ${circle}`).join('\n') || 'no circles');
});

// The rooms of src/storage/ and what each may import, read from src/storage/README.md: the map a
// newcomer reads is the rule the imports are held to.
const storage = join(source, 'storage');

interface Room {
  /** The folders (`log/`) and top files (`engine.ts`) its heading names. */
  names: string[];
  /** The names after "May import:", empty for "no other room". */
  mayImport: string[];
}

function storageRooms(): Room[] {
  const text = readFileSync(join(storage, 'README.md'), 'utf8');
  return text.split(/^## /m).slice(1).map((section) => {
    const [heading, ...body] = section.split('\n');
    const rule = body.find((line) => line.startsWith('May import:'));
    if (!rule) throw new Error(`src/storage/README.md: "${heading}" has no "May import:" line`);
    const named = (line: string) => [...line.matchAll(/`([^`]+)`/g)].map((match) => match[1]);
    return { names: named(heading), mayImport: named(rule) };
  });
}

/** The name of the room a file or folder of src/storage/ belongs to: its folder (`log/`), or its own name at the top. */
function roomNameOf(path: string): string {
  const [first, ...rest] = relative(storage, path).split('/');
  return rest.length > 0 ? `${first}/` : first;
}

t.test('src/storage/README.md has a paragraph for every room of src/storage/, and names no room that is not there', async (t) => {
  const named = storageRooms().flatMap((room) => room.names).sort();
  const present = readdirSync(storage, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() || entry.name.endsWith('.ts'))
    .map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name))
    .sort();
  t.same(named, present, 'every folder and top file of src/storage/ is named once, in a heading');
  const unknown = storageRooms().flatMap((room) => room.mayImport.filter((name) => !present.includes(name)).map((name) => `${room.names[0]} may import ${name}`));
  t.same(unknown, [], 'every "May import" names a room that exists');
});

t.test('each room of src/storage/ imports only its own room and the rooms its README paragraph lists', async (t) => {
  const rooms = storageRooms();
  const roomOf = new Map(rooms.flatMap((room) => room.names.map((name) => [name, room] as const)));
  const breaches: string[] = [];
  for (const file of files.filter((path) => layerOf(path) === 'storage')) {
    const from = roomOf.get(roomNameOf(file));
    for (const specifier of importsOf(file).filter((imported) => imported.startsWith('.'))) {
      const target = resolve(dirname(file), specifier);
      if (layerOf(target) !== 'storage') continue;
      const to = roomOf.get(roomNameOf(target));
      if (!from || !to || from === to || to.names.some((name) => from.mayImport.includes(name))) continue;
      breaches.push(`${relative(source, file)} imports ${specifier} (${roomNameOf(file)} → ${roomNameOf(target)})`);
    }
  }
  t.same(breaches, [], 'no import goes to a room its room may not import');
});

t.test('the rooms of src/storage/ import one another without a circle, and the log knows only the disk and the layout', async (t) => {
  const rooms = storageRooms();
  const roomOf = new Map(rooms.flatMap((room) => room.names.map((name) => [name, room] as const)));
  /** Every room `room` reaches through its lists. */
  const reached = (room: Room, seen = new Set<Room>()): Set<Room> => {
    for (const name of room.mayImport) {
      const next = roomOf.get(name);
      if (next && !seen.has(next)) reached(next, seen.add(next));
    }
    return seen;
  };
  t.same(rooms.filter((room) => reached(room).has(room)).map((room) => room.names[0]), [], 'no room reaches itself');
  const log = roomOf.get('log/');
  t.ok(log, 'there is a log/ room');
  if (log) t.same([...reached(log)].flatMap((room) => room.names).sort(), ['disk/', 'layout.ts'], 'log/ reaches disk/ and layout.ts, nothing of streams, the index, reads or maintenance');
});
