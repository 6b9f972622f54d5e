/**
 * A projection's stateReason shows internal detail only to operators (regression: a storage
 * error's message, file paths and all, was shown to every user who may list projections).
 */
import t from 'tap';
import type { ServiceStorage } from '../../src/daemon/projections/projections-service.js';
import type { Engine } from '../../src/storage/engine.js';
import { ADMIN_AUTH, createUser, OPS_AUTH } from '../helpers/auth.js';
import { newEvents } from '../helpers/engine.js';
import { createProjection, startProjectionsNode, waitStatus } from '../helpers/projections.js';

const INTERNAL = "EIO: i/o error, write '/var/lib/svcdb/db/chunk-000000.000000'\n    at FileHandle.write (node:internal/fs/promises:1)";

/** The engine, but appends to `disk-out` fail as a broken disk would fail them. */
function failingDisk(engine: Engine): ServiceStorage {
  return new Proxy(engine, {
    get(target, key) {
      const value = Reflect.get(target, key, target) as unknown;
      if (typeof value !== 'function') return value;
      if (key !== 'append') return (value as (...args: unknown[]) => unknown).bind(target);
      return async (streamName: string, ...rest: unknown[]) => {
        if (streamName === 'disk-out') throw new Error(INTERNAL);
        return (value as (...args: unknown[]) => unknown).call(target, streamName, ...rest);
      };
    },
  });
}

t.test('users who are not operators read a fault reason without internal text; operators read all of it', async (t) => {
  const node = await startProjectionsNode(t, {}, {}, failingDisk);
  await node.engine.append('src-1', -2, newEvents(1));
  await createProjection(node.url, 'continuous', 'disk', 'fromStream("src-1").when({$any: function(s, e){ emit("disk-out", "T", {}); }})', { emit: 'yes' });
  await createProjection(node.url, 'continuous', 'thrower', 'fromStream("src-1").when({$any: function(){ throw new Error("no customer id in the event"); }})');
  await waitStatus(node.url, 'disk', 'Faulted');
  await waitStatus(node.url, 'thrower', 'Faulted');
  const reader = await createUser(node.url, { loginName: 'reader', password: 'reader-pw' });
  const reasonAs = async (authorization: string, name: string) => {
    const one = await (await fetch(`${node.url}/projection/${name}`, { headers: { authorization } })).json() as { stateReason: string };
    const listed = await (await fetch(`${node.url}/projections/any`, { headers: { authorization } })).json() as { projections: Array<{ name: string; stateReason: string }> };
    const statistics = await (await fetch(`${node.url}/projection/${name}/statistics`, { headers: { authorization } })).json() as { projections: Array<{ stateReason: string }> };
    const fromList = listed.projections.find((projection) => projection.name === name)!.stateReason;
    t.equal(fromList, one.stateReason, 'the listing says the same');
    t.equal(statistics.projections[0].stateReason, one.stateReason, 'the statistics say the same');
    return one.stateReason;
  };
  const forReader = await reasonAs(reader, 'disk');
  t.notMatch(forReader, /\/var\/lib|chunk-|at FileHandle|node:internal/, 'no path or stack for an ordinary user');
  t.match(forReader, /internal error/, 'but that it stopped on an internal error');
  for (const [who, authorization] of [['admin', ADMIN_AUTH], ['ops', OPS_AUTH]]) {
    t.match(await reasonAs(authorization, 'disk'), /\/var\/lib\/svcdb\/db\/chunk-000000\.000000/, `${who} reads the whole reason`);
  }
  t.match(await reasonAs(reader, 'thrower'), /no customer id in the event/, 'what the projection\'s own code threw is shown to every user');
});
