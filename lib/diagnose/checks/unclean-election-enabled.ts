// unclean-election-enabled (preventive, topic and broker configs): automatic unclean leader election. The audit runs it.

import { renderFinding, type Check, type CheckInput, type Detected, type FindingProse } from './check.ts';
import { topicParts, userTopics } from './topic-facts.ts';

// The finding kind this check raises (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    'unclean-election-enabled': true;
  }
}

/** What the renderer words: one topic that allows it, or the brokers whose default it is. */
type Facts = { topic: string } | { brokers: number[] };

function detect({ snapshot, brokerConfigs }: CheckInput): Detected<Facts>[] {
  const out: Detected<Facts>[] = userTopics(snapshot)
    .filter((t) => t.config?.uncleanLeaderElectionEnable)
    .map((t) => ({
      finding: { ...topicParts('unclean-election-enabled', t), severity: 'warning', evidence: [{ label: 'unclean.leader.election.enable', value: 'true', source: 'topic configs' }] },
      facts: { topic: t.name },
    }));
  const brokers = [...(brokerConfigs ?? [])].filter(([, c]) => c['unclean.leader.election.enable'] === 'true').map(([id]) => id);
  if (brokers.length > 0) {
    out.push({
      finding: { kind: 'unclean-election-enabled', severity: 'warning', brokers, evidence: [{ label: 'unclean.leader.election.enable', value: 'true', source: 'broker configs' }], identity: ['default'] },
      facts: { brokers },
    });
  }
  return out;
}

function render(facts: Facts): FindingProse {
  if ('topic' in facts) {
    const { topic } = facts;
    return {
      title: `Topic ${topic} allows unclean leader election`,
      summary: `When the ISR of a ${topic} partition is lost, Kafka elects an out-of-sync replica by itself and truncates acknowledged writes on every replica.`,
      nextActions: [`Remove it: kafka-configs.sh --alter --entity-type topics --entity-name ${topic} --delete-config unclean.leader.election.enable`],
    };
  }
  const { brokers } = facts;
  return {
    title: `Unclean leader election is the default on ${brokers.length === 1 ? `broker ${brokers[0]}` : `brokers ${brokers.join(', ')}`}`,
    summary: 'Every topic without its own setting lets Kafka elect an out-of-sync replica and truncate acknowledged writes.',
    nextActions: ['Set unclean.leader.election.enable=false in every broker config (or as the dynamic cluster default).'],
  };
}

export const uncleanElectionEnabledCheck: Check = { kinds: ['unclean-election-enabled'], needs: ['metadata'], diagnosis: false, preventive: { prevents: 'acknowledged writes truncated by an automatic unclean election' }, detect: (input) => detect(input).map((d) => renderFinding(d, render)) };
