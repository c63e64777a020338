// ELR (KIP-966) in the leader override: who may hold the acknowledged data,
// what the plan says about the partition, and when a returning last leader is
// re-elected, per Kafka line (elr.ts).
import { describe, expect, it } from 'vitest';
import { elrHolders, elrStateText, returnElectionText } from './elr.ts';
import { planLeaderOverride } from './plan.ts';
import { lossHeadline } from './loss-text.ts';
import type { PartitionState } from '../../../kafka/types.ts';
import type { ReplicaData } from '../../types.ts';
import { leaderOverride } from './index.ts';
import { plan, snapshot, warningLines } from '../../../../test/operations/plan-fixtures.ts';

const part = (isr: number[], elr?: number[], lastKnownElr?: number[]): PartitionState => ({
  partition: 0,
  leader: -1,
  replicas: [1, 2, 3],
  isr,
  offlineReplicas: [],
  ...(elr ? { elr } : {}),
  ...(lastKnownElr ? { lastKnownElr } : {}),
});
const host = (brokerId: number, logEndOffset: number): ReplicaData => ({ brokerId, logEndOffset, checkpointedHighWatermark: logEndOffset, sizeBytes: logEndOffset * 10, source: 'host' });
const down = (brokerId: number): ReplicaData => ({ brokerId, logEndOffset: null, source: 'host', error: 'host unreachable' });

describe('elrHolders / elrStateText', () => {
  it('the last known leader held the longest log; ELR members hold every committed write', () => {
    expect(elrHolders(part([], [1], [1]))).toEqual([{ brokerId: 1, role: 'last-leader', longest: true }]);
    expect(elrHolders(part([], [2, 3], [1]))).toEqual([
      { brokerId: 1, role: 'last-leader', longest: true },
      { brokerId: 2, role: 'last-isr', longest: false },
      { brokerId: 3, role: 'last-isr', longest: false },
    ]);
    expect(elrHolders(part([], [3], []))).toEqual([{ brokerId: 3, role: 'last-isr', longest: true }]);
  });

  it('says nothing when ELR is unknown, the ISR is not empty, or both lists are empty', () => {
    expect(elrHolders(part([]))).toBeNull();
    expect(elrHolders(part([1], [], []))).toBeNull();
    expect(elrHolders(part([], [], []))).toBeNull();
    expect(elrStateText(part([]))).toBeNull();
    expect(elrStateText(part([], [3], [1]))).toBe('ISR empty, ELR [3], last known ELR [1]');
    expect(elrStateText(part([2], [], []))).toBe('ISR [2], ELR empty, last known ELR empty');
  });

  it('states when the return election happens, as the controller does it', () => {
    expect(returnElectionText(true)).toMatch(
      /last known leader even with unclean election disabled \(Kafka 4\.x\): about a second after it starts, or, if its disk was wiped, at the next preferred-leader check \(leader\.imbalance\.check\.interval\.seconds, 300 s by default\)/,
    );
    expect(returnElectionText(false)).toMatch(/still in the ISR: in ZooKeeper mode as soon as it registers; in KRaft about a second after it starts/);
    expect(returnElectionText(true) + returnElectionText(false)).not.toMatch(/within minutes/);
  });
});

describe('leader override with ELR read', () => {
  // Incident 1 on Kafka 4.x: broker 1, the last leader, killed and wiped; brokers 2 and 3 hold 400 and 700.
  const incident = snapshot([2, 3], { orders: [[-1, [1, 2, 3], []]] }, { 'orders-0': { elr: [1], lastKnownElr: [1] } });

  it('names the last known leader as the one holder: the loss is unknown because of it alone, and the plan shows the ELR state', () => {
    const p = plan(planLeaderOverride(incident, { topic: 'orders', partition: 0 }, { replicaData: [down(1), host(2, 400), host(3, 700)], groups: [] }));
    expect(p.params.replica).toBe(3);
    expect(p.impact.loss).toMatchObject({ known: false, unseen: [{ brokerId: 1, role: 'last-leader', problem: 'unmeasured' }] });
    expect(lossHeadline(p.impact.loss!, 3)).toMatch(/the last leader, broker 1, could not be measured/);
    expect(leaderOverride.render.headline(p)[0]).toMatch(/orders-0 has no leader \(replicas 1,2,3, ISR empty, ELR \[1\], last known ELR \[1\]\)/);
    const warnings = warningLines(p).join('\n');
    expect(warnings).toMatch(/Do not start broker 1 before this runs: it is the last known leader \(last known ELR\), and the controller elects it as the last known leader even with unclean election disabled \(Kafka 4\.x\): about a second after it starts, or, if its disk was wiped/);
    expect(warnings).not.toMatch(/within minutes/);
  });

  it('an unmeasured replica outside the ELR and the last known ELR does not make the loss unknown', () => {
    const s = snapshot([1, 3], { orders: [[-1, [1, 2, 3], []]] }, { 'orders-0': { elr: [], lastKnownElr: [1] } });
    const p = plan(planLeaderOverride(s, { topic: 'orders', partition: 0, replica: 3 }, { replicaData: [host(1, 900), down(2), host(3, 700)], groups: [] }));
    expect(p.impact.loss).toMatchObject({ known: true, atLeast: 200 });
    // Without ELR the same state leaves broker 2 as a possible last in-sync replica.
    const blind = snapshot([1, 3], { orders: [[-1, [1, 2, 3], []]] });
    const q = plan(planLeaderOverride(blind, { topic: 'orders', partition: 0, replica: 3 }, { replicaData: [host(1, 900), down(2), host(3, 700)], groups: [] }));
    expect(q.impact.loss).toMatchObject({ known: false, unseen: [{ brokerId: 2, role: 'maybe-last-isr' }] });
  });

  it('a wiped last known leader (empty log next to data elsewhere) is a holder that holds less than was written', () => {
    const s = snapshot([1, 2, 3], { orders: [[-1, [1, 2, 3], []]] }, { 'orders-0': { elr: [], lastKnownElr: [1] } });
    const p = plan(planLeaderOverride(s, { topic: 'orders', partition: 0 }, { replicaData: [{ ...host(1, 0), sizeBytes: 0 }, host(2, 400), host(3, 700)], groups: [] }));
    expect(p.impact.loss).toMatchObject({ known: false, unseen: [{ brokerId: 1, role: 'last-leader', problem: 'shorter' }] });
  });
});
