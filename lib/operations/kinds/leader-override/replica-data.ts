// How much of a partition each replica holds, read on the broker hosts
// themselves (works while the partition has no leader, and for a broker whose
// process is down but whose disk is intact): log end offset from the last
// segment (kafka-dump-log.sh), checkpointed high watermark from
// replication-offset-checkpoint, and the size of the segments.

import * as z from 'zod';
import type { Executor, HostTarget } from '../../../hosts/types.ts';
import { isHostPath } from '../../../hosts/host-paths.ts';
import type { ReplicaData } from '../../types.ts';
import { isTopicName } from '../../../kafka/names.ts';
import { errorMessage } from '../../../runtime/errors.ts';

// The script itself is a fixed host script: lib/hosts/scripts.ts HOST_SCRIPTS['replica-data'].

const ScriptOutput = z.union([
  z.object({ found: z.literal(false) }),
  z.object({
    found: z.literal(true),
    dir: z.string(),
    sizeBytes: z.number().int().nonnegative(),
    logEndOffset: z.number().int().nonnegative().nullable(),
    checkpointedHighWatermark: z.number().int().nonnegative().nullable(),
    leoSource: z.string(),
    // Older copies of the script on a host do not print it.
    lastSegmentTransactions: z
      .object({
        markers: z.array(z.object({ producerId: z.number().int().nonnegative(), offset: z.number().int().nonnegative() })).max(50),
        open: z.array(z.object({ producerId: z.number().int().nonnegative(), firstOffset: z.number().int().nonnegative() })).max(20),
      })
      .optional(),
  }),
]);

export interface ReplicaHost {
  target: HostTarget;
  /** The broker's log.dirs (the host probe reports them). */
  logDirs: string[];
  kafkaBin: string;
}


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
        if (!isHostPath(p)) return { ...base, error: `unsafe path ${JSON.stringify(p)}` };
      }
      if (h.logDirs.length === 0) return { ...base, error: 'no log dirs known for this broker' };
      let r;
      try {
        [r] = await executor.run([h.target], {
          script: 'replica-data',
          params: { kafkaBin: h.kafkaBin, topic, partition: String(partition), logDirs: h.logDirs.join(',') },
          timeoutMs,
          comment: `kafka-responder replica data ${topic.slice(0, 60)}-${partition}`,
        });
      } catch (err) {
        // A value the script's patterns refuse: nothing was sent.
        return { ...base, error: errorMessage(err) };
      }
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
        ...(parsed.data.lastSegmentTransactions ? { lastSegmentTransactions: parsed.data.lastSegmentTransactions } : {}),
      };
    }),
  );
}
