// The audit as the CLI, Slack and the schedule run it: the diagnosis's own
// snapshot and host probes (collectDiagnosisInputs), plus each broker's
// configs, then the pure checks. Read-only: DescribeConfigs, Metadata,
// ListGroups… and the read-only host probe; nothing is changed anywhere.

import type { ConnectionConfig } from '../kafka/connection.ts';
import type { DiagnosisReport } from '../diagnose/types.ts';
import { sortFindings } from '../diagnose/finding.ts';
import { collectDiagnosisInputs, diagnosisInputFor, type PassIo } from '../diagnose/run.ts';
import type { ClusterTarget } from '../diagnose/target.ts';
import { errorMessage } from '../runtime/errors.ts';
import { AUDIT_CHECKS, BROKER_CONFIG_NAMES, runAuditChecks, skippedAuditChecks, type BrokerConfigs, type CheckSource } from './preventive.ts';
import { keepRecent, samplesFromProbes, type StorageSample } from '../diagnose/storage-samples.ts';

export type ReadBrokerConfigs = (connection: ConnectionConfig, brokerIds: number[], timeoutMs: number) => Promise<BrokerConfigs>;

export interface AuditReport extends DiagnosisReport {
  /** Every check that ran or was skipped, with the failure it prevents. */
  checks: { kind: string; needs: CheckSource; prevents: string }[];
}

/** Storage samples kept between scheduled runs (the bot); absent in the one-shot CLI. */
export interface StorageHistoryStore {
  load(): Promise<StorageSample[]>;
  save(samples: StorageSample[]): Promise<void>;
}

export interface AuditIo extends PassIo {
  readBrokerConfigs?: ReadBrokerConfigs;
  now?: () => number;
}

async function defaultReadBrokerConfigs(connection: ConnectionConfig, brokerIds: number[], timeoutMs: number): Promise<BrokerConfigs> {
  const { openAdmin } = await import('../kafka/admin.ts');
  const admin = await openAdmin(connection, { timeoutMs });
  try {
    const described = await admin.describeConfigs(brokerIds.map((id) => ({ type: 'broker' as const, name: String(id), names: [...BROKER_CONFIG_NAMES] })));
    const out = new Map<number, Record<string, string | null>>();
    for (const d of described) {
      if (d.errorCode !== 0) continue;
      out.set(Number(d.name), Object.fromEntries(d.entries.map((e) => [e.name, e.value])));
    }
    return out;
  } finally {
    await admin.close();
  }
}

export async function runAudit(target: ClusterTarget, opts: { io?: AuditIo; storage?: StorageHistoryStore | null } = {}): Promise<AuditReport> {
  const io = opts.io ?? {};
  const now = io.now ?? Date.now;
  const started = now();
  // Lag needs no second sample here: the audit judges settings, not live consumers.
  const inputs = await collectDiagnosisInputs({ ...diagnosisInputFor(target), lagWindowMs: 0, ...io });
  const skipped = inputs.skippedChecks.filter((s) => !s.startsWith('No host access'));

  let brokerConfigs: BrokerConfigs | null = null;
  try {
    const configs = await (io.readBrokerConfigs ?? defaultReadBrokerConfigs)(target.connection, inputs.snapshot.brokers.map((b) => b.id), target.timeoutMs);
    brokerConfigs = configs.size > 0 ? configs : null;
  } catch (err) {
    skipped.push(`Broker configs could not be read: ${errorMessage(err)}`);
  }

  let storageHistory: StorageSample[] | null = null;
  if (opts.storage && target.executor) {
    try {
      storageHistory = keepRecent(await opts.storage.load(), started);
    } catch (err) {
      skipped.push(`Storage history could not be read (${errorMessage(err)}): no trend this run.`);
    }
  }
  const hostAccess = target.executor !== null;
  const input = { snapshot: inputs.snapshot, probes: inputs.probes, hostAccess, brokerConfigs, storageHistory, nowMs: started };
  const findings = sortFindings(runAuditChecks(input));
  if (opts.storage && storageHistory !== null) {
    await opts.storage.save(keepRecent([...storageHistory, ...samplesFromProbes(inputs.probes, started)], started)).catch((err: unknown) => {
      skipped.push(`Storage samples could not be saved: ${errorMessage(err)}`);
    });
  }
  return {
    cluster: target.name,
    startedAt: new Date(started).toISOString(),
    durationMs: now() - started,
    findings,
    skippedChecks: [...skippedAuditChecks(input), ...skipped],
    partial: inputs.snapshot.partial,
    snapshotErrors: inputs.snapshot.errors.slice(0, 20),
    checks: AUDIT_CHECKS.map((c) => ({ kind: c.kind, needs: c.needs, prevents: c.prevents })),
  };
}
