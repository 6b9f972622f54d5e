/**
 * The certificates a node serves HTTPS with: the paths from the options, and the material loaded
 * from them at start. Without --cert-file the node serves plain HTTP and this holds nothing.
 */
import type { SecureContextOptions } from 'node:tls';
import type { Logger } from '../../common/logger.js';
import type { NodeOptions } from '../../common/options/schema.js';
import { distinguishedName, loadCertificates, type CertificateMaterial, type CertificatePaths } from './certificates.js';

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

export function secureContextOptions(material: CertificateMaterial): SecureContextOptions {
  return { cert: material.cert, key: material.key, ca: material.ca ? [...material.ca] : undefined };
}

export class NodeCertificates {
  /** Loads and checks the configured certificates; a failure is the coded error that stops the start. */
  static async load(options: NodeOptions, logger: Logger): Promise<NodeCertificates> {
    const paths = certificatePathsOf(options);
    if (paths === undefined) return new NodeCertificates(undefined);
    const material = await loadCertificates(paths);
    logger.info({ ...describeCertificate(material), certFile: paths.certFile }, 'certificate loaded');
    return new NodeCertificates(material);
  }

  private constructor(private readonly material: CertificateMaterial | undefined) {}

  /** The HTTPS options of the server, or undefined for plain HTTP. */
  get https(): SecureContextOptions | undefined {
    return this.material && secureContextOptions(this.material);
  }
}
