// broker-config-drift (preventive, DescribeConfigs): settings that differ across brokers. The audit runs it.

import type { Check, CheckInput } from './check.ts';
import { makeFinding } from '../finding.ts';
import type { Finding } from '../types.ts';
import { DRIFT_CONFIGS, majority } from './broker-config-names.ts';

// The finding kind this check raises (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    'broker-config-drift': true;
  }
}

function brokerConfigDrift({ brokerConfigs }: CheckInput): Finding[] {
  if (!brokerConfigs || brokerConfigs.size < 2) return [];
  const out: Finding[] = [];
  const ids = [...brokerConfigs.keys()].sort((a, b) => a - b);
  for (const name of DRIFT_CONFIGS) {
    const values = ids.map((id) => [id, brokerConfigs.get(id)![name] ?? null] as [number, string | null]);
    if (new Set(values.map(([, v]) => v)).size < 2) continue;
    const common = majority(values);
    const odd = values.filter(([, v]) => v !== common).map(([id]) => id);
    out.push(
      makeFinding({
        kind: 'broker-config-drift',
        severity: 'warning',
        title: `${name} differs across brokers (${values.map(([id, v]) => `${id}=${v ?? 'unset'}`).join(', ')})`,
        summary: `Brokers should agree on ${name}; what a topic gets then depends on which broker created or leads it, and a replaced broker silently changes behaviour.`,
        brokers: odd,
        evidence: values.map(([id, v]) => ({ label: name, value: v ?? 'unset', source: `broker:${id}` })),
        identity: [`config:${name}`],
        nextActions: [`Make ${name} the same in every broker's config (most have ${common ?? 'it unset'}).`],
      }),
    );
  }
  return out;
}

export const brokerConfigDriftCheck: Check = {
  kinds: ['broker-config-drift'],
  needs: ['broker-configs'],
  diagnosis: false,
  preventive: { prevents: 'topics and brokers behaving differently depending on which broker created or leads them' },
  detect: brokerConfigDrift,
};
