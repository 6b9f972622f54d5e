/**
 * The CPU a server has used, read from /proc: its own threads, its children alive now and the
 * children it has already reaped. PostgreSQL serves each connection from a backend the
 * postmaster forks, so the postmaster alone would leave out nearly all of its work.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Linux's USER_HZ, the unit of the times in /proc/<pid>/stat. */
const TICKS_PER_SECOND = 100;

interface ProcessTimes {
  parentPid: number;
  /** utime + stime of all the process's threads, and cutime + cstime of its reaped children. */
  ticks: number;
}

function timesOf(pid: string): ProcessTimes | undefined {
  let line: string;
  try {
    line = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined; // The process ended between the listing and the read.
  }
  // The command name (field 2) may hold spaces and parentheses: the fields after it follow the
  // last ') '. Index 0 is then field 3 (state), so field n is at index n - 3.
  const fields = line.slice(line.lastIndexOf(') ') + 2).split(' ');
  return { parentPid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]) };
}

/** CPU seconds (user + system) of `pid` and of its children, the reaped ones included. */
export function treeCpuSeconds(pid: number): number {
  let ticks = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const times = timesOf(entry);
    if (times && (Number(entry) === pid || times.parentPid === pid)) ticks += times.ticks;
  }
  return ticks / TICKS_PER_SECOND;
}

/**
 * Seconds the main thread of `pid` (a node's event loop) has run on a core and has waited, ready,
 * for one (/proc/<pid>/schedstat). The rest of its time it slept: idle, or blocked in a system
 * call such as a read from the disk. On a busy machine the wait says what the others took.
 */
export function mainThreadSeconds(pid: number): { running: number; waiting: number } {
  const [running, waiting] = readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ').map(Number);
  return { running: running / 1e9, waiting: waiting / 1e9 };
}
