// The audit is the checks' table run with the preventive profile
// (lib/diagnose/checks/index.ts): the same snapshot and host probes the
// diagnosis uses, plus broker configs (DescribeConfigs per broker) and, in the
// bot, storage samples kept between runs. Each finding carries the failure it
// prevents. Read-only by construction: nothing here has I/O.

import type { ClusterSnapshot } from '../kafka/types.ts';
import type { HostProbeOutcome } from '../hosts/types.ts';
import { runChecks, type BrokerConfigs, type Check, type CheckSource } from '../diagnose/checks/check.ts';
import { PREVENTIVE_CHECKS } from '../diagnose/checks/index.ts';
import type { StorageSample } from '../diagnose/storage-samples.ts';
import type { Finding, FindingKind } from '../diagnose/types.ts';

export type { BrokerConfigs, CheckSource } from '../diagnose/checks/check.ts';
export { BROKER_CONFIG_NAMES } from '../diagnose/checks/broker-config-names.ts';

export interface AuditInput {
  snapshot: ClusterSnapshot;
  probes: readonly HostProbeOutcome[];
  /** False on clusters without host access (Amazon MSK): host checks are skipped. */
  hostAccess: boolean;
  /** null when no broker answered DescribeConfigs. */
  brokerConfigs: BrokerConfigs | null;
  /** Earlier storage samples (the bot); null in the one-shot CLI: no trend yet. */
  storageHistory: readonly StorageSample[] | null;
  nowMs: number;
}

/** One line of the audit's check list: a kind, the source it looks at, and the failure it prevents. */
export interface AuditCheck {
  kind: FindingKind;
  needs: CheckSource;
  prevents: string;
}

const preventsOf = (c: Check): string => c.preventive?.prevents ?? '';

/** Every check the audit runs, one line per kind, in report order. */
export const AUDIT_CHECKS: readonly AuditCheck[] = PREVENTIVE_CHECKS.flatMap((c) => c.kinds.map((kind) => ({ kind, needs: c.needs[0] ?? 'metadata', prevents: preventsOf(c) })));

/** The sources an audit input holds: host probes and their history only with host access. */
function auditSources(input: Pick<AuditInput, 'hostAccess' | 'brokerConfigs' | 'storageHistory'>): ReadonlySet<CheckSource> {
  const sources = new Set<CheckSource>(['metadata']);
  if (input.hostAccess) sources.add('hosts');
  if (input.brokerConfigs !== null) sources.add('broker-configs');
  if (input.hostAccess && input.storageHistory !== null) sources.add('history');
  return sources;
}

/** Which checks could not run, said plainly. */
export function skippedAuditChecks(input: Pick<AuditInput, 'hostAccess' | 'brokerConfigs' | 'storageHistory'>): string[] {
  const out: string[] = [];
  const kinds = (needs: CheckSource) =>
    AUDIT_CHECKS.filter((c) => c.needs === needs)
      .map((c) => c.kind)
      .join(', ');
  if (!input.hostAccess) out.push(`No host access for this cluster (e.g. Amazon MSK): these checks did not run: ${kinds('hosts')}, ${kinds('history')}.`);
  if (input.brokerConfigs === null) out.push(`No broker answered DescribeConfigs: these checks did not run: ${kinds('broker-configs')}.`);
  if (input.hostAccess && input.storageHistory === null) out.push(`Disk and inode trends: no trend yet (a one-shot run keeps no samples; the scheduled audit does): ${kinds('history')}.`);
  return out;
}

/** Every preventive check over one input; each finding carries the failure it prevents. */
export function runAuditChecks(input: AuditInput, checks: readonly Check[] = PREVENTIVE_CHECKS): Finding[] {
  const outcomes = runChecks(checks, { ...input, lagHistory: [], profile: 'preventive' }, auditSources(input));
  return outcomes.flatMap((o) => (o.status === 'ran' ? o.findings.map((f) => ({ ...f, prevents: preventsOf(o.check) })) : []));
}
