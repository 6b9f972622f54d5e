/**
 * Which of several nodes (the --url list of a cluster) a command that must reach the leader talks
 * to: each is asked `GET /info` at once; the one that says it leads is used, else the leader a
 * member names in its view of the cluster. When none answers as leader, the error lists each URL
 * and what it said, so the operator sees which node is down and which knows no leader.
 */
import { Errors, isSvcError } from '../../common/errors.js';
import type { NodeConnection } from '../../common/node-connection.js';
import { jsonReply, requestNode } from './node-request.js';

interface InfoReply {
  state?: unknown;
  cluster?: { leader?: { httpUrl?: unknown } | null; term?: unknown };
}

interface Answer {
  url: string;
  state?: string;
  /** The leader the node names in its view of the cluster. */
  leaderUrl?: string;
  term: number;
  error?: string;
}

export interface LeaderChoice {
  url: string;
  /** The node whose view named the leader, when the leader itself was not among the URLs or did not answer. */
  namedBy?: string;
}

async function ask(connection: NodeConnection, url: string, ca: string | undefined): Promise<Answer> {
  const asked = { ...connection, url };
  try {
    const info = jsonReply<InfoReply>(asked, await requestNode(asked, { method: 'GET', path: '/info', ...(ca !== undefined && { ca }) }));
    const leaderUrl = info.cluster?.leader?.httpUrl;
    return {
      url, state: typeof info.state === 'string' ? info.state : undefined,
      ...(typeof leaderUrl === 'string' && { leaderUrl }), term: typeof info.cluster?.term === 'number' ? info.cluster.term : 0,
    };
  } catch (error) {
    if (!isSvcError(error)) throw error;
    return { url, term: 0, error: error.code };
  }
}

function describe(answer: Answer): string {
  if (answer.error !== undefined) return `${answer.url} failed (${answer.error})`;
  return `${answer.url} is ${answer.state ?? 'in no state it names'}${answer.leaderUrl === undefined ? ' and knows no leader' : `, its leader ${answer.leaderUrl} did not answer`}`;
}

const sameNode = (a: string, b: string) => new URL(a).origin === new URL(b).origin;

/** The URL among `urls` (or named by one of them) of the node that leads; the coded error when there is none. */
export async function findLeader(connection: NodeConnection, urls: readonly string[], ca: string | undefined): Promise<LeaderChoice> {
  const answers = await Promise.all(urls.map((url) => ask(connection, url, ca)));
  // Two nodes may both say they lead for a moment after an election: the later term is the leader.
  const leaders = answers.filter((answer) => answer.state === 'leader').sort((a, b) => b.term - a.term);
  if (leaders.length > 0) return { url: leaders[0].url };
  const unreachable = answers.filter((answer) => answer.error !== undefined);
  const naming = answers.filter((answer) => answer.leaderUrl !== undefined).sort((a, b) => b.term - a.term)
    .find((answer) => !unreachable.some((down) => sameNode(down.url, answer.leaderUrl!)));
  if (naming) return { url: naming.leaderUrl!, namedBy: naming.url };
  throw Errors.clientNoLeader.create(answers.map(describe).join('; '));
}
