/**
 * Runs a node in this process until a signal or a fatal error stops it: the whole life of
 * `svcdb serve`. SIGHUP reloads the certificates meanwhile. Resolves after a clean stop; rejects
 * with the error that stopped the node.
 */
import { isSvcError } from '../common/errors.js';
import { Engine } from '../storage/engine.js';
import { ClusterSupervisor } from './cluster/cluster-supervisor.js';
import { clusterOptionsOf } from './cluster/cluster-options.js';
import { Daemon, type DaemonContext, type OpenStorage } from './daemon.js';
import { createProcessLogger } from './log.js';
import type { LoadedOptions } from './options.js';
import { ReloadSignal } from './reload-signal.js';
import { ShutdownSignals } from './signals.js';

export interface RunResult {
  address: string;
  port: number;
  stoppedBy: string;
}

const openEngine: OpenStorage = (options) => Engine.open(options);

/** What the command passes besides the options: test hooks it read from the environment. */
export type RunHooks = Pick<DaemonContext, 'killAfterRedactionStep'>;

export async function runDaemon(options: LoadedOptions, version: string, hooks: RunHooks = {}): Promise<RunResult> {
  const logger = createProcessLogger({ level: options.values.logLevel, format: options.values.logFormat });
  // Deprecated options and unknown SVC_* variables do not stop the node, but the operator should fix them.
  for (const warning of options.warnings) logger.warn({ option: warning.option }, warning.message);
  const signals = new ShutdownSignals(logger);
  const reloads = new ReloadSignal(logger);
  try {
    const context: DaemonContext = { logger, version, openStorage: openEngine, ...hooks };
    // A cluster member is composed again whenever its role changes; the supervisor owns those lives.
    const daemon = clusterOptionsOf(options.values) ? await ClusterSupervisor.start(options, context) : await Daemon.start(options, context);
    const { ip, port } = daemon.address;
    signals.whenReceived((signal) => void daemon.stop({ kind: 'signal', signal }));
    // The reload logs and records its own outcome; only a bug reaches this catch.
    reloads.whenReceived(() => void daemon.reloadCertificates('signal').catch((error: unknown) => {
      logger.error({ err: error }, 'certificate reload failed');
    }));
    const { cause, error } = await daemon.stopped;
    if (error) throw error;
    return { address: ip, port, stoppedBy: cause.kind === 'signal' ? cause.signal : cause.kind };
  } catch (error) {
    // The command prints the error for the operator; the log keeps a record of it too, with the
    // stack only for errors that are not declared (those are bugs).
    const fields = isSvcError(error) ? { code: error.code, reason: error.message } : { err: error };
    logger.error(fields, 'exiting with an error');
    throw error;
  } finally {
    signals.dispose();
    reloads.dispose();
  }
}
