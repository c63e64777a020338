// The operation script against fake kafka tools that record what they were
// given: the JSON the script writes, and that hostile values never reach a tool.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  OPERATION_SCRIPT,
  cliArgs,
  parseElection,
  parseReassignmentList,
  parseReassignmentVerify,
  parseTopicDescribe,
} from '../../lib/operations/index.ts';

let dir: string;
let bin: string;
const host = () => ({ kafkaBin: bin, bootstrap: '127.0.0.1:9092,127.0.0.1:9093' });

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'kr-ops-cli-'));
  bin = join(dir, 'bin');
  spawnSync('mkdir', ['-p', bin]);
  // Each fake tool logs its argv and the content of any JSON file it was handed.
  const fake = `#!/usr/bin/env bash
echo "tool=$(basename "$0")" >> "${dir}/calls.log"
for a in "$@"; do echo "arg=$a" >> "${dir}/calls.log"; case "$a" in *.json) echo "json=$(cat "$a")" >> "${dir}/calls.log";; esac; done
echo "Successfully started partition reassignment for t-0"
`;
  for (const tool of ['kafka-topics.sh', 'kafka-reassign-partitions.sh', 'kafka-leader-election.sh']) {
    writeFileSync(join(bin, tool), fake);
    chmodSync(join(bin, tool), 0o755);
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function runScript(args: string[]) {
  rmSync(join(dir, 'calls.log'), { force: true });
  const r = spawnSync('bash', ['-s', '--', ...args], { input: OPERATION_SCRIPT, encoding: 'utf8' });
  const calls = existsSync(join(dir, 'calls.log')) ? readFileSync(join(dir, 'calls.log'), 'utf8') : '';
  return { status: r.status, stderr: r.stderr, calls };
}

describe('operation script', () => {
  it('writes the reassignment JSON from arguments and passes the throttle', () => {
    const args = cliArgs(host(), {
      action: 'reassign-execute',
      throttleBytesPerSec: 1048576,
      additional: false,
      partitions: [
        { topic: 'orders', partition: 0, replicas: [3, 2] },
        { topic: 'a.b_c-d', partition: 12, replicas: [1, 2, 3] },
      ],
    });
    expect(args).toEqual([bin, '127.0.0.1:9092,127.0.0.1:9093', 'reassign-execute', '1048576', 'new', 'orders:0:3,2', 'a.b_c-d:12:1,2,3']);
    const r = runScript(args);
    expect(r.status).toBe(0);
    const json = /json=(.*)/.exec(r.calls)![1]!;
    expect(JSON.parse(json)).toEqual({
      version: 1,
      partitions: [
        { topic: 'orders', partition: 0, replicas: [3, 2] },
        { topic: 'a.b_c-d', partition: 12, replicas: [1, 2, 3] },
      ],
    });
    expect(r.calls).toMatch(/arg=--execute\narg=--throttle\narg=1048576/);
    expect(r.calls).not.toContain('--additional');
  });

  it('runs no throttle when none is planned, and writes the election JSON', () => {
    const plain = runScript(cliArgs(host(), { action: 'reassign-execute', throttleBytesPerSec: null, additional: true, partitions: [{ topic: 't', partition: 0, replicas: [1] }] }));
    expect(plain.calls).not.toContain('--throttle');
    expect(plain.calls).toMatch(/arg=--execute\narg=--additional/);
    const r = runScript(cliArgs(host(), { action: 'elect', electionType: 'unclean', partitions: [{ topic: 't', partition: 4 }] }));
    expect(r.calls).toContain('tool=kafka-leader-election.sh');
    expect(r.calls).toMatch(/arg=--election-type\narg=unclean/);
    expect(JSON.parse(/json=(.*)/.exec(r.calls)![1]!)).toEqual({ partitions: [{ topic: 't', partition: 4 }] });
  });

  it.each([
    ['a topic with a quote', ['reassign-execute', '0', 'new', 't";touch /tmp/pwned;":0:1']],
    ['an unknown reassignment mode', ['reassign-execute', '0', '--bogus', 't:0:1']],
    ['a topic with a space', ['elect', 'unclean', 'a b:0']],
    ['a replica list with text', ['reassign-verify', 't:0:1,2;id']],
    ['a partition that is not a number', ['elect', 'preferred', 't:$(id)']],
    ['an unknown election type', ['elect', 'random', 't:0']],
    ['an unknown action', ['rm', '-rf']],
    ['the topic ..', ['describe', '..']],
  ])('refuses %s before any tool runs', (_, rest) => {
    const r = runScript([bin, '127.0.0.1:9092', ...rest]);
    expect(r.status).toBe(64);
    expect(r.calls).toBe('');
  });

  it('refuses a bad bin dir or bootstrap', () => {
    expect(runScript(['relative/bin', '127.0.0.1:9092', 'reassign-list']).status).toBe(64);
    expect(runScript([bin, '127.0.0.1:9092;id', 'reassign-list']).status).toBe(64);
  });

  it('cliArgs throws on values that are not what they claim', () => {
    expect(() => cliArgs(host(), { action: 'describe', topics: ['a;b'] })).toThrow(/invalid topic/);
    expect(() => cliArgs(host(), { action: 'elect', electionType: 'unclean', partitions: [{ topic: 't', partition: -1 }] })).toThrow(/integer/);
    expect(() => cliArgs({ kafkaBin: 'bin', bootstrap: 'x:1' }, { action: 'reassign-list' })).toThrow(/absolute path/);
    expect(() => cliArgs({ kafkaBin: '/opt/kafka/bin', bootstrap: 'x:1 y' }, { action: 'reassign-list' })).toThrow(/bootstrap/);
    expect(() => cliArgs(host(), { action: 'reassign-execute', throttleBytesPerSec: null, additional: false, partitions: [] })).toThrow(/no partitions/);
  });
});

// Output captured from Kafka 4.1.1 on the sandbox.
describe('parsers (Kafka 4.1.1 output)', () => {
  it('kafka-topics.sh --describe, leaderless with ELR and during a reassignment', () => {
    const text = [
      'Topic: exp1\tTopicId: UoSGuI1lTAKgiyi59LoJjQ\tPartitionCount: 1\tReplicationFactor: 3\tConfigs: min.insync.replicas=1,unclean.leader.election.enable=false',
      '\tTopic: exp1\tPartition: 0\tLeader: none\tReplicas: 3,2,1\tIsr: \tAdding Replicas: \tRemoving Replicas: 1\tElr: 1\tLastKnownElr: 1',
      '\tTopic: exp1\tPartition: 1\tLeader: 3\tReplicas: 3,2\tIsr: 3,2\tElr: \tLastKnownElr: ',
    ].join('\n');
    expect(parseTopicDescribe(text)).toEqual([
      { topic: 'exp1', partition: 0, leader: -1, replicas: [3, 2, 1], isr: [], adding: [], removing: [1], elr: [1], lastKnownElr: [1] },
      { topic: 'exp1', partition: 1, leader: 3, replicas: [3, 2], isr: [3, 2], adding: [], removing: [], elr: [], lastKnownElr: [] },
    ]);
  });
  it('3.9-style describe without ELR fields', () => {
    const [p] = parseTopicDescribe('\tTopic: t\tPartition: 2\tLeader: 1\tReplicas: 1,2\tIsr: 1');
    expect(p).toMatchObject({ partition: 2, leader: 1, elr: null, lastKnownElr: null });
  });
  it('kafka-reassign-partitions.sh --list and --verify', () => {
    expect(parseReassignmentList('Current partition reassignments:\nexp1-0: replicas: 3,2,1. removing: 1.\nmy-topic-12: replicas: 1,2,3. adding: 3.\n')).toEqual([
      { topic: 'exp1', partition: 0, replicas: [3, 2, 1], adding: [], removing: [1] },
      { topic: 'my-topic', partition: 12, replicas: [1, 2, 3], adding: [3], removing: [] },
    ]);
    expect(parseReassignmentList('No partition reassignments found.')).toEqual([]);
    expect(parseReassignmentList('Error: connection refused')).toBeNull();
    const v = parseReassignmentVerify(
      'Status of partition reassignment:\nReassignment of partition t-0 is completed.\nReassignment of partition t-1 is still in progress.\n' +
        'There is no active reassignment of partition exp1-0, but replica set is 1,2,3 rather than 3,2,1.\n\nClearing broker-level throttles on brokers 1,2,3\nClearing topic-level throttles on topic t',
    );
    expect(Object.fromEntries(v.partitions)).toEqual({ 't-0': 'complete', 't-1': 'in-progress', 'exp1-0': 'not-running-mismatch' });
    expect(v.throttlesCleared).toBe(true);
  });
  it('kafka-leader-election.sh', () => {
    expect(parseElection('Successfully completed leader election (UNCLEAN) for partitions exp1-0')).toEqual({ elected: ['exp1-0'], alreadyElected: [], failed: [] });
    expect(parseElection('Valid replica already elected for partitions exp1-0, t-3').alreadyElected).toEqual(['exp1-0', 't-3']);
    expect(parseElection('Error completing leader election (UNCLEAN) for partition: t-0: org.apache.kafka.common.errors.EligibleLeadersNotAvailableException: x').failed).toEqual(['t-0']);
  });
});
