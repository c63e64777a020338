import { describe, expect, it } from 'vitest';
import { classifyLogLine, isClusterMetadataLine, LOG_PATTERNS, partitionOfPath } from '../../lib/hosts/log-patterns.ts';
import { CASES, D, TS } from './log-pattern-cases.ts';

describe('classifyLogLine: every Kafka wording from 0.11 to 4.x', () => {
  it.each(CASES)('%s: %s', (_version, line, kind, groups) => {
    const c = classifyLogLine(line);
    expect(c?.kind).toBe(kind);
    if (groups) expect(c?.groups).toMatchObject(groups);
  });

  it('every pattern is exercised by at least one case', () => {
    const used = new Set<string>();
    for (const [, line] of CASES) {
      const hit = LOG_PATTERNS.find((p) => p.regex.test(line));
      if (hit) used.add(hit.regex.source);
    }
    const unused = LOG_PATTERNS.filter((p) => !used.has(p.regex.source)).map((p) => `${p.kind} ${p.versions}`);
    expect(unused).toEqual([]);
  });
});

describe('classifyLogLine: lines that must not match', () => {
  it.each([
    `${TS} INFO [BrokerServer id=1] Transition from SHUTDOWN to STARTING (kafka.server.BrokerServer)`,
    `${TS} INFO Config change notification has unsupported version 3 (kafka.server.ZkConfigManager)`,
    `${TS} INFO [kafka-log-cleaner-thread-0]: Stopped (kafka.log.LogCleaner)`,
    `${TS} INFO Scheduling loading of metadata from __transaction_state-3 with epoch 2 (org.apache.kafka.coordinator.common.runtime.CoordinatorRuntime)`,
    `${TS} INFO [LogLoader partition=A-34, dir=${D}] Loading producer state till offset 0 (org.apache.kafka.storage.internals.log.UnifiedLog)`,
    `${TS} ERROR Error due to duplicate config keys (kafka.server.ConfigAdminManager)`,
  ])('%s', (line) => {
    expect(classifyLogLine(line)).toBeNull();
  });

  it('keeps the 4.x corrupt-index wording apart from the 1.1–3.9 one (stray brace)', () => {
    const old = classifyLogLine(CASES.find(([v, , k]) => v === '3.5' && k === 'corrupt-index')![1]);
    const modern = classifyLogLine(CASES.find(([v, , k]) => v === '4.1' && k === 'corrupt-index')![1]);
    expect(old?.versions).toBe('1.1–3.9');
    expect(modern?.versions).toBe('4.x');
  });
});

describe('helpers', () => {
  it('recognises KRaft metadata log lines', () => {
    expect(isClusterMetadataLine(`[LogLoader partition=__cluster_metadata-0, dir=${D}] Recovering unflushed segment 0`)).toBe(true);
    expect(isClusterMetadataLine(`[LogLoader partition=A-0, dir=${D}] Recovering unflushed segment 0`)).toBe(false);
  });
  it('finds the partition directory of a segment path', () => {
    expect(partitionOfPath(`${D}/__consumer_offsets-7/00000000000000001200.log`)).toBe('__consumer_offsets-7');
    expect(partitionOfPath('00000000000000001200.log')).toBeNull();
  });
});
