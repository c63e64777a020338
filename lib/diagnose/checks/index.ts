// The one table of checks, diagnosis and preventive audit alike: a new check
// is one file exporting its Check and one line here (one line per check).
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
import { offlinePartitionCheck } from './offline-partition.ts';
import { underMinIsrCheck } from './under-min-isr.ts';
import { underReplicatedCheck } from './under-replicated.ts';
import { isrSingleReplicaCheck } from './isr-single-replica.ts';
import { brokerUnreachableCheck } from './broker-unreachable.ts';
import { replicationFactorOneCheck } from './replication-factor-one.ts';
import { minIsrNotBelowRfCheck } from './min-isr-not-below-rf.ts';
import { minIsrOneCheck } from './min-isr-one.ts';
import { uncleanElectionEnabledCheck } from './unclean-election-enabled.ts';
import { internalTopicUnsafeCheck } from './internal-topic-unsafe.ts';
import { brokerReplicationDefaultsCheck } from './broker-replication-defaults.ts';
import { brokerFencedCheck } from './broker-fenced.ts';
import { coordinatorLoadingCheck } from './coordinator-loading.ts';
import { stopTimeoutBelowShutdownCheck } from './stop-timeout-below-shutdown.ts';
import { uncleanShutdownRecoveryCheck } from './unclean-shutdown-recovery.ts';
import { corruptIndexCheck } from './corrupt-index.ts';
import { indexAppendFatalCheck } from './index-append-fatal.ts';
import { logCleanerStalledCheck } from './log-cleaner-stalled.ts';
import { consumerOffsetsOversizedCheck } from './consumer-offsets-oversized.ts';
import { unsupportedRequestVersionCheck } from './unsupported-request-version.ts';
import { missingSegmentsCheck } from './missing-segments.ts';
import { riskyLogDirCheck } from './risky-log-dir.ts';
import { diskPressureCheck } from './disk-pressure.ts';
import { inodePressureCheck } from './inode-pressure.ts';
import { fdPressureCheck } from './fd-pressure.ts';
import { mmapPressureCheck } from './mmap-pressure.ts';
import { shortStopTimeoutCheck } from './short-stop-timeout.ts';
import { brokerCrashLoopCheck } from './broker-crash-loop.ts';
import { probeFailuresCheck } from './probe-failure.ts';
import { diskTrendFullCheck } from './disk-trend-full.ts';
import { inodeTrendFullCheck } from './inode-trend-full.ts';
import { fdMmapHeadroomCheck } from './fd-mmap-headroom.ts';
import { brokerConfigDriftCheck } from './broker-config-drift.ts';
import { topicOverrideWeakerCheck } from './topic-override-weaker.ts';
import { consumerOffsetBelowLogStartCheck } from './consumer-offset-below-log-start.ts';
import { consumerOffsetAboveLogEndCheck } from './consumer-offset-above-log-end.ts';
import { consumerLagCheck } from './consumer-lag.ts';
import { transactionCheck } from './transactions.ts';
import { quorumCheck } from './controller-quorum.ts';
import { quorumSizeUnsafeCheck } from './quorum-size-unsafe.ts';
import { quorumStaticVotersCheck } from './quorum-static-voters.ts';

export const CHECKS: readonly Check[] = [
  offlinePartitionCheck,
  underMinIsrCheck,
  underReplicatedCheck,
  isrSingleReplicaCheck,
  brokerUnreachableCheck,
  replicationFactorOneCheck,
  minIsrNotBelowRfCheck,
  minIsrOneCheck,
  uncleanElectionEnabledCheck,
  internalTopicUnsafeCheck,
  brokerReplicationDefaultsCheck,
  brokerFencedCheck,
  coordinatorLoadingCheck,
  stopTimeoutBelowShutdownCheck,
  uncleanShutdownRecoveryCheck,
  corruptIndexCheck,
  indexAppendFatalCheck,
  logCleanerStalledCheck,
  consumerOffsetsOversizedCheck,
  unsupportedRequestVersionCheck,
  missingSegmentsCheck,
  riskyLogDirCheck,
  diskPressureCheck,
  inodePressureCheck,
  fdPressureCheck,
  mmapPressureCheck,
  shortStopTimeoutCheck,
  brokerCrashLoopCheck,
  probeFailuresCheck,
  diskTrendFullCheck,
  inodeTrendFullCheck,
  fdMmapHeadroomCheck,
  brokerConfigDriftCheck,
  topicOverrideWeakerCheck,
  consumerOffsetBelowLogStartCheck,
  consumerOffsetAboveLogEndCheck,
  consumerLagCheck,
  transactionCheck,
  quorumCheck,
  quorumSizeUnsafeCheck,
  quorumStaticVotersCheck,
];

export const { DIAGNOSIS_CHECKS, PREVENTIVE_CHECKS, FINDING_KINDS, HOST_CHECKS, offerFor } = checkTable(CHECKS);

/** The diagnosis's checks that cannot run without host access, in table order. */
export const HOST_PROBE_CHECKS: readonly Check[] = DIAGNOSIS_CHECKS.filter((c) => c.needs.includes('hosts'));
