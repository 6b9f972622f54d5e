/** `GET /info`: the node's version, state and features, for anyone (no credentials needed). */
import type { FastifyPluginAsync } from 'fastify';
import { resource } from './routing.js';
import type { NodeInfo } from '../services/node-info.js';

export interface InfoRoutesOptions {
  nodeInfo: NodeInfo;
}

const featuresSchema = {
  type: 'object',
  properties: {
    projections: { type: 'boolean' },
    userManagement: { type: 'boolean' },
    atomPub: { type: 'boolean' },
  },
  required: ['projections', 'userManagement', 'atomPub'],
} as const;

const infoSchema = {
  type: 'object',
  properties: {
    svcVersion: { type: 'string' },
    state: { type: 'string' },
    features: featuresSchema,
    authentication: {
      type: 'object',
      properties: {
        type: { type: 'string' },
        properties: { type: ['object', 'null'], additionalProperties: true },
      },
      required: ['type', 'properties'],
    },
    // A read-only replica's leader, state and lag (follower.ts ReplicaStatus).
    replication: { type: 'object', additionalProperties: true },
    // A cluster member's view of the cluster (node-info.ts ClusterInfo).
    cluster: { type: 'object', additionalProperties: true },
  },
  required: ['svcVersion', 'state', 'features', 'authentication'],
} as const;

export const infoRoutes: FastifyPluginAsync<InfoRoutesOptions> = async (app, { nodeInfo }) => {
  resource(app, '/info', { GET: { options: { schema: { response: { 200: infoSchema } } }, handler: async () => nodeInfo.document() } });
};
