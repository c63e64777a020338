// FindCoordinator (API key 10) through kafkajs's encoder and decoder (v0-v2;
// kafkajs calls it GroupCoordinator and names the key groupId whatever its type).
import { kafkajsApi } from '../../protocol/kafkajs.ts';

export interface RawFindCoordinator {
  errorCode: number;
  errorMessage?: string | null;
  coordinator: { nodeId: number; host: string; port: number };
}

export const FindCoordinatorWire = kafkajsApi<{ groupId: string; coordinatorType: number }, RawFindCoordinator>('GroupCoordinator', 'FindCoordinator');
