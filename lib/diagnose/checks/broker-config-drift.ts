// broker-config-drift (preventive, DescribeConfigs): settings that differ across brokers. The audit runs it.

import { renderFinding, type Check, type CheckInput, type Detected, type FindingProse } from './check.ts';
import { DRIFT_CONFIGS, majority } from './broker-config-names.ts';

// The finding kind this check raises (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    'broker-config-drift': true;
  }
}

/** What the renderer words: the setting, each broker's value (null: unset), and the value most brokers have. */
interface Facts {
  name: string;
  values: [number, string | null][];
  common: string | null;
}

function detect({ brokerConfigs }: CheckInput): Detected<Facts>[] {
  if (!brokerConfigs || brokerConfigs.size < 2) return [];
  const out: Detected<Facts>[] = [];
  const ids = [...brokerConfigs.keys()].sort((a, b) => a - b);
  for (const name of DRIFT_CONFIGS) {
    const values = ids.map((id) => [id, brokerConfigs.get(id)![name] ?? null] as [number, string | null]);
    if (new Set(values.map(([, v]) => v)).size < 2) continue;
    const common = majority(values);
    const odd = values.filter(([, v]) => v !== common).map(([id]) => id);
    const evidence = values.map(([id, v]) => ({ label: name, value: v ?? 'unset', source: `broker:${id}` }));
    out.push({ finding: { kind: 'broker-config-drift', severity: 'warning', brokers: odd, evidence, identity: [`config:${name}`] }, facts: { name, values, common } });
  }
  return out;
}

function render({ name, values, common }: Facts): FindingProse {
  return {
    title: `${name} differs across brokers (${values.map(([id, v]) => `${id}=${v ?? 'unset'}`).join(', ')})`,
    summary: `Brokers should agree on ${name}; what a topic gets then depends on which broker created or leads it, and a replaced broker silently changes behaviour.`,
    nextActions: [`Make ${name} the same in every broker's config (most have ${common ?? 'it unset'}).`],
  };
}

export const brokerConfigDriftCheck: Check = {
  kinds: ['broker-config-drift'],
  needs: ['broker-configs'],
  diagnosis: false,
  preventive: { prevents: 'topics and brokers behaving differently depending on which broker created or leads them' },
  detect: (input) => detect(input).map((d) => renderFinding(d, render)),
};
