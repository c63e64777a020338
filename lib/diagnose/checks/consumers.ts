// Every consumer check over one snapshot, in table order: what the consumer
// detector tests run. Helpers only: no check lives here (each is its own file).

import type { ClusterSnapshot } from '../../kafka/types.ts';
import type { Finding } from '../types.ts';
import type { LagHistorySample } from '../lag-verdict.ts';
import { findingsOf, runChecks, type Check } from './check.ts';
import { consumerOffsetBelowLogStartCheck } from './consumer-offset-below-log-start.ts';
import { consumerOffsetAboveLogEndCheck } from './consumer-offset-above-log-end.ts';
import { consumerLagCheck } from './consumer-lag.ts';

const CONSUMER_CHECKS: readonly Check[] = [consumerOffsetBelowLogStartCheck, consumerOffsetAboveLogEndCheck, consumerLagCheck];

export function detectConsumerFindings(snapshot: ClusterSnapshot, history: readonly LagHistorySample[] = []): Finding[] {
  return findingsOf(runChecks(CONSUMER_CHECKS, { snapshot, probes: [], lagHistory: history }));
}
