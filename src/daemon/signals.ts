/**
 * SIGINT and SIGTERM ask the node to stop cleanly. They are caught from the very start, so a
 * signal that arrives while the storage recovers is acted on as soon as the node is up. A second
 * signal while stopping exits at once: acknowledged data is already durable, and an operator who
 * insists should not have to reach for SIGKILL.
 */
import os from 'node:os';
import type { Logger } from '../common/logger.js';

const shutdownSignals = ['SIGINT', 'SIGTERM'] as const;

export class ShutdownSignals {
  private received: NodeJS.Signals | undefined;
  private handler: ((signal: NodeJS.Signals) => void) | undefined;
  private readonly listener = (signal: NodeJS.Signals) => this.onSignal(signal);

  constructor(private readonly logger: Logger) {
    for (const signal of shutdownSignals) process.on(signal, this.listener);
  }

  /** Calls `handler` on the first shutdown signal, at once if one already arrived. */
  whenReceived(handler: (signal: NodeJS.Signals) => void): void {
    this.handler = handler;
    if (this.received) handler(this.received);
  }

  dispose(): void {
    for (const signal of shutdownSignals) process.off(signal, this.listener);
  }

  private onSignal(signal: NodeJS.Signals): void {
    if (this.received === undefined) {
      this.received = signal;
      this.logger.info({ signal }, 'shutdown requested');
      this.handler?.(signal);
      return;
    }
    this.logger.warn({ signal }, 'second signal while stopping: exiting without waiting for requests to finish');
    // The shell convention for "terminated by signal N".
    process.exit(128 + os.constants.signals[signal]);
  }
}
