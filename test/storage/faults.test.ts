import t, { type Test } from 'tap';
import { join } from 'node:path';
import { Errors } from '../../src/common/errors.js';
import { fatalError, newEvent, newEvents, openEngine, tempDirectory } from '../helpers/engine.js';
import { fileHandlePrototype, ioError } from '../helpers/file-handle.js';

/**
 * Fault injection: make the next FileHandle.datasync fail with EIO, as a disk would. The
 * prototype is shared by every FileHandle, so the patch is undone in teardown.
 */
async function failNextDatasync(t: Test): Promise<void> {
  const prototype = await fileHandlePrototype<{ datasync: () => Promise<void> }>();
  const original = prototype.datasync;
  let failed = false;
  prototype.datasync = function (this: unknown) {
    if (failed) return original.call(this);
    failed = true;
    return Promise.reject(ioError('fdatasync'));
  };
  t.teardown(() => {
    prototype.datasync = original;
  });
}

t.test('a failed fsync stops the engine: nothing acknowledged, a coded error naming the file, no retry', async (t) => {
  const directory = tempDirectory(t);
  const engine = await openEngine(directory);
  await engine.append('before', -1, newEvents(3));
  const fatal = fatalError(engine);
  await failNextDatasync(t);
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
  const engine = await openEngine(tempDirectory(t));
  engine.onFatal(() => undefined);
  await failNextDatasync(t);
  const events = newEvents(1);
  const outcomes = await Promise.allSettled([engine.append('doomed', -2, events), engine.append('doomed', -2, events)]);
  t.same(outcomes.map((outcome) => outcome.status), ['rejected', 'rejected'], 'neither the original nor its repeat');
  await engine.close();
});
