/**
 * The node's statistics history for a page of charts: what the node has kept first, then each
 * new sample as it comes (one request a second for only the newer samples). The chosen time
 * window is kept while the console is open, across pages.
 */
import { useRef, useState } from 'preact/hooks';
import type { Api } from '../lib/api.js';
import type { StatsHistoryDocument } from '../../src/common/stats-history-document.js';
import { historyPath, NodeHistory } from '../lib/node-history.js';
import { every, useLive } from './live.js';

export const HISTORY_REFRESH_MS = 1000;
let chosenWindowMs = 5 * 60_000;

export function useNodeHistory(api: Api) {
  const history = useRef(new NodeHistory());
  const live = useLive(async (signal) => {
    history.current.add(await api.json<StatsHistoryDocument>(historyPath(history.current), { signal }));
    return history.current.after;
  }, every(HISTORY_REFRESH_MS), [api]);
  const [windowMs, setWindowMs] = useState(chosenWindowMs);
  const choose = (value: number) => { chosenWindowMs = value; setWindowMs(value); };
  const endMs = history.current.latest ? Date.parse(history.current.latest.time) : Date.now();
  return { history: history.current, live, windowMs, choose, endMs };
}
