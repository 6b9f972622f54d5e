import t, { type Test } from 'tap';
import { join } from 'node:path';
import { Errors } from '../../src/common/errors.js';
import { fatalError, newEvent, newEvents, openEngine, tempDirectory } from '../helpers/engine.js';
import { installFileSystem, ioError, openWithFaults } from '../helpers/faulty-disk.js';

/**
 * Fault injection through the file-system seam: files opened from now on fail their first
 * datasync after `failNext()` with EIO, as a disk would. Installed before the engine opens its
 * chunk; the real file system is put back at teardown.
 */
function datasyncFaults(t: Test): { failNext: () => void } {
  let armed = false;
  installFileSystem(t, {
    open: openWithFaults({
      datasync: (handle) => {
        if (!armed) return handle.datasync();
        armed = false;
        return Promise.reject(ioError('fdatasync'));
      },
    }),
  });
  return { failNext: () => void (armed = true) };
}

t.test('a failed fsync stops the engine: nothing acknowledged, a coded error naming the file, no retry', async (t) => {
  const directory = tempDirectory(t);
  const faults = datasyncFaults(t);
  const engine = await openEngine(directory);
  await engine.append('before', -1, newEvents(3));
  const fatal = fatalError(engine);
  faults.failNext();
  await t.rejects(engine.append('doomed', -1, [newEvent()]), { code: Errors.storageClosed.code });
  t.match(await fatal, { code: Errors.storageIo.code, details: { operation: 'fsync', file: join(directory, 'db', 'chunk-000000.000000') } });
  t.equal(engine.status().state, 'failed');
  await t.rejects(engine.append('after', -1, [newEvent()]), { code: Errors.storageClosed.code }, 'later writes are refused');
  t.throws(() => engine.readStreamForward('before', 0, 10), { code: Errors.storageClosed.code }, 'reads too: the node is stopping');
  await engine.close();

  const reopened = await openEngine(directory);
  t.equal(reopened.readStreamForward('before', 0, 10).events.length, 3, 'acknowledged events are intact after restart');
  t.equal(reopened.readStreamForward('after', 0, 10).status, 'notFound');
});

t.test('a repeat in the same commit as its original is not acknowledged when that commit fails', async (t) => {
  const faults = datasyncFaults(t);
  const engine = await openEngine(tempDirectory(t));
  engine.onFatal(() => undefined);
  faults.failNext();
  const events = newEvents(1);
  const outcomes = await Promise.allSettled([engine.append('doomed', -2, events), engine.append('doomed', -2, events)]);
  t.same(outcomes.map((outcome) => outcome.status), ['rejected', 'rejected'], 'neither the original nor its repeat');
  await engine.close();
});
