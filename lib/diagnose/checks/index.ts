// The one table of checks, diagnosis and preventive audit alike: a new check
// is one file exporting its Check (or a family's Check[]) and one line here.
// Everything else is derived from this table (check.ts checkTable): each
// profile's checks, the finding kinds and so the runbook index (a test fails
// when a kind has no runbooks/<kind>.md), the lists of checks that could not
// run, and the Slack buttons (each check's offer).
//
// To add a check: write checks/<name>.ts exporting a Check (check.ts): the
// finding kinds it raises (also added to FindingKindRegistry there, see
// replication-factor-one.ts), the sources it needs, `preventive` when the audit
// runs it, `diagnosis: false` when only the audit does, a pure detect(), and
// offer() when its finding's button plans an operation; add runbooks/<kind>.md
// and one line below. test/diagnose/toy-registration.test.ts does exactly this.
//
// Order: findings are sorted by severity wherever they are shown, so order
// only matters for the lists that name checks: the diagnosis's "could not run
// without host access" list and the audit's check list and skip sentences
// follow the table, each over the checks of its own profile.

import { checkTable, type Check } from './check.ts';
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

export const { DIAGNOSIS_CHECKS, PREVENTIVE_CHECKS, FINDING_KINDS, HOST_CHECKS, offerFor } = checkTable(CHECKS);
