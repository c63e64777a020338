// Kafka's own CLI tools, run on a broker host through the Executor (SSM or
// local). One fixed script: the action and every value arrive as positional
// arguments, validated here and again by the script; the JSON files the tools
// need are written by the script from those arguments. No user text is ever
// spliced into shell code. Parsers read the tools' text output (4.1 and 3.9).

import type { ExecutionResult, Executor, HostTarget } from '../hosts/types.ts';
import type { TopicPartition } from './types.ts';
import { TOPIC_NAME } from './validate.ts';

// Written with @@{ for the shell's ${ so the template literal does not interpolate it.
export const OPERATION_SCRIPT = String.raw`#!/usr/bin/env bash
# kafka-responder operation step (fixed template; values arrive as arguments).
# usage: <kafka-bin-dir> <bootstrap> <action> [args...]
set -u
die() { echo "kr-error: $*" >&2; exit 64; }
[ "$#" -ge 3 ] || die "usage: <kafka-bin-dir> <bootstrap> <action> [args...]"
bin=$1; bootstrap=$2; action=$3; shift 3
case "$bin" in /*) ;; *) die "kafka bin dir must be an absolute path" ;; esac
case "$bin$bootstrap" in *[!A-Za-z0-9_.,:/@+%-]*) die "bad kafka bin dir or bootstrap" ;; esac
[ -x "$bin/kafka-topics.sh" ] || die "no kafka tools in $bin"
tmp=$(mktemp -d "@@{TMPDIR:-/tmp}/kr-op.XXXXXXXX") || die "mktemp failed"
trap 'rm -rf "$tmp"' EXIT

check_topic() { case "$1" in '' | . | .. | *[!A-Za-z0-9._-]*) die "bad topic name" ;; esac; }
check_int() { case "$1" in '' | *[!0-9]*) die "bad number" ;; esac; }
check_list() { case "$1" in '' | ,* | *, | *,,* | *[!0-9,]*) die "bad replica list" ;; esac; }

# Entries are topic:partition:r1,r2,... (topic names cannot contain ':').
reassign_json() {
  printf '{"version":1,"partitions":['
  sep=''
  for e in "$@"; do
    t=@@{e%%:*}; rest=@@{e#*:}; p=@@{rest%%:*}; r=@@{rest#*:}
    check_topic "$t"; check_int "$p"; check_list "$r"
    printf '%s{"topic":"%s","partition":%s,"replicas":[%s]}' "$sep" "$t" "$p" "$r"
    sep=','
  done
  printf ']}\n'
}

# Entries are topic:partition.
partitions_json() {
  printf '{"partitions":['
  sep=''
  for e in "$@"; do
    t=@@{e%%:*}; p=@@{e#*:}
    check_topic "$t"; check_int "$p"
    printf '%s{"topic":"%s","partition":%s}' "$sep" "$t" "$p"
    sep=','
  done
  printf ']}\n'
}

case "$action" in
  reassign-execute)
    [ "$#" -ge 3 ] || die "reassign-execute <throttle> <new|additional> <entry>..."
    throttle=$1; mode=$2; shift 2; check_int "$throttle"
    opts=(--execute)
    case "$mode" in new) ;; additional) opts+=(--additional) ;; *) die "bad mode" ;; esac
    if [ "$throttle" -gt 0 ]; then opts+=(--throttle "$throttle"); fi
    reassign_json "$@" > "$tmp/reassign.json" || exit 64
    "$bin/kafka-reassign-partitions.sh" --bootstrap-server "$bootstrap" --reassignment-json-file "$tmp/reassign.json" "@@{opts[@]}"
    ;;
  reassign-verify)
    [ "$#" -ge 1 ] || die "reassign-verify <entry>..."
    reassign_json "$@" > "$tmp/reassign.json" || exit 64
    "$bin/kafka-reassign-partitions.sh" --bootstrap-server "$bootstrap" --reassignment-json-file "$tmp/reassign.json" --verify
    ;;
  reassign-list)
    "$bin/kafka-reassign-partitions.sh" --bootstrap-server "$bootstrap" --list
    ;;
  elect)
    [ "$#" -ge 2 ] || die "elect <unclean|preferred> <topic:partition>..."
    type=$1; shift
    case "$type" in unclean | preferred) ;; *) die "bad election type" ;; esac
    partitions_json "$@" > "$tmp/elect.json" || exit 64
    "$bin/kafka-leader-election.sh" --bootstrap-server "$bootstrap" --election-type "$type" --path-to-json-file "$tmp/elect.json"
    ;;
  describe)
    [ "$#" -ge 1 ] || die "describe <topic>..."
    for t in "$@"; do check_topic "$t"; done
    for t in "$@"; do "$bin/kafka-topics.sh" --bootstrap-server "$bootstrap" --describe --topic "$t" || exit $?; done
    ;;
  *) die "unknown action" ;;
esac
`.replaceAll('@@{', '${');

