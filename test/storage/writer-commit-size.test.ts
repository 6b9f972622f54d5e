/**
 * However many appends queue at once, the writer commits them (regression: 125k appends queued
 * together went into one group commit, whose bookkeeping overflowed the stack with a RangeError;
 * the writer stopped and the node exited 1).
 */
import t from 'tap';
import { newEvents, openEngine, tempDirectory } from '../helpers/engine.js';

const APPENDS = 125_000;

t.test('125k appends to distinct streams queued at once are all written, and the writer goes on', async (t) => {
  const engine = await openEngine(tempDirectory(t), { chunkSizeBytes: 256 * 1024 * 1024 });
  const appends: Array<Promise<unknown>> = [];
  for (let i = 0; i < APPENDS; i++) appends.push(engine.append(`many-${i}`, -1, newEvents(1), { followUp: true }));
  const results = await Promise.allSettled(appends);
  const refused = results.filter((result): result is PromiseRejectedResult => result.status === 'rejected');
  t.equal(refused.length, 0, refused.length > 0 ? `refused: ${String(refused[0].reason)}` : 'none refused');
  for (const i of [0, APPENDS / 2, APPENDS - 1]) t.equal(engine.readStreamForward(`many-${i}`, 0, 10).events.length, 1, `many-${i} holds its event`);
  await engine.append('after-1', -1, newEvents(1));
  t.equal(engine.readStreamForward('after-1', 0, 10).events.length, 1, 'the writer goes on');
});
