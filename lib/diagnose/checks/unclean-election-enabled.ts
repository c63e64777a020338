// unclean-election-enabled (preventive, topic and broker configs): automatic unclean leader election. The audit runs it.

import type { Check, CheckInput } from './check.ts';
import { makeFinding } from '../finding.ts';
import type { Finding } from '../types.ts';
import { topicFinding, userTopics } from './topic-facts.ts';

// The finding kind this check raises (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    'unclean-election-enabled': true;
  }
}

function uncleanElection({ snapshot, brokerConfigs }: CheckInput): Finding[] {
  const out = userTopics(snapshot)
    .filter((t) => t.config?.uncleanLeaderElectionEnable)
    .map((t) =>
      topicFinding('unclean-election-enabled', t, {
        severity: 'warning',
        title: `Topic ${t.name} allows unclean leader election`,
        summary: `When the ISR of a ${t.name} partition is lost, Kafka elects an out-of-sync replica by itself and truncates acknowledged writes on every replica.`,
        evidence: [{ label: 'unclean.leader.election.enable', value: 'true', source: 'topic configs' }],
        nextActions: [`Remove it: kafka-configs.sh --alter --entity-type topics --entity-name ${t.name} --delete-config unclean.leader.election.enable`],
      }),
    );
  const brokers = [...(brokerConfigs ?? [])].filter(([, c]) => c['unclean.leader.election.enable'] === 'true').map(([id]) => id);
  if (brokers.length > 0) {
    out.push(
      makeFinding({
        kind: 'unclean-election-enabled',
        severity: 'warning',
        title: `Unclean leader election is the default on ${brokers.length === 1 ? `broker ${brokers[0]}` : `brokers ${brokers.join(', ')}`}`,
        summary: 'Every topic without its own setting lets Kafka elect an out-of-sync replica and truncate acknowledged writes.',
        brokers,
        evidence: [{ label: 'unclean.leader.election.enable', value: 'true', source: 'broker configs' }],
        identity: ['default'],
        nextActions: ['Set unclean.leader.election.enable=false in every broker config (or as the dynamic cluster default).'],
      }),
    );
  }
  return out;
}

export const uncleanElectionEnabledCheck: Check = { kinds: ['unclean-election-enabled'], needs: ['metadata'], diagnosis: false, preventive: { prevents: 'acknowledged writes truncated by an automatic unclean election' }, detect: uncleanElection };
