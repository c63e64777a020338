// What the APIs sent through kafkajs's encoders decode to (lib/kafka/wire.ts),
// every error code kept.
import type { ListGroupsResult } from './protocol/list-groups.ts';

export interface RawMetadata {
  brokers: { nodeId: number; host: string; port: number; rack: string | null }[];
  clusterId: string | null;
  controllerId: number;
  topicMetadata: {
    topicErrorCode: number;
    topic: string;
    isInternal: boolean;
    partitionMetadata: {
      partitionErrorCode: number;
      partitionId: number;
      leader: number;
      replicas: number[];
      isr: number[];
      offlineReplicas?: number[];
    }[];
  }[];
}

/** ListGroups at the highest version both sides have (ours, lib/kafka/protocol/list-groups.ts: v5 carries each group's state and type). */
export type RawListGroups = ListGroupsResult;

export interface RawDescribeGroups {
  groups: { errorCode: number; groupId: string; state: string; protocolType: string; members?: unknown[] }[];
}

export interface RawDescribeConfigs {
  resources: {
    errorCode: number;
    errorMessage: string | null;
    resourceType: number;
    resourceName: string;
    /** configSource is decoded from DescribeConfigs v1 on (1 = set on the topic itself). */
    configEntries: { configName: string; configValue: string | null; configSource?: number }[];
  }[];
}

export interface RawReassignments {
  errorCode: number;
  topics: { name: string; partitions: { partition: number; replicas: number[]; addingReplicas: number[]; removingReplicas: number[] }[] }[];
}

export const TOPIC_RESOURCE_TYPE = 2;

/** kafkajs's DescribeConfigs v1+ entry (the version negotiated with every broker from 2.0 on). */
export interface RawConfigEntry {
  configName: string;
  configValue: string | null;
  readOnly: boolean;
  isDefault: boolean;
  /** ConfigSource id: 1 dynamic topic, 2 dynamic broker, 3 dynamic default broker, 4 static broker, 5 default, 6 dynamic broker logger. */
  configSource: number;
  isSensitive: boolean;
}

export interface RawFindCoordinator {
  errorCode: number;
  errorMessage?: string | null;
  coordinator: { nodeId: number; host: string; port: number };
}

export interface RawDescribeGroupsFull {
  groups: { errorCode: number; groupId: string; state: string; protocolType: string; protocol: string; members: { memberId: string }[] }[];
}

export interface RawOffsetCommit {
  responses: { topic: string; partitions: { partition: number; errorCode: number }[] }[];
}
