// topic-override-weaker (preventive, DescribeConfigs): topics that override a safer cluster-wide setting. The audit runs it.

import type { Check, CheckInput } from './check.ts';
import { minIsrOf } from '../partition-filters.ts';
import type { Finding } from '../types.ts';
import { topicFinding, userTopics } from './topic-facts.ts';
import { majority } from './broker-config-names.ts';

// The finding kind this check raises (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    'topic-override-weaker': true;
  }
}

function topicOverrideWeaker({ snapshot, brokerConfigs }: CheckInput): Finding[] {
  if (!brokerConfigs || brokerConfigs.size === 0) return [];
  const defaults = [...brokerConfigs];
  const brokerMinIsr = Number(majority(defaults.map(([id, c]) => [id, c['min.insync.replicas'] ?? null])) ?? 1);
  const brokerUnclean = majority(defaults.map(([id, c]) => [id, c['unclean.leader.election.enable'] ?? null])) === 'true';
  return userTopics(snapshot).flatMap((t) => {
    const overrides = t.config?.overrides ?? [];
    const weaker: { label: string; value: string }[] = [];
    if (overrides.includes('min.insync.replicas') && minIsrOf(t) < brokerMinIsr) weaker.push({ label: 'min.insync.replicas', value: `${minIsrOf(t)} (broker default ${brokerMinIsr})` });
    if (overrides.includes('unclean.leader.election.enable') && t.config?.uncleanLeaderElectionEnable && !brokerUnclean) weaker.push({ label: 'unclean.leader.election.enable', value: 'true (broker default false)' });
    if (weaker.length === 0) return [];
    return [
      topicFinding('topic-override-weaker', t, {
        severity: 'warning',
        title: `Topic ${t.name} overrides a safer broker default (${weaker.map((w) => w.label).join(', ')})`,
        summary: `The cluster-wide setting does not protect ${t.name}: its own override is weaker.`,
        evidence: weaker.map((w) => ({ ...w, source: 'topic configs' })),
        nextActions: [`Remove the override unless its owners need it: kafka-configs.sh --alter --entity-type topics --entity-name ${t.name} --delete-config ${weaker[0]!.label}`],
      }),
    ];
  });
}

export const topicOverrideWeakerCheck: Check = { kinds: ['topic-override-weaker'], needs: ['broker-configs'], diagnosis: false, preventive: { prevents: 'a topic left outside the cluster-wide safety settings' }, detect: topicOverrideWeaker };
