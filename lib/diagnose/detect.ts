// The pure core of a diagnosis: (snapshot, host probe outcomes) → findings,
// most severe first. No I/O here; run.ts gathers the inputs.

import type { ClusterSnapshot } from '../kafka/types.ts';
import type { HostProbeOutcome } from '../hosts/types.ts';
import type { Finding } from './types.ts';
import { sortFindings } from './finding.ts';
import { findingsOf, runChecks, type CheckOutcome } from './checks/check.ts';
import { DIAGNOSIS_CHECKS } from './checks/index.ts';
import type { LagHistorySample } from './lag-verdict.ts';

/** Every check's outcome: what it found, or that it was skipped and for want of what. */
export function detectOutcomes(snapshot: ClusterSnapshot, probes: readonly HostProbeOutcome[] = [], lagHistory: readonly LagHistorySample[] = []): CheckOutcome[] {
  return runChecks(DIAGNOSIS_CHECKS, { snapshot, probes, lagHistory });
}

export function detect(snapshot: ClusterSnapshot, probes: readonly HostProbeOutcome[] = [], lagHistory: readonly LagHistorySample[] = []): Finding[] {
  return sortFindings(findingsOf(detectOutcomes(snapshot, probes, lagHistory)));
}
