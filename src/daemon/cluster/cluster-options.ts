/**
 * The cluster's share of a node's options, checked once at start (the rules that involve several
 * options and the parsing of the endpoint list) and frozen: membership and election trust them.
 */
import { Errors } from '../../common/errors.js';
import type { NodeOptions } from '../../common/options/schema.js';

/** The etcd key prefix every cluster lives under: /svcdb/<cluster-name>/… */
export const ETCD_KEY_PREFIX = 'svcdb';
/** What a leader subtracts from its lease for clock-rate differences and scheduling delay. */
export const LEASE_DRIFT_MARGIN_MS = 500;
/** A node publishes its durable position at most this often, so that busy writes do not flood etcd. */
export const PUBLISH_INTERVAL_MS = 200;
/** A single etcd request that takes longer than this counts as etcd being unreachable. */
export const ETCD_REQUEST_TIMEOUT_MS = 1000;

export interface ClusterOptions {
  readonly clusterSize: number;
  readonly etcdEndpoints: readonly string[];
  readonly clusterName: string;
  readonly advertiseHttpUrl: string;
  readonly leaderLeaseTtlMs: number;
  readonly nodePriority: number;
  readonly driftMarginMs: number;
  readonly publishIntervalMs: number;
  readonly requestTimeoutMs: number;
}

const CLUSTER_NAME = /^[A-Za-z0-9._-]{1,64}$/;

function httpUrl(option: string, text: string, example: string, schemes: readonly string[] = ['http:', 'https:']): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw Errors.optionInvalid.create(option, `${JSON.stringify(text)} is not a URL; write it as ${example}`);
  }
  if (!schemes.includes(url.protocol) || url.username !== '' || url.password !== '' || (url.pathname !== '/' && url.pathname !== '')) {
    throw Errors.optionInvalid.create(option, `${JSON.stringify(text)} must be ${schemes.map((scheme) => `${scheme}//`).join(' or ')}, a host and a port, with no credentials or path, like ${example}`);
  }
  return url.origin;
}

/** The cluster options, or undefined for a node outside any cluster (no --etcd-endpoints). */
export function clusterOptionsOf(options: NodeOptions): ClusterOptions | undefined {
  if (options.etcdEndpoints.trim() === '') {
    if (options.clusterSize > 1) {
      throw Errors.optionRequires.create('--cluster-size', ['--etcd-endpoints'], 'the members of a cluster and its leader come from etcd; give its client URLs, or a size of 1');
    }
    return undefined;
  }
  if (options.replicaOf !== '') {
    throw Errors.optionConflict.create('--etcd-endpoints', '--replica-of', 'a cluster member follows the leader etcd names; drop --replica-of, or --etcd-endpoints for a read-only replica');
  }
  if (options.clusterSize < 3) {
    throw Errors.optionRequires.create('--etcd-endpoints', ['--cluster-size'], 'a cluster has 3 or more nodes; give --cluster-size 3 or 5');
  }
  if (options.advertiseHttpUrl === '') {
    throw Errors.optionRequires.create('--etcd-endpoints', ['--advertise-http-url'], 'the other nodes find this one by the URL it registers in etcd; give the URL they reach it at');
  }
  if (!CLUSTER_NAME.test(options.clusterName)) {
    throw Errors.optionInvalid.create('--cluster-name', `${JSON.stringify(options.clusterName)} must be 1 to 64 letters, digits, dots, dashes or underscores: it is part of etcd keys`);
  }
  const endpoints = options.etcdEndpoints.split(',').map((endpoint) => endpoint.trim()).filter((endpoint) => endpoint !== '');
  return Object.freeze({
    clusterSize: options.clusterSize,
    // Plain http only: the node does not yet present a client certificate to etcd.
    etcdEndpoints: Object.freeze(endpoints.map((endpoint) => httpUrl('--etcd-endpoints', endpoint, 'http://10.0.0.1:2379', ['http:']))),
    clusterName: options.clusterName,
    advertiseHttpUrl: httpUrl('--advertise-http-url', options.advertiseHttpUrl, 'http://10.0.0.1:2113'),
    leaderLeaseTtlMs: options.leaderLeaseTtlMs,
    nodePriority: options.nodePriority,
    driftMarginMs: LEASE_DRIFT_MARGIN_MS,
    publishIntervalMs: PUBLISH_INTERVAL_MS,
    requestTimeoutMs: ETCD_REQUEST_TIMEOUT_MS,
  });
}
