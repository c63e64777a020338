// Small pieces several kinds share: settings read from the cluster config.
import type { OperationIo } from './kind.ts';
import { DEFAULT_THROTTLE_BYTES_PER_SEC } from './validate.ts';

/** The replication throttle for this cluster's reassignments (operations.throttleBytesPerSec). */
export function throttleSetting(io: OperationIo): { throttleBytesPerSec: number } {
  return { throttleBytesPerSec: io.cluster?.operations?.throttleBytesPerSec ?? DEFAULT_THROTTLE_BYTES_PER_SEC };
}
