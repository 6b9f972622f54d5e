/**
 * SIGHUP asks the node to reload its certificates, as `POST /admin/reloadconfig` does. Node's
 * default for SIGHUP is to exit, so the listener is installed as `svcdb serve` begins and stays
 * until it ends; a SIGHUP that arrives while the node starts is acted on once the node is up.
 */
import type { Logger } from '../common/logger.js';

export class ReloadSignal {
  private pending = false;
  private handler: (() => void) | undefined;
  private readonly listener = () => this.onSignal();

  constructor(private readonly logger: Logger) {
    process.on('SIGHUP', this.listener);
  }

  /** Calls `handler` on every SIGHUP from now on, and at once if one arrived before. */
  whenReceived(handler: () => void): void {
    this.handler = handler;
    if (!this.pending) return;
    this.pending = false;
    handler();
  }

  dispose(): void {
    process.off('SIGHUP', this.listener);
  }

  private onSignal(): void {
    this.logger.info({ signal: 'SIGHUP' }, 'reload requested');
    if (this.handler) this.handler();
    else this.pending = true;
  }
}
