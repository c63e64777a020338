// Every detector family's table, listed once: a new family (one file
// exporting its Detector[] table) is one line here. Report order does not
// matter (detect() sorts by severity); the skipped-check list keeps this order.

import { checksWithout, type Detector } from '../detector.ts';
import { METADATA_DETECTORS } from './metadata.ts';
import { coordinatorLoadingDetector } from './coordinators.ts';
import { HOST_DETECTORS } from './hosts.ts';
import { CONSUMER_DETECTORS } from './consumers.ts';
import { TRANSACTION_DETECTORS } from './transactions.ts';
import { FENCED_DETECTORS } from './fenced.ts';
import { QUORUM_DETECTORS } from './quorum.ts';

export const DETECTORS: readonly Detector[] = [...METADATA_DETECTORS, ...FENCED_DETECTORS, coordinatorLoadingDetector, ...HOST_DETECTORS, ...CONSUMER_DETECTORS, ...TRANSACTION_DETECTORS, ...QUORUM_DETECTORS];

/**
 * The checks that need host access (or read it in part), named as the report
 * names skipped checks: derived from each detector's `needs` and `uses`.
 */
export const HOST_CHECKS: readonly string[] = checksWithout(DETECTORS, 'hosts');
