/**
 * The clock lease deadlines are measured on: monotonic, so that a wall-clock step (NTP, an
 * operator's date command) can neither extend nor shorten what a leader believes of its lease.
 */
import { performance } from 'node:perf_hooks';

export type Clock = () => number;

export const monotonicClock: Clock = () => performance.now();
