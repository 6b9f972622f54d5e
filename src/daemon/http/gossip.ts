/** `GET /gossip` (this node's view of the cluster, for anyone) and `POST /gossip` (another node's view, from an operator). */
import type { FastifyPluginAsync } from 'fastify';
import type { GossipService, GossipUpdate } from '../services/gossip.js';

export interface GossipRoutesOptions {
  gossip: GossipService;
}

const uuid = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
const memberStates = [
  'Initializing', 'DiscoverLeader', 'Unknown', 'PreReplica', 'CatchingUp', 'Clone', 'Follower', 'PreLeader', 'Leader',
  'Manager', 'ShuttingDown', 'Shutdown', 'ReadOnlyLeaderless', 'PreReadOnlyReplica', 'ReadOnlyReplica', 'ResigningLeader',
];
const port = { type: 'integer', minimum: 0, maximum: 65_535 } as const;
// An IP address (v4, v6 with an optional zone) or a host name: the node logs it, so it is bounded
// and can carry no spaces, quotes or line breaks.
const address = { type: 'string', minLength: 1, maxLength: 253, pattern: '^[0-9A-Za-z.:%_\\[\\]-]+$' } as const;

const updateSchema = {
  type: 'object',
  required: ['members', 'serverIp', 'serverPort'],
  properties: {
    serverIp: address,
    serverPort: port,
    members: {
      type: 'array',
      maxItems: 64,
      items: {
        type: 'object',
        required: ['instanceId', 'state', 'isAlive', 'httpEndPointIp', 'httpEndPointPort'],
        properties: {
          instanceId: { type: 'string', pattern: uuid },
          state: { type: 'string', enum: memberStates },
          isAlive: { type: 'boolean' },
          httpEndPointIp: address,
          httpEndPointPort: port,
          epochNumber: { type: 'integer', minimum: -1 },
          writerCheckpoint: { type: 'integer', minimum: -1 },
          chaserCheckpoint: { type: 'integer', minimum: -1 },
        },
      },
    },
  },
} as const;

export const gossipRoutes: FastifyPluginAsync<GossipRoutesOptions> = async (app, { gossip }) => {
  app.get('/gossip', async () => gossip.document());
  app.post<{ Body: GossipUpdate }>('/gossip', { schema: { body: updateSchema } }, async (request) => gossip.receive(request.body));
};