/** Where the kafka tools run: a broker host with the Kafka distribution on it. */
export interface OperationHost {
  executor: Executor;
  target: HostTarget;
  /** Absolute path of Kafka's bin directory on that host, e.g. /opt/kafka/bin. */
  kafkaBin: string;
  /** Bootstrap servers as seen from that host. */
  bootstrap: string;
  /** Per tool run; the JVM start alone takes a few seconds. */
  timeoutMs?: number;
}

const SAFE_PATH = /^\/[A-Za-z0-9_.,:/@+%-]*$/;
const SAFE_BOOTSTRAP = /^[A-Za-z0-9_.:,@+%/-]+$/;

export type KafkaCliAction =
  | {
      action: 'reassign-execute';
      throttleBytesPerSec: number | null;
      /** Add to a reassignment already running (a later batch of the same plan). */
      additional: boolean;
      partitions: { topic: string; partition: number; replicas: number[] }[];
    }
  | { action: 'reassign-verify'; partitions: { topic: string; partition: number; replicas: number[] }[] }
  | { action: 'reassign-list' }
  | { action: 'elect'; electionType: 'unclean' | 'preferred'; partitions: TopicPartition[] }
  | { action: 'describe'; topics: string[] };

/** The script's argument vector for an action; throws on any value that is not what it claims to be. */
export function cliArgs(host: Pick<OperationHost, 'kafkaBin' | 'bootstrap'>, a: KafkaCliAction): string[] {
  if (!SAFE_PATH.test(host.kafkaBin)) throw new Error(`kafka bin dir ${JSON.stringify(host.kafkaBin)} is not a plain absolute path`);
  if (!SAFE_BOOTSTRAP.test(host.bootstrap)) throw new Error(`bootstrap ${JSON.stringify(host.bootstrap)} is not host:port[,host:port...]`);
  const topic = (t: string) => {
    if (!TOPIC_NAME.test(t) || t === '.' || t === '..') throw new Error(`invalid topic name ${JSON.stringify(t)}`);
    return t;
  };
  const int = (n: number) => {
    if (!Number.isSafeInteger(n) || n < 0) throw new Error(`invalid non-negative integer ${n}`);
    return String(n);
  };
  const base = [host.kafkaBin, host.bootstrap, a.action];
  switch (a.action) {
    case 'reassign-execute':
    case 'reassign-verify': {
      if (a.partitions.length === 0) throw new Error('no partitions');
      const entries = a.partitions.map((p) => {
        if (p.replicas.length === 0) throw new Error(`empty replica list for ${p.topic}-${p.partition}`);
        return `${topic(p.topic)}:${int(p.partition)}:${p.replicas.map(int).join(',')}`;
      });
      return a.action === 'reassign-execute'
        ? [...base, int(a.throttleBytesPerSec ?? 0), a.additional ? 'additional' : 'new', ...entries]
        : [...base, ...entries];
    }
    case 'reassign-list':
      return base;
    case 'elect':
      if (a.partitions.length === 0) throw new Error('no partitions');
      return [...base, a.electionType, ...a.partitions.map((p) => `${topic(p.topic)}:${int(p.partition)}`)];
    case 'describe':
      if (a.topics.length === 0) throw new Error('no topics');
      return [...base, ...a.topics.map(topic)];
  }
}

export interface CliRun {
  ok: boolean;
  /** stdout then stderr: the tools print results and errors on either. */
  output: string;
  execution: ExecutionResult;
}

export async function runKafkaCli(host: OperationHost, a: KafkaCliAction): Promise<CliRun> {
  const args = cliArgs(host, a);
  const [execution] = await host.executor.run([host.target], {
    script: OPERATION_SCRIPT,
    args,
    timeoutMs: host.timeoutMs ?? 120_000,
    comment: `kafka-responder ${a.action}`,
  });
  if (!execution) throw new Error('the executor returned no result');
  const output = [execution.stdout, execution.stderr].filter(Boolean).join('\n');
  return { ok: execution.status === 'Success', output, execution };
}

// ---------------------------------------------------------------- parsers

function splitTp(name: string): TopicPartition | null {
  const i = name.lastIndexOf('-');
  if (i <= 0) return null;
  const partition = Number(name.slice(i + 1));
  return Number.isInteger(partition) && partition >= 0 ? { topic: name.slice(0, i), partition } : null;
}

