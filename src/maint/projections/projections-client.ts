/** The projections API of a node as `svcdb projection` uses it: list, create, state, reset. */
import { Errors, isSvcError } from '../../common/errors.js';
import type { NodeClient } from '../node-client/node-client.js';

export const PROJECTION_MODES = ['continuous', 'onetime', 'transient'] as const;
export type ProjectionMode = (typeof PROJECTION_MODES)[number];

export interface ProjectionSummary {
  name: string;
  mode: string;
  status: string;
  /** Percent of the log processed. */
  progress: number;
  position: string;
}

/** A node started without projections has no route for them: that, not a missing resource, is the news. */
async function projectionsApi<T>(client: NodeClient, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (isSvcError(error) && error.code === 'SVCDB_ERR_HTTP_NOT_FOUND') throw Errors.clientProjectionsOff.create(client.url);
    throw error;
  }
}

const projectionPath = (name: string) => `/projection/${encodeURIComponent(name)}`;

export async function listProjections(client: NodeClient): Promise<ProjectionSummary[]> {
  const { projections } = await projectionsApi(client, () => client.json<{ projections: ProjectionSummary[] }>('GET', '/projections/any'));
  return projections.map(({ name, mode, status, progress, position }) => ({ name, mode, status, progress, position }));
}

export interface NewProjection {
  name: string;
  mode: ProjectionMode;
  /** The JavaScript source, sent as it is. */
  source: string;
  enabled: boolean;
  emit: boolean;
}

export async function createProjection(client: NodeClient, projection: NewProjection): Promise<void> {
  const query = new URLSearchParams({ name: projection.name, enabled: String(projection.enabled), emit: String(projection.emit), type: 'JS' });
  await projectionsApi(client, () => client.send({
    method: 'POST', path: `/projections/${projection.mode}?${query.toString()}`, rawBody: { text: projection.source, contentType: 'application/javascript' },
  }));
}

/** The state as the node stores it (JSON text, or empty when there is none yet). */
export async function projectionState(client: NodeClient, name: string, partition?: string): Promise<string> {
  const query = partition === undefined ? '' : `?${new URLSearchParams({ partition }).toString()}`;
  return (await projectionsApi(client, () => client.send({ method: 'GET', path: `${projectionPath(name)}/state${query}` }))).body;
}

export async function resetProjection(client: NodeClient, name: string): Promise<void> {
  await projectionsApi(client, () => client.send({ method: 'POST', path: `${projectionPath(name)}/command/reset` }));
}
