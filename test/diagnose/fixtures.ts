// Hand-built snapshots and probe reports for the pure detector tests.

import type { ClusterSnapshot, GroupState, PartitionState, TopicConfigSubset, TopicState } from '../../lib/kafka/types.ts';
import type { ExecutionResult, HostProbeOutcome, ProbeReport } from '../../lib/hosts/types.ts';
import { offsetsPartitionFor } from '../../lib/kafka/group-partition.ts';
import type { RestartAssessment } from '../../lib/diagnose/can-restart.ts';

export const config = (over: Partial<TopicConfigSubset> = {}): TopicConfigSubset => ({
  minInsyncReplicas: 2,
  uncleanLeaderElectionEnable: false,
  cleanupPolicy: 'delete',
  segmentBytes: 1073741824,
  ...over,
});

export const part = (partition: number, leader: number, replicas: number[], isr: number[] = replicas, offline: number[] = []): PartitionState => ({
  partition,
  leader,
  replicas,
  isr,
  offlineReplicas: offline,
});

export const topic = (name: string, partitions: PartitionState[], cfg: TopicConfigSubset | null = config()): TopicState => ({
  name,
  internal: name.startsWith('__'),
  partitions,
  config: cfg,
});

/** `n` healthy RF=3 partitions over brokers 1..3, led round-robin. */
export function healthyTopic(name: string, n: number, cfg = config()): TopicState {
  const parts: PartitionState[] = [];
  for (let i = 0; i < n; i++) {
    const replicas = [1 + (i % 3), 1 + ((i + 1) % 3), 1 + ((i + 2) % 3)];
    parts.push(part(i, replicas[0]!, replicas));
  }
  return topic(name, parts, cfg);
}

export function group(groupId: string, over: Partial<GroupState> = {}, offsetsPartitions = 50): GroupState {
  return { groupId, state: 'Stable', protocolType: 'consumer', coordinator: 1, offsetsPartition: offsetsPartitionFor(groupId, offsetsPartitions), error: null, ...over };
}

export function snapshot(topics: TopicState[], over: Partial<ClusterSnapshot> = {}): ClusterSnapshot {
  return {
    takenAt: '2026-01-01T00:00:00.000Z',
    clusterId: 'test',
    controllerId: 1,
    brokers: [1, 2, 3].map((id) => ({ id, host: '127.0.0.1', port: 9090 + id, rack: null })),
    topics,
    groups: [],
    offsetsTopicPartitions: 50,
    unreachableBrokers: [],
    errors: [],
    partial: false,
    ...over,
  };
}

export function healthyCluster(): ClusterSnapshot {
  return snapshot([healthyTopic('__consumer_offsets', 50, config({ cleanupPolicy: 'compact', segmentBytes: 104857600 })), healthyTopic('orders', 12)], {
    groups: [group('billing'), group('search')],
  });
}

export function probeReport(over: Partial<ProbeReport> = {}): ProbeReport {
  return {
    hostname: 'broker-host',
    brokerId: 1,
    collectedAt: '2026-01-01T00:00:00.000Z',
    probeDurationMs: 120,
    kafkaVersion: '4.1.1',
    process: { running: true, pid: 4242, startedAt: null, configPath: '/etc/kafka/server.properties', logsDir: '/opt/kafka/logs' },
    logDirs: [
      {
        path: '/data/kafka-logs',
        exists: true,
        cleanShutdownMarker: false,
        fsType: 'xfs',
        mountPoint: '/data',
        underVarLog: false,
        onTmpfs: false,
        diskUsedPercent: 40,
        diskAvailableBytes: 600 * 1024 ** 3,
        inodeUsedPercent: 3,
        partitionDirCount: 120,
        partitionDirsWithoutSegments: [],
        partitionDirsWithoutSegmentsCount: 0,
      },
    ],
    recoveryInProgress: false,
    logs: {
      uncleanShutdownRecovery: [],
      recoveryProgress: [],
      corruptIndex: [],
      indexAppendFatal: [],
      logCleanerFailure: [],
      uncleanablePartitions: [],
      unsupportedRequestVersion: [],
      consumerOffsetsLoadErrors: [],
    },
    consumerOffsets: [],
    limits: { openFds: 800, maxFds: 100000, mapCount: 2000, maxMapCount: 262144 },
    systemd: { unit: 'kafka.service', activeState: 'active', timeoutStopSec: 600, restarts: 0, lastExitStatus: 0, lastExitCode: 'exited' },
    warnings: [],
    ...over,
  };
}

export function execution(brokerId: number, over: Partial<ExecutionResult> = {}): ExecutionResult {
  return {
    target: { brokerId, address: `/sandbox/broker-${brokerId}` },
    status: 'Success',
    outcome: 'completed',
    exitCode: 0,
    stdout: '{}',
    stderr: '',
    truncated: false,
    commandId: null,
    durationMs: 50,
    ...over,
  };
}

export function okProbe(brokerId: number, over: Partial<ProbeReport> = {}): HostProbeOutcome {
  return { brokerId, ok: true, report: probeReport({ brokerId, hostname: `host-${brokerId}`, ...over }), execution: execution(brokerId) };
}

/** A restart assessment with only what a test cares about set. */
export function restartAssessment(over: Partial<RestartAssessment> & Pick<RestartAssessment, 'brokerId' | 'verdict'>): RestartAssessment {
  return { reasons: [], wouldGoOffline: [], wouldFallBelowMinIsr: [], coordinatorsMoving: [], recovering: null, notes: [], ...over };
}
