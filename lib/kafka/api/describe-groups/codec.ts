// DescribeGroups (API key 15) through kafkajs's encoder and decoder (every
// error code kept: the connection layer drops kafkajs's throwing parse step).
import { kafkajsApi } from '../../protocol/kafkajs.ts';

/** What the snapshot reads of each group (members counted, not inspected). */
export interface RawDescribeGroups {
  groups: { errorCode: number; groupId: string; state: string; protocolType: string; members?: unknown[] }[];
}

export interface RawDescribeGroupsFull {
  groups: { errorCode: number; groupId: string; state: string; protocolType: string; protocol: string; members: { memberId: string }[] }[];
}

export const DescribeGroupsWire = kafkajsApi<{ groupIds: string[] }, RawDescribeGroupsFull>('DescribeGroups');