const ids = (text: string | undefined): number[] =>
  (text ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => /^\d+$/.test(s))
    .map(Number);

export interface DescribedPartition {
  topic: string;
  partition: number;
  /** -1 for "none". */
  leader: number;
  replicas: number[];
  isr: number[];
  adding: number[];
  removing: number[];
  /** Eligible leader replicas (KIP-966); null when the version does not print them. */
  elr: number[] | null;
  lastKnownElr: number[] | null;
}

/** `kafka-topics.sh --describe` partition lines (tab-separated "Key: value" fields). */
export function parseTopicDescribe(text: string): DescribedPartition[] {
  const out: DescribedPartition[] = [];
  for (const line of text.split('\n')) {
    if (!/^\s+Topic: /.test(line) && !/\tPartition: /.test(line)) continue;
    const fields = new Map<string, string>();
    for (const part of line.split('\t')) {
      const m = /^\s*([A-Za-z ]+):\s?(.*)$/.exec(part);
      if (m) fields.set(m[1]!.trim(), m[2]!.trim());
    }
    const topic = fields.get('Topic');
    const partition = Number(fields.get('Partition'));
    if (!topic || !Number.isInteger(partition) || !fields.has('Leader')) continue;
    const leaderText = fields.get('Leader')!;
    out.push({
      topic,
      partition,
      leader: /^\d+$/.test(leaderText) ? Number(leaderText) : -1,
      replicas: ids(fields.get('Replicas')),
      isr: ids(fields.get('Isr')),
      adding: ids(fields.get('Adding Replicas')),
      removing: ids(fields.get('Removing Replicas')),
      elr: fields.has('Elr') ? ids(fields.get('Elr')) : null,
      lastKnownElr: fields.has('LastKnownElr') ? ids(fields.get('LastKnownElr')) : null,
    });
  }
  return out;
}

export interface ListedReassignment extends TopicPartition {
  replicas: number[];
  adding: number[];
  removing: number[];
}

/** `kafka-reassign-partitions.sh --list`: "t-0: replicas: 3,2,1. adding: 3. removing: 1." lines. */
export function parseReassignmentList(text: string): ListedReassignment[] | null {
  if (/No partition reassignments found/.test(text)) return [];
  if (!/Current partition reassignments:/.test(text)) return null;
  const out: ListedReassignment[] = [];
  for (const line of text.split('\n')) {
    const m = /^(\S+): replicas: ([\d,]*)\.(?: adding: ([\d,]*)\.)?(?: removing: ([\d,]*)\.)?\s*$/.exec(line.trim());
    if (!m) continue;
    const tp = splitTp(m[1]!);
    if (tp) out.push({ ...tp, replicas: ids(m[2]), adding: ids(m[3]), removing: ids(m[4]) });
  }
  return out;
}

export type VerifyState = 'complete' | 'in-progress' | 'not-running-mismatch' | 'unknown';

/** `--verify`: per-partition state and whether throttles were cleared. */
export function parseReassignmentVerify(text: string): { partitions: Map<string, VerifyState>; throttlesCleared: boolean } {
  const partitions = new Map<string, VerifyState>();
  for (const line of text.split('\n')) {
    let m = /Reassignment of partition (\S+) is (complete|completed|still in progress)/.exec(line);
    if (m) {
      partitions.set(m[1]!, m[2] === 'still in progress' ? 'in-progress' : 'complete');
      continue;
    }
    m = /There is no active reassignment of partition (\S+), but replica set is/.exec(line);
    if (m) partitions.set(m[1]!, 'not-running-mismatch');
  }
  return { partitions, throttlesCleared: /Clearing (broker-level|topic-level) throttles/.test(text) };
}

/** `kafka-leader-election.sh` result lines. */
export function parseElection(text: string): { elected: string[]; alreadyElected: string[]; failed: string[] } {
  const list = (re: RegExp) => {
    const m = re.exec(text);
    return m ? m[1]!.split(',').map((s) => s.trim()).filter(Boolean) : [];
  };
  const failed: string[] = [];
  for (const line of text.split('\n')) {
    const m = /Error completing leader election \([A-Z]+\) for partition: (\S+?):? /.exec(line);
    if (m) failed.push(m[1]!);
  }
  return {
    elected: list(/Successfully completed leader election \([A-Z]+\) for partitions ([^\n]+)/),
    alreadyElected: list(/Valid replica already elected for partitions ([^\n]+)/),
    failed,
  };
}
