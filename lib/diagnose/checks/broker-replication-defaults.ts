// broker-replication-defaults (preventive, DescribeConfigs): broker defaults that create under-replicated topics. The audit runs it.

import type { Check, CheckInput } from './check.ts';
import { makeFinding } from '../finding.ts';
import type { Finding } from '../types.ts';

// The finding kind this check raises (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    'broker-replication-defaults': true;
  }
}

export const MIN_OFFSETS_TOPIC_RF = 3;

export const MIN_DEFAULT_RF = 2;

function brokerReplicationDefaults({ brokerConfigs }: CheckInput): Finding[] {
  const out: Finding[] = [];
  for (const [id, c] of brokerConfigs ?? []) {
    const low: string[] = [];
    const offsetsRf = Number(c['offsets.topic.replication.factor']);
    const defaultRf = Number(c['default.replication.factor']);
    if (c['offsets.topic.replication.factor'] != null && offsetsRf < MIN_OFFSETS_TOPIC_RF) low.push(`offsets.topic.replication.factor=${offsetsRf}`);
    if (c['default.replication.factor'] != null && defaultRf < MIN_DEFAULT_RF) low.push(`default.replication.factor=${defaultRf}`);
    if (low.length === 0) continue;
    out.push(
      makeFinding({
        kind: 'broker-replication-defaults',
        severity: 'warning',
        title: `Broker ${id} creates topics with too few replicas (${low.join(', ')})`,
        summary: 'Topics created without an explicit replication factor (and a new __consumer_offsets) get too few copies; removing one broker can then take partitions offline.',
        brokers: [id],
        evidence: low.map((l) => ({ label: l.split('=')[0]!, value: l.split('=')[1]!, source: `broker:${id}` })),
        nextActions: [`Set offsets.topic.replication.factor=${MIN_OFFSETS_TOPIC_RF} and default.replication.factor=3 in broker ${id}'s config.`],
      }),
    );
  }
  return out;
}

export const brokerReplicationDefaultsCheck: Check = { kinds: ['broker-replication-defaults'], needs: ['broker-configs'], diagnosis: false, preventive: { prevents: 'new topics created with a single copy' }, detect: brokerReplicationDefaults };
