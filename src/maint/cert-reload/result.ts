/** What `svcdb cert-reload` reports when the node's reload took effect. */
export interface CertReloadResult {
  /** How the node was asked: POST /admin/reloadconfig, or SIGHUP to its process. */
  via: 'http' | 'signal';
  /** The node's URL (over HTTP). */
  url?: string;
  /** The node's process (with a signal). */
  pid?: number;
  /** What the reload did: as the node recorded it (with a signal), or by the protocol it serves (over HTTP). */
  result?: 'reloaded' | 'nothing to reload';
  /** The node's count of its reloads (with a signal). */
  sequence?: number;
}
