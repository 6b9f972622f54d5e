// Backup progress as `pg_basebackup -P` gives it: bytes done of a total estimated at the start,
// the percent, the rate and the time left. A spinner on a terminal (tmux), progress lines on
// stderr with --progress where there is none, and nothing at all otherwise (cron).
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { formatBytes } from '../../src/common/human-units.js';
import type { Progress } from '../../src/common/progress.js';
import { finishedProgress, progressText } from '../../src/cli/progress-text.js';
import { backup } from '../../src/maint/backup/backup.js';
import { dataArgs, runJson } from '../helpers/backup.js';
import { runCli } from '../helpers/cli.js';
import { newEvent, openEngine, tempDirectory } from '../helpers/engine.js';
import { TerminalSession } from '../helpers/terminal.js';

const MiB = 1024 * 1024;
const LINE = /^Backing up: ([\d.]+ \S+) of ([\d.]+ \S+) \((\d+)%\)(, [\d.]+ \S+\/s)?(, .+ left)? · .+$/;

async function nodeDirectory(t: Test): Promise<string> {
  const source = join(tempDirectory(t), 'source');
  const engine = await openEngine(source, { chunkSizeBytes: 1 * MiB, existenceFilterSizeBytes: 0 });
  // Over three chunks of 1 MiB: completed chunks and an ongoing one.
  for (let i = 0; i < 40; i += 1) await engine.append(`progress-${i}`, -1, Array.from({ length: 10 }, () => newEvent('Progress', { pad: 'x'.repeat(8 * 1024) })));
  await engine.close();
  return source;
}

t.test('the text: done of total, percent, rate and time left; without a total, files and bytes', async (t) => {
  const progress: Progress = { phase: 'chunks', file: 'db/chunk-000001.000000', filesCopied: 3, bytesCopied: 30 * MiB, bytesTotal: 120 * MiB };
  t.equal(progressText(progress, 0.2), '30.0 MiB of 120.0 MiB (25%) · chunks db/chunk-000001.000000', 'no rate in the first second');
  t.equal(progressText(progress, 2), '30.0 MiB of 120.0 MiB (25%), 15.0 MiB/s, 6 s left · chunks db/chunk-000001.000000');
  t.equal(progressText({ ...progress, bytesSkipped: 60 * MiB }, 2), '90.0 MiB of 120.0 MiB (75%), 15.0 MiB/s, 2 s left · chunks db/chunk-000001.000000',
    'skipped files count as done but not in the rate');
  t.equal(progressText({ ...progress, bytesCopied: 130 * MiB }, 2), '130.0 MiB of 130.0 MiB (100%), 65.0 MiB/s · chunks db/chunk-000001.000000',
    'an estimate the node outgrew is the work done, never over 100%');
  t.equal(progressText(finishedProgress(progress), 2), '30.0 MiB of 30.0 MiB (100%), 15.0 MiB/s · done');
  t.equal(progressText({ phase: 'restore', file: 'db/chunk-000000.000000', filesCopied: 2, bytesCopied: 1536 }, 2), 'restore db/chunk-000000.000000 (2 files, 1.5 KiB)');
});

t.test('the estimate taken at the start is what a full backup of an idle node copies', async (t) => {
  const source = await nodeDirectory(t);
  const seen: Progress[] = [];
  const result = await backup({ db: join(source, 'db'), index: join(source, 'index'), destination: join(source, '..', 'full'), differential: false,
    onProgress: (progress) => seen.push(progress),
  });
  t.ok(seen.length > 0 && seen.every((progress) => progress.bytesTotal !== undefined), 'every report carries the total');
  t.equal(seen[0].bytesTotal, result.bytesCopied, `estimated ${seen[0].bytesTotal} bytes, copied ${result.bytesCopied}`);

  const skipped: Progress[] = [];
  const differential = await backup({
    db: join(source, 'db'), index: join(source, 'index'), destination: join(source, '..', 'full'), differential: true,
    onProgress: (progress) => skipped.push(progress),
  });
  const last = skipped.at(-1)!;
  t.ok(differential.filesSkipped > 0, 'the differential backup skipped unchanged files');
  t.ok(last.bytesSkipped! > 0, 'their bytes count as done');
  const done = last.bytesCopied + last.bytesSkipped!;
  t.ok(Math.abs(done - last.bytesTotal!) <= 64, `copied and skipped (${done}) add up to the estimate (${last.bytesTotal}) but for checkpoints`);
});

t.test('without a terminal: nothing on stderr unless --progress, which writes lines that end at 100%', async (t) => {
  const source = await nodeDirectory(t);
  const quiet = await runCli(['backup', join(source, '..', 'quiet'), ...dataArgs(source)]);
  t.equal(quiet.code, 0, quiet.stderr);
  t.equal(quiet.stderr, '', 'cron gets no output from a backup that worked');

  const run = await runJson<{ bytesCopied: number }>(['backup', join(source, '..', 'lines'), ...dataArgs(source), '--progress']);
  t.equal(run.code, 0, run.exit.stderr);
  t.ok(run.json.bytesCopied > 3 * MiB, 'stdout is the --json result alone');
  const lines = run.exit.stderr.trimEnd().split('\n');
  t.ok(lines.length >= 2, `a first line and a last one:\n${run.exit.stderr}`);
  for (const line of lines) t.match(line, LINE, `a progress line: ${line}`);
  const [, done, total, percent] = lines.at(-1)!.match(LINE)!;
  t.equal(percent, '100', 'the last line is at 100%');
  t.equal(done, formatBytes(run.json.bytesCopied), 'it says the bytes copied');
  t.equal(total, done);
  t.match(lines.at(-1), / · done$/);
  t.match(lines[0], /^Backing up: 0 B of [\d.]+ MiB \(0%\)/, 'the first line has the whole estimate ahead of it');
});

t.test('on a terminal: the spinner shows done of total and percent, then the outcome', async (t) => {
  const source = await nodeDirectory(t);
  // The test hook stops the backup after its third change, so the screen holds the progress line.
  const session = await TerminalSession.start(t, ['backup', join(source, '..', 'terminal'), ...dataArgs(source)], {
    unset: ['CI'], env: { SVC_TEST_BACKUP_STOP_AFTER: '3' },
  });
  const [line] = await session.waitForLine(/^.*Backing up: [\d.]+ \S+ of [\d.]+ MiB \(\d+%\).*$/, 'the progress line');
  t.match(line, /^\S Backing up: [\d.]+ \S+ of [\d.]+ MiB \(\d{1,2}%\) · /, `a spinner, then the figures: ${line}`);
  process.kill(await session.commandPid(), 'SIGCONT');
  const [outcome] = await session.waitForLine(/^.*full backup of node.*$/, 'the outcome');
  t.match(outcome, /^✔ full backup of node \S+ in .*: \d+ files copied \([\d.]+ MiB\)/);
  t.equal(await session.exitStatus(), 0);
});
