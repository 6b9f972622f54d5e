/**
 * The certificates a node serves HTTPS with, and their reload (POST /admin/reloadconfig, SIGHUP).
 * A reload reads and checks every file again and only then swaps the server's secure context:
 * connections accepted from then on get the new certificate, open connections keep the one they
 * were made with, and none is dropped. A reload that fails changes nothing. Reloads run one at a
 * time; each is logged and recorded in <db>/svcdb-reload.json for `svcdb cert-reload --signal`.
 * Without --cert-file the node serves plain HTTP and a reload has nothing to do.
 */
import type { SecureContextOptions } from 'node:tls';
import { isSvcError, type SvcError } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import type { NodeOptions } from '../../common/options/schema.js';
import { writeReloadStatus, type ReloadStatus, type ReloadTrigger } from '../../storage/disk/reload-status.js';
import {
  commonNameOf, distinguishedName, loadCertificates, secureContextOptions, type CertificateMaterial, type CertificatePaths,
} from './certificates.js';

/** A node's certificate, key and trusted roots, for the TLS connections it makes to other nodes. */
export interface NodeClientTls {
  cert: string;
  key: string;
  ca?: string[];
}

export type ReloadOutcome = { ok: true; reloaded: boolean } | { ok: false; error: SvcError };

/** The part of a TLS server a reload uses. */
export interface SecureContextTarget {
  setSecureContext(options: SecureContextOptions): void;
}

export function certificatePathsOf(options: NodeOptions): CertificatePaths | undefined {
  if (options.certFile === '') return undefined;
  return { certFile: options.certFile, privateKeyFile: options.certPrivateKeyFile, trustedRootsPath: options.trustedRootCertificatesPath };
}

/** What the log says about the certificate in service. */
export function describeCertificate(material: CertificateMaterial): Record<string, string> {
  const { leaf } = material;
  return {
    subject: distinguishedName(leaf.subject), issuer: distinguishedName(leaf.issuer),
    fingerprint256: leaf.fingerprint256, validTo: new Date(leaf.validTo).toISOString(),
  };
}

export class NodeCertificates {
  private server: SecureContextTarget | undefined;
  private sequence = 0;
  private reloads: Promise<unknown> = Promise.resolve();

  /** Loads and checks the configured certificates; a failure is the coded error that stops the start. */
  static async load(options: NodeOptions, logger: Logger): Promise<NodeCertificates> {
    const paths = certificatePathsOf(options);
    const material = paths && await loadCertificates(paths);
    if (paths && material) logger.info({ ...describeCertificate(material), certFile: paths.certFile }, 'certificate loaded');
    return new NodeCertificates(paths, material, options.db, logger);
  }

  private constructor(
    private readonly paths: CertificatePaths | undefined,
    private material: CertificateMaterial | undefined,
    private readonly statusDirectory: string,
    private readonly logger: Logger,
  ) {}

  /** The HTTPS options of the server, or undefined for plain HTTP. */
  get https(): SecureContextOptions | undefined {
    return this.material && secureContextOptions(this.material);
  }

  /**
   * The common name a peer's certificate must carry to be let in as a node: the one of this
   * node's own certificate, as it is now (a reload may change it). Undefined without TLS.
   */
  nodeCommonName(): string | undefined {
    return this.material && commonNameOf(this.material.leaf);
  }

  /** What this node presents and trusts when it connects to another node over TLS; undefined without TLS. */
  clientTls(): NodeClientTls | undefined {
    const material = this.material;
    return material && { cert: material.cert, key: material.key, ...(material.ca ? { ca: [...material.ca] } : {}) };
  }

  /** The server whose context a reload swaps. */
  attach(server: SecureContextTarget): void {
    this.server = server;
  }

  /** Reloads after any reload still running; the outcome is also logged and recorded. */
  reload(trigger: ReloadTrigger): Promise<ReloadOutcome> {
    const outcome = this.reloads.then(() => this.reloadNow(trigger));
    this.reloads = outcome.catch(() => undefined);
    return outcome;
  }

  private async reloadNow(trigger: ReloadTrigger): Promise<ReloadOutcome> {
    const sequence = ++this.sequence;
    const outcome = await this.swap();
    // Recorded before it is logged: whoever sees the log line finds the outcome in the file too.
    await this.record(trigger, sequence, outcome);
    this.log(trigger, sequence, outcome);
    return outcome;
  }

  private async swap(): Promise<ReloadOutcome> {
    if (this.paths === undefined) return { ok: true, reloaded: false };
    let material: CertificateMaterial;
    try {
      material = await loadCertificates(this.paths);
    } catch (error) {
      if (!isSvcError(error)) throw error;
      return { ok: false, error };
    }
    // loadCertificates built a context from the same material, so this cannot fail half way.
    this.server?.setSecureContext(secureContextOptions(material));
    this.material = material;
    return { ok: true, reloaded: true };
  }

  private log(trigger: ReloadTrigger, sequence: number, outcome: ReloadOutcome): void {
    // Operators and `svcdb cert-reload` users look for these lines; their msg and fields are stable.
    if (!outcome.ok) {
      this.logger.error({ trigger, sequence, code: outcome.error.code, reason: outcome.error.message }, 'certificate reload failed');
    } else if (outcome.reloaded && this.material) {
      this.logger.info({ trigger, sequence, ...describeCertificate(this.material) }, 'certificates reloaded');
    } else {
      this.logger.info({ trigger, sequence }, 'no certificates to reload');
    }
  }

  private async record(trigger: ReloadTrigger, sequence: number, outcome: ReloadOutcome): Promise<void> {
    const status: ReloadStatus = { pid: process.pid, sequence, time: new Date().toISOString(), trigger, ok: outcome.ok };
    if (outcome.ok) status.result = outcome.reloaded ? 'reloaded' : 'nothing to reload';
    else status.error = { code: outcome.error.code, message: outcome.error.message };
    try {
      await writeReloadStatus(this.statusDirectory, status);
    } catch (error) {
      this.logger.warn({ err: error, sequence }, 'recording the reload outcome failed');
    }
  }
}
