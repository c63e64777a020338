// The pure core of a diagnosis: (snapshot, host probe outcomes) → findings,
// most severe first. No I/O here; run.ts gathers the inputs.

import type { ClusterSnapshot } from '../kafka/types.ts';
import type { HostProbeOutcome } from '../hosts/types.ts';
import type { Finding } from './types.ts';
import { sortFindings } from './finding.ts';
import { detectMetadataFindings } from './detectors/metadata.ts';
import { detectCoordinatorLoading } from './detectors/coordinators.ts';
import { detectHostFindings } from './detectors/hosts.ts';
import { detectConsumerFindings } from './detectors/consumers.ts';
import { detectTransactionFindings } from './detectors/transactions.ts';
import type { LagHistorySample } from './lag.ts';

export function detect(snapshot: ClusterSnapshot, probes: readonly HostProbeOutcome[] = [], lagHistory: readonly LagHistorySample[] = []): Finding[] {
  return sortFindings([
    ...detectMetadataFindings(snapshot, probes),
    ...detectCoordinatorLoading(snapshot, probes),
    ...detectHostFindings(snapshot, probes),
    ...detectConsumerFindings(snapshot, lagHistory),
    ...detectTransactionFindings(snapshot),
  ]);
}
