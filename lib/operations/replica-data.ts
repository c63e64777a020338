// How much of a partition each replica holds, read on the broker hosts
// themselves (works while the partition has no leader, and for a broker whose
// process is down but whose disk is intact): log end offset from the last
// segment (kafka-dump-log.sh), checkpointed high watermark from
// replication-offset-checkpoint, and the size of the segments.

import { z } from 'zod';
import type { Executor, HostTarget } from '../hosts/types.ts';
import type { ReplicaData } from './types.ts';
import { isTopicName } from '../kafka/names.ts';

// Written with @@{ for the shell's ${ so the template literal does not interpolate it.
export const REPLICA_DATA_SCRIPT = String.raw`#!/usr/bin/env bash
# kafka-responder: how much of one partition this broker host holds (read-only).
# usage: <kafka-bin-dir> <topic> <partition> <log-dir>...
set -u
die() { echo "kr-error: $*" >&2; exit 64; }
[ "$#" -ge 4 ] || die "usage: <kafka-bin-dir> <topic> <partition> <log-dir>..."
bin=$1; topic=$2; partition=$3; shift 3
case "$bin" in /*) ;; *) die "kafka bin dir must be an absolute path" ;; esac
case "$topic" in '' | . | .. | *[!A-Za-z0-9._-]*) die "bad topic name" ;; esac
case "$partition" in '' | *[!0-9]*) die "bad partition" ;; esac
for d in "$@"; do case "$d" in /*) ;; *) die "log dirs must be absolute paths" ;; esac; done

found=''; logdir=''
for d in "$@"; do
  if [ -d "$d/$topic-$partition" ]; then found="$d/$topic-$partition"; logdir=$d; break; fi
done
if [ -z "$found" ]; then echo '{"found":false}'; exit 0; fi

size=0; last=''
for f in "$found"/*.log; do
  [ -e "$f" ] || continue
  s=$(wc -c < "$f"); size=$((size + s)); last=$f
done
hw=$(awk -v t="$topic" -v p="$partition" '$1 == t && $2 == p { v = $3 } END { if (v != "") print v }' "$logdir/replication-offset-checkpoint" 2>/dev/null)
leo=''; leo_source='none'
if [ -n "$last" ]; then
  base=$(basename "$last" .log); base=$((10#$base))
  if [ -x "$bin/kafka-dump-log.sh" ]; then
    lastoff=$("$bin/kafka-dump-log.sh" --files "$last" 2>/dev/null | awk '/lastOffset:/ { for (i = 1; i < NF; i++) if ($i == "lastOffset:") v = $(i + 1) } END { if (v != "") print v }')
    case "$lastoff" in
      '' ) leo=$base; leo_source='empty-segment' ;;
      *[!0-9]*) ;;
      *) leo=$((lastoff + 1)); leo_source='kafka-dump-log' ;;
    esac
  fi
fi
printf '{"found":true,"dir":"%s","sizeBytes":%s,"logEndOffset":%s,"checkpointedHighWatermark":%s,"leoSource":"%s"}\n' \
  "$found" "$size" "@@{leo:-null}" "@@{hw:-null}" "$leo_source"
`.replaceAll('@@{', '${');

const ScriptOutput = z.union([
  z.object({ found: z.literal(false) }),
  z.object({
    found: z.literal(true),
    dir: z.string(),
    sizeBytes: z.number().int().nonnegative(),
    logEndOffset: z.number().int().nonnegative().nullable(),
    checkpointedHighWatermark: z.number().int().nonnegative().nullable(),
    leoSource: z.string(),
  }),
]);

export interface ReplicaHost {
  target: HostTarget;
  /** The broker's log.dirs (the host probe reports them). */
  logDirs: string[];
  kafkaBin: string;
}

const SAFE_PATH = /^\/[A-Za-z0-9_.,:/@+%-]*$/;

/** Measures one partition on each given broker host; a host that fails yields a ReplicaData with `error`. */
export async function measureReplicas(
  executor: Executor,
  hosts: ReplicaHost[],
  topic: string,
  partition: number,
  timeoutMs = 120_000,
): Promise<ReplicaData[]> {
  if (!isTopicName(topic)) throw new Error(`invalid topic name ${JSON.stringify(topic)}`);
  if (!Number.isSafeInteger(partition) || partition < 0) throw new Error(`invalid partition ${partition}`);
  return Promise.all(
    hosts.map(async (h): Promise<ReplicaData> => {
      const base = { brokerId: h.target.brokerId, logEndOffset: null, source: 'host' };
      for (const p of [h.kafkaBin, ...h.logDirs]) {
        if (!SAFE_PATH.test(p)) return { ...base, error: `unsafe path ${JSON.stringify(p)}` };
      }
      if (h.logDirs.length === 0) return { ...base, error: 'no log dirs known for this broker' };
      const [r] = await executor.run([h.target], {
        script: REPLICA_DATA_SCRIPT,
        args: [h.kafkaBin, topic, String(partition), ...h.logDirs],
        timeoutMs,
        comment: `kafka-responder replica data ${topic}-${partition}`,
      });
      if (!r || r.status !== 'Success') return { ...base, error: r?.detail ?? r?.status ?? 'no result' };
      const line = r.stdout.trim().split('\n').at(-1) ?? '';
      let parsed;
      try {
        parsed = ScriptOutput.safeParse(JSON.parse(line));
      } catch {
        return { ...base, error: `unreadable output: ${line.slice(0, 200)}` };
      }
      if (!parsed.success) return { ...base, error: `unexpected output: ${line.slice(0, 200)}` };
      if (!parsed.data.found) return { ...base, error: `no ${topic}-${partition} directory on this broker` };
      return {
        brokerId: h.target.brokerId,
        logEndOffset: parsed.data.logEndOffset,
        checkpointedHighWatermark: parsed.data.checkpointedHighWatermark,
        sizeBytes: parsed.data.sizeBytes,
        source: `host:${parsed.data.leoSource}`,
      };
    }),
  );
}
