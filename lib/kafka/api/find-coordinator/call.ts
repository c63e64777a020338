// FindCoordinator (API key 10): a group's or a transactional id's coordinator,
// one key per request (kafkajs implements v0-v2; v1+ carries the key type).
import { FindCoordinatorWire, type RawFindCoordinator } from './codec.ts';
import { describeError, KafkaErrorCode } from '../../errors.ts';
import { COORDINATOR_TYPE, type AdminApi, type CoordinatorKey } from '../../router/spec.ts';


export interface Coordinator {
  errorCode: number;
  error: string | null;
  /** -1 when errorCode is set. */
  nodeId: number;
  address: { host: string; port: number } | null;
}

export const FindCoordinator: AdminApi<CoordinatorKey, { groupId: string; coordinatorType: number }, RawFindCoordinator, Coordinator> = {
  name: 'FindCoordinator',
  api: FindCoordinatorWire,
  route: { to: 'any' },
  // kafkajs names the key groupId whatever its type.
  build: ({ key, type }) => ({ groupId: key, coordinatorType: COORDINATOR_TYPE[type] }),
  toResults(res) {
    if (res.errorCode !== KafkaErrorCode.NONE) return { errorCode: res.errorCode, error: describeError(res.errorCode, res.errorMessage), nodeId: -1, address: null };
    const { nodeId, host, port } = res.coordinator;
    return { errorCode: KafkaErrorCode.NONE, error: null, nodeId, address: { host, port } };
  },
  label: ({ key }) => `FindCoordinator ${key}`,
};
