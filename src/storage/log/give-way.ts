/**
 * Giving way to clients' writes: background work (projections' pages, a throttled scavenge's
 * steps) waits for the group commit under way while clients contend for the writer, so that a
 * commit's turns of the event loop are not each taken by a step of that work.
 */

/** The longest anything waits for a commit to end: one held up by a slow disk must not stall it. */
export const GIVE_WAY_MS_MAX = 10;

/** Where the signal comes from: the writer, through the engine. */
export interface ClientCommits {
  /** The group commit under way while clients' writes contend for the writer, settling when it ends; undefined otherwise. */
  commitWithClientsWaiting(): Promise<void> | undefined;
}

/** Resolves when `commit` ends, or after GIVE_WAY_MS_MAX, whichever comes first. */
export async function commitEndOrTimeout(commit: Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([commit, new Promise((resolve) => (timer = setTimeout(resolve, GIVE_WAY_MS_MAX)))]);
  clearTimeout(timer);
}
