/**
 * What `svcdb serve` does with the cluster options today: it checks them (so a configuration
 * written now is already known to be well formed) and refuses to start with --etcd-endpoints,
 * since a node that cannot take part in the cluster's election would accept writes alone, beside
 * whichever node etcd names leader.
 */
import { Errors } from '../../common/errors.js';
import type { NodeOptions } from '../../common/options/schema.js';
import { clusterOptionsOf } from './cluster-options.js';

export function refuseClusterForNow(options: NodeOptions): void {
  if (clusterOptionsOf(options) === undefined) return;
  throw Errors.optionInvalid.create('--etcd-endpoints',
    'this svcdb checks the cluster options but does not join a cluster yet, and a node outside the cluster\'s election would accept writes on its own; leave --etcd-endpoints unset');
}
