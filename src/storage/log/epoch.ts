import { randomUUID } from 'node:crypto';
import type { Checkpoint } from './checkpoint.js';
import { RecordKind, SystemKind, encodeSystemRecord } from './record.js';
import type { TransactionLog } from './transaction-log.js';

export interface Epoch {
  epochPosition: number;
  epochNumber: number;
  epochId: string;
  prevEpochPosition: number;
  timeStamp: string;
}

/** The epoch record at `position`, if that is one (epoch.chk may be stale after truncation). */
export function epochAt(log: TransactionLog, position: number): Epoch | undefined {
  if (position < 0 || position >= log.readableEnd) return undefined;
  const record = log.readRecord(position);
  if (record.kind !== RecordKind.system || record.systemKind !== SystemKind.epoch) return undefined;
  return JSON.parse(record.data.toString('utf8')) as Epoch;
}

/**
 * Writes the epoch record every start begins with, chained to the previous one, and moves
 * epoch.chk and proposal.chk to it. Epoch numbers only grow, even across truncations; a cluster
 * leader numbers its epoch at least by its term (`atLeast`).
 */
export async function writeEpoch(
  log: TransactionLog, checkpoints: { writer: Checkpoint; epoch: Checkpoint; proposal: Checkpoint }, atLeast = 0,
): Promise<Epoch> {
  const previous = epochAt(log, checkpoints.epoch.value);
  const epochNumber = Math.max(previous?.epochNumber ?? -1, checkpoints.proposal.value, atLeast - 1) + 1;
  const timestamp = Date.now();
  const draft = (position: number): Buffer => {
    const epoch: Epoch = {
      epochPosition: position,
      epochNumber,
      epochId: randomUUID(),
      prevEpochPosition: previous?.epochPosition ?? -1,
      timeStamp: new Date(timestamp).toISOString(),
    };
    return encodeSystemRecord(position, timestamp, SystemKind.epoch, Buffer.from(JSON.stringify(epoch)));
  };
  if (!log.fits(draft(log.writerPosition).length)) {
    await log.completeCurrentChunk();
    await checkpoints.writer.writeAsync(log.writerPosition);
  }
  const position = log.writerPosition;
  const bytes = draft(position);
  await log.append(bytes);
  await log.sync();
  await checkpoints.writer.writeAsync(log.writerPosition);
  log.publish(log.writerPosition);
  checkpoints.proposal.write(epochNumber);
  checkpoints.epoch.write(position);
  return epochAt(log, position)!;
}

/**
 * The epochs of the log from the one at `position` back through their chain, newest first, at
 * most `countMax`: what a replica and its leader compare to find where their logs part.
 */
export function epochChain(log: TransactionLog, position: number, countMax: number): Epoch[] {
  const chain: Epoch[] = [];
  let epoch = epochAt(log, position);
  while (epoch && chain.length < countMax) {
    chain.push(epoch);
    // A chain always points back; anything else is not followed.
    epoch = epoch.prevEpochPosition < epoch.epochPosition ? epochAt(log, epoch.prevEpochPosition) : undefined;
  }
  return chain;
}
