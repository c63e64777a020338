// The one table of checks, diagnosis and preventive audit alike: a new check
// is one file exporting its Check (or a family's Check[]) and one line here.
// The finding kinds, the runbook index and the lists of checks that could not
// run are derived from this table.
//
// Order: findings are sorted by severity wherever they are shown, so order
// only matters for the lists that name checks: the diagnosis's "could not run
// without host access" list and the audit's check list and skip sentences
// follow the table, each over the checks of its own profile.

import { checksOf, checksWithout, type Check } from '../check.ts';
import type { Finding, FindingKind, OperationOffer } from '../types.ts';
import { METADATA_CHECKS } from './metadata.ts';
import { replicationFactorOneCheck } from './replication-factor-one.ts';
import { TOPIC_SETTING_CHECKS } from './topic-settings.ts';
import { BROKER_DRIFT_CHECKS, BROKER_SETTING_CHECKS } from './broker-settings.ts';
import { FENCED_CHECKS } from './fenced.ts';
import { coordinatorLoadingCheck } from './coordinators.ts';
import { FD_MMAP_HEADROOM_CHECK, STOP_TIMEOUT_CHECK } from './host-limits.ts';
import { HOST_PROBE_CHECKS } from './hosts.ts';
import { STORAGE_TREND_CHECKS } from './storage-trend.ts';
import { CONSUMER_CHECKS } from './consumers.ts';
import { TRANSACTION_CHECKS } from './transactions.ts';
import { QUORUM_CHECKS } from './quorum.ts';
import { QUORUM_SHAPE_CHECKS } from './quorum-shape.ts';

export const CHECKS: readonly Check[] = [
  ...METADATA_CHECKS,
  replicationFactorOneCheck,
  ...TOPIC_SETTING_CHECKS,
  ...BROKER_SETTING_CHECKS,
  ...FENCED_CHECKS,
  coordinatorLoadingCheck,
  STOP_TIMEOUT_CHECK,
  ...HOST_PROBE_CHECKS,
  ...STORAGE_TREND_CHECKS,
  FD_MMAP_HEADROOM_CHECK,
  ...BROKER_DRIFT_CHECKS,
  ...CONSUMER_CHECKS,
  ...TRANSACTION_CHECKS,
  ...QUORUM_CHECKS,
  ...QUORUM_SHAPE_CHECKS,
];

/** What a diagnosis runs: what is wrong now. */
export const DIAGNOSIS_CHECKS: readonly Check[] = checksOf(CHECKS, 'diagnosis');
/** What the audit runs: what makes the next failure worse. */
export const PREVENTIVE_CHECKS: readonly Check[] = checksOf(CHECKS, 'preventive');

/** Every finding kind, in table order: each has its runbook, runbooks/<kind>.md (a test holds it). */
export const FINDING_KINDS: readonly FindingKind[] = [...new Set(CHECKS.flatMap((c) => c.kinds))];

/**
 * The diagnosis's checks that need host access (or read it in part), named as
 * the report names skipped checks: derived from each check's `needs` and `uses`.
 */
export const HOST_CHECKS: readonly string[] = checksWithout(DIAGNOSIS_CHECKS, 'hosts');

const CHECK_OF_KIND: ReadonlyMap<FindingKind, Check> = new Map(CHECKS.flatMap((c) => c.kinds.map((k) => [k, c] as const)));

/** The operation a finding offers, as the check that owns its kind declares it. */
export function offerFor(f: Finding): OperationOffer | undefined {
  return CHECK_OF_KIND.get(f.kind)?.offer?.(f);
}
