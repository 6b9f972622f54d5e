/**
 * The campaign rule on its own: who may campaign given the members' published records.
 */
import t from 'tap';
import { compareCandidates, mayCampaign } from '../../src/daemon/cluster/campaign-rule.js';
import type { Member, MemberRecord } from '../../src/daemon/cluster/member-record.js';

const record = (id: string, epoch: number, writerCheckpoint: number, priority = 0): MemberRecord =>
  ({ id, httpUrl: `http://${id}:2113`, state: 'Follower', epoch, writerCheckpoint, priority });
const member = (modRevision: number, value: MemberRecord): Member => ({ record: value, modRevision });

t.test('the newest epoch first, then the position, then the priority, then the lower id', async (t) => {
  const ranked = [record('e', 2, 10), record('d', 1, 900), record('c', 1, 500, 5), record('a', 1, 500), record('b', 1, 500)];
  const shuffled = [ranked[3], ranked[0], ranked[4], ranked[2], ranked[1]];
  t.same(shuffled.sort(compareCandidates).map((value) => value.id), ['e', 'd', 'c', 'a', 'b']);
});

t.test('a node campaigns only with a majority of fresh records and none ahead of it', async (t) => {
  const gone = 100;
  const a = member(101, record('a', 3, 500));
  const b = member(102, record('b', 3, 400));
  const staleC = member(99, record('c', 3, 900));
  t.same(mayCampaign('a', [a, b], 3, gone), { campaign: true });
  t.equal(mayCampaign('b', [a, b], 3, gone).campaign, false, 'b is behind a');
  t.equal(mayCampaign('a', [a], 3, gone).campaign, false, 'one fresh record is not a majority of three');
  t.equal(mayCampaign('a', [a, staleC], 3, gone).campaign, false, 'a record from before the leader went does not count');
  t.equal(mayCampaign('a', [member(50, a.record), b], 3, gone).campaign, false, 'the node itself must have published since');
  t.equal(mayCampaign('a', [a, b, member(103, record('c', 3, 900))], 3, gone).campaign, false, 'a fresh record ahead stops it');
  t.equal(mayCampaign('a', [a, b, member(104, record('d', 1, 0)), member(105, record('e', 1, 0))], 5, gone).campaign, true, 'three of five');
});
