// topic-override-weaker (preventive, DescribeConfigs): topics that override a safer cluster-wide setting. The audit runs it.

import { renderFinding, type Check, type CheckInput, type Detected, type FindingProse } from './check.ts';
import { minIsrOf } from '../partition-filters.ts';
import { topicParts, userTopics } from './topic-facts.ts';
import { majority } from './broker-config-names.ts';

// The finding kind this check raises (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    'topic-override-weaker': true;
  }
}

/** What the renderer words: the topic and the settings its override weakens. */
interface Facts {
  topic: string;
  weaker: string[];
}

function detect({ snapshot, brokerConfigs }: CheckInput): Detected<Facts>[] {
  if (!brokerConfigs || brokerConfigs.size === 0) return [];
  const defaults = [...brokerConfigs];
  const brokerMinIsr = Number(majority(defaults.map(([id, c]) => [id, c['min.insync.replicas'] ?? null])) ?? 1);
  const brokerUnclean = majority(defaults.map(([id, c]) => [id, c['unclean.leader.election.enable'] ?? null])) === 'true';
  return userTopics(snapshot).flatMap((t): Detected<Facts>[] => {
    const overrides = t.config?.overrides ?? [];
    const weaker: { label: string; value: string }[] = [];
    if (overrides.includes('min.insync.replicas') && minIsrOf(t) < brokerMinIsr) weaker.push({ label: 'min.insync.replicas', value: `${minIsrOf(t)} (broker default ${brokerMinIsr})` });
    if (overrides.includes('unclean.leader.election.enable') && t.config?.uncleanLeaderElectionEnable && !brokerUnclean) weaker.push({ label: 'unclean.leader.election.enable', value: 'true (broker default false)' });
    if (weaker.length === 0) return [];
    const evidence = weaker.map((w) => ({ ...w, source: 'topic configs' }));
    return [{ finding: { ...topicParts('topic-override-weaker', t), severity: 'warning', evidence }, facts: { topic: t.name, weaker: weaker.map((w) => w.label) } }];
  });
}

function render({ topic, weaker }: Facts): FindingProse {
  return {
    title: `Topic ${topic} overrides a safer broker default (${weaker.join(', ')})`,
    summary: `The cluster-wide setting does not protect ${topic}: its own override is weaker.`,
    nextActions: [`Remove the override unless its owners need it: kafka-configs.sh --alter --entity-type topics --entity-name ${topic} --delete-config ${weaker[0]!}`],
  };
}

export const topicOverrideWeakerCheck: Check = { kinds: ['topic-override-weaker'], needs: ['broker-configs'], diagnosis: false, preventive: { prevents: 'a topic left outside the cluster-wide safety settings' }, detect: (input) => detect(input).map((d) => renderFinding(d, render)) };
