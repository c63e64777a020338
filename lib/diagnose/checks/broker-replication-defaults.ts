// broker-replication-defaults (preventive, DescribeConfigs): broker defaults that create under-replicated topics. The audit runs it.

import { renderFinding, type Check, type CheckInput, type Detected, type FindingProse } from './check.ts';

// The finding kind this check raises (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    'broker-replication-defaults': true;
  }
}

export const MIN_OFFSETS_TOPIC_RF = 3;

export const MIN_DEFAULT_RF = 2;

/** What the renderer words: the broker and its settings below the floor, as name=value. */
interface Facts {
  brokerId: number;
  low: string[];
}

function detect({ brokerConfigs }: CheckInput): Detected<Facts>[] {
  const out: Detected<Facts>[] = [];
  for (const [id, c] of brokerConfigs ?? []) {
    const low: string[] = [];
    const offsetsRf = Number(c['offsets.topic.replication.factor']);
    const defaultRf = Number(c['default.replication.factor']);
    if (c['offsets.topic.replication.factor'] != null && offsetsRf < MIN_OFFSETS_TOPIC_RF) low.push(`offsets.topic.replication.factor=${offsetsRf}`);
    if (c['default.replication.factor'] != null && defaultRf < MIN_DEFAULT_RF) low.push(`default.replication.factor=${defaultRf}`);
    if (low.length === 0) continue;
    const evidence = low.map((l) => ({ label: l.split('=')[0]!, value: l.split('=')[1]!, source: `broker:${id}` }));
    out.push({ finding: { kind: 'broker-replication-defaults', severity: 'warning', brokers: [id], evidence }, facts: { brokerId: id, low } });
  }
  return out;
}

function render({ brokerId, low }: Facts): FindingProse {
  return {
    title: `Broker ${brokerId} creates topics with too few replicas (${low.join(', ')})`,
    summary: 'Topics created without an explicit replication factor (and a new __consumer_offsets) get too few copies; removing one broker can then take partitions offline.',
    nextActions: [`Set offsets.topic.replication.factor=${MIN_OFFSETS_TOPIC_RF} and default.replication.factor=3 in broker ${brokerId}'s config.`],
  };
}

export const brokerReplicationDefaultsCheck: Check = { kinds: ['broker-replication-defaults'], needs: ['broker-configs'], diagnosis: false, preventive: { prevents: 'new topics created with a single copy' }, detect: (input) => detect(input).map((d) => renderFinding(d, render)) };
