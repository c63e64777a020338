// Replication throttles for a reassignment, the way kafka-reassign-partitions.sh
// sets them, but owned: every entry this operation adds is recorded (before it
// is applied) in a ledger kept with the run, and removal takes away exactly
// those entries. An operator's own throttles are never changed:
//   - topic lists (`leader/follower.replication.throttled.replicas`) get our
//     "partition:broker" entries APPENDed and later SUBTRACTed, so other
//     entries in the same list stay; an entry already listed before the run
//     (APPEND leaves it as it is) is the operator's, not in our ledger;
//   - a broker rate (`leader/follower.replication.throttled.rate`) is set only
//     where the broker had none, and deleted only while it still holds our value.
// "Already there" means the operator's only because what our own finished runs
// still owe on the same resources is handed over first (throttle-handover.ts):
// a leftover of ours is never mistaken for the operator's.
// Leader throttles go on the replicas that hold the data now (they send it),
// follower throttles on the replicas being added (they fetch it).

import type { KafkaAdmin } from '../kafka/admin.ts';
import type { PartitionAssignment } from './validate.ts';
import { errorMessage } from '../runtime/errors.ts';

export const LEADER_RATE = 'leader.replication.throttled.rate';
export const FOLLOWER_RATE = 'follower.replication.throttled.rate';
export const LEADER_REPLICAS = 'leader.replication.throttled.replicas';
export const FOLLOWER_REPLICAS = 'follower.replication.throttled.replicas';

/** What one run throttled; stored with the run so any later worker (or the sweep) can undo it. */
export interface ThrottleLedger {
  rateBytesPerSec: number;
  /** Brokers whose two rates this run set (they had none of their own). */
  brokers: number[];
  /** Brokers that already had a rate none of our runs owns (the operator's): left alone, named in the thread. */
  operatorRateBrokers: number[];
  /** Per topic, the "partition:broker" entries this run appended. */
  topics: { topic: string; leader: string[]; follower: string[] }[];
}

/** The throttle entries a reassignment needs, from each partition's current replicas and its target. */
export function throttleLedgerFor(
  moves: readonly PartitionAssignment[],
  currentReplicas: (topic: string, partition: number) => readonly number[] | undefined,
  rateBytesPerSec: number,
): Omit<ThrottleLedger, 'operatorRateBrokers'> {
  const brokers = new Set<number>();
  const byTopic = new Map<string, { leader: string[]; follower: string[] }>();
  for (const m of moves) {
    const current = currentReplicas(m.topic, m.partition) ?? [];
    const adding = m.replicas.filter((r) => !current.includes(r));
    if (adding.length === 0) continue;
    const entry = byTopic.get(m.topic) ?? { leader: [], follower: [] };
    byTopic.set(m.topic, entry);
    for (const r of current) entry.leader.push(`${m.partition}:${r}`);
    for (const r of adding) entry.follower.push(`${m.partition}:${r}`);
    for (const r of [...current, ...adding]) brokers.add(r);
  }
  return {
    rateBytesPerSec,
    brokers: [...brokers].sort((a, b) => a - b),
    topics: [...byTopic.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([topic, e]) => ({ topic, ...e })),
  };
}

/** The part of `held` that `wanted` also names: the same brokers' rates, the same topic list entries. */
export function ledgerOverlap(held: ThrottleLedger, wanted: Pick<ThrottleLedger, 'brokers' | 'topics'>): ThrottleLedger {
  const brokers = new Set(wanted.brokers);
  const topics = new Map(wanted.topics.map((t) => [t.topic, t]));
  return {
    rateBytesPerSec: held.rateBytesPerSec,
    brokers: held.brokers.filter((b) => brokers.has(b)),
    operatorRateBrokers: [],
    topics: held.topics.flatMap((t) => {
      const w = topics.get(t.topic);
      const leader = w ? t.leader.filter((e) => w.leader.includes(e)) : [];
      const follower = w ? t.follower.filter((e) => w.follower.includes(e)) : [];
      return leader.length || follower.length ? [{ topic: t.topic, leader, follower }] : [];
    }),
  };
}

/** `held` without `part` (what it handed over): what it still owns. */
export function ledgerWithout(held: ThrottleLedger, part: Pick<ThrottleLedger, 'brokers' | 'topics'>): ThrottleLedger {
  const gone = ledgerOverlap(held, part);
  const goneTopics = new Map(gone.topics.map((t) => [t.topic, t]));
  return {
    ...held,
    brokers: held.brokers.filter((b) => !gone.brokers.includes(b)),
    topics: held.topics.flatMap((t) => {
      const g = goneTopics.get(t.topic);
      const leader = t.leader.filter((e) => !g?.leader.includes(e));
      const follower = t.follower.filter((e) => !g?.follower.includes(e));
      return leader.length || follower.length ? [{ topic: t.topic, leader, follower }] : [];
    }),
  };
}

export const ledgerIsEmpty = (l: Pick<ThrottleLedger, 'brokers' | 'topics'>): boolean => l.brokers.length === 0 && l.topics.every((t) => t.leader.length + t.follower.length === 0);

/** Topic config values carry entries comma-separated; large lists go in several calls to keep requests small. */
const ENTRIES_PER_CALL = 2_000;

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

type ConfigResult = { type: string; name: string; errorCode: number; error: string | null };

function errorsOf(results: readonly ConfigResult[]): string[] {
  return results.filter((r) => r.errorCode !== 0).map((r) => `${r.type} ${r.name}: ${r.error ?? `error ${r.errorCode}`}`);
}

/** Which of these brokers already carry a throttle rate of their own (dynamic, not ours). */
async function brokersWithOwnRate(admin: KafkaAdmin, brokers: readonly number[]): Promise<Set<number>> {
  if (brokers.length === 0) return new Set();
  const described = await admin.describeConfigs(brokers.map((b) => ({ type: 'broker' as const, name: String(b), names: [LEADER_RATE, FOLLOWER_RATE] })));
  const own = new Set<number>();
  for (const r of described) {
    if (r.errorCode !== 0) throw new Error(`cannot read the throttle rates of broker ${r.name}: ${r.error ?? r.errorCode}`);
    if (r.entries.some((e) => (e.name === LEADER_RATE || e.name === FOLLOWER_RATE) && !e.isDefault && e.value !== null)) own.add(Number(r.name));
  }
  return own;
}

/**
 * Per topic, the wanted entries that its lists do not hold yet: only those
 * become ours. APPEND adds only missing values, so an entry the operator had
 * set before the run is theirs, and our cleanup must not SUBTRACT it. A list
 * that is "*" (every replica throttled) already covers all of ours.
 */
async function entriesAbsent(admin: KafkaAdmin, topics: ThrottleLedger['topics']): Promise<ThrottleLedger['topics']> {
  if (topics.length === 0) return [];
  const described = new Map(
    (await admin.describeConfigs(topics.map((t) => ({ type: 'topic' as const, name: t.topic, names: [LEADER_REPLICAS, FOLLOWER_REPLICAS] })))).map((r) => [r.name, r]),
  );
  const out: ThrottleLedger['topics'] = [];
  for (const t of topics) {
    const current = described.get(t.topic);
    if (!current || current.errorCode !== 0) throw new Error(`cannot read the throttle lists of topic ${t.topic}: ${current?.error ?? 'no answer'}`);
    const listed = (name: string): Set<string> | 'all' => {
      const entry = current.entries.find((e) => e.name === name);
      if (!entry || entry.isDefault || entry.value === null) return new Set();
      const values = entry.value.split(',').map((v) => v.trim()).filter(Boolean);
      return values.includes('*') ? 'all' : new Set(values);
    };
    const absent = (name: string, ours: readonly string[]) => {
      const have = listed(name);
      return have === 'all' ? [] : ours.filter((v) => !have.has(v));
    };
    const leader = absent(LEADER_REPLICAS, t.leader);
    const follower = absent(FOLLOWER_REPLICAS, t.follower);
    if (leader.length || follower.length) out.push({ topic: t.topic, leader, follower });
  }
  return out;
}

/**
 * Decides what becomes ours: the rate on brokers without one, the topic
 * entries not already listed (read before APPEND). Records that ledger through
 * `record` BEFORE changing anything, then applies it. A worker that dies in
 * between leaves a ledger that may name entries never applied: removing those
 * is a no-op.
 */
export async function applyThrottles(
  admin: KafkaAdmin,
  wanted: Omit<ThrottleLedger, 'operatorRateBrokers'>,
  record: (ledger: ThrottleLedger) => Promise<void>,
): Promise<ThrottleLedger> {
  const [own, topics] = await Promise.all([brokersWithOwnRate(admin, wanted.brokers), entriesAbsent(admin, wanted.topics)]);
  const ledger: ThrottleLedger = {
    ...wanted,
    topics,
    brokers: wanted.brokers.filter((b) => !own.has(b)),
    operatorRateBrokers: wanted.brokers.filter((b) => own.has(b)),
  };
  await record(ledger);
  await setThrottles(admin, ledger);
  return ledger;
}

/** Sets what a recorded ledger names (again, after a resume: APPEND and SET are idempotent). */
export async function setThrottles(admin: KafkaAdmin, ledger: ThrottleLedger): Promise<void> {
  const rate = String(ledger.rateBytesPerSec);
  const errors: string[] = [];
  if (ledger.brokers.length) {
    errors.push(
      ...errorsOf(
        await admin.incrementalAlterConfigs(
          ledger.brokers.map((b) => ({
            type: 'broker' as const,
            name: String(b),
            ops: [
              { name: LEADER_RATE, op: 'set' as const, value: rate },
              { name: FOLLOWER_RATE, op: 'set' as const, value: rate },
            ],
          })),
        ),
      ),
    );
  }
  errors.push(...(await alterTopicLists(admin, ledger.topics, 'append')));
  if (errors.length) throw new Error(`setting replication throttles failed: ${errors.slice(0, 5).join('; ')}`);
}

/**
 * The topic's throttle lists that hold nothing yet. ZooKeeper-mode brokers (seen on 2.8) APPEND to an
 * unset list as ",0:1": a list with an empty entry, which the brokers then fail to parse, so nothing is
 * throttled. Such a list is SET instead.
 */
async function unsetLists(admin: KafkaAdmin, topic: string): Promise<Set<string>> {
  const [d] = await admin.describeConfigs([{ type: 'topic', name: topic, names: [LEADER_REPLICAS, FOLLOWER_REPLICAS] }]);
  const held = new Set((d?.errorCode === 0 ? d.entries : []).filter((e) => !e.isDefault && e.value).map((e) => e.name));
  return new Set([LEADER_REPLICAS, FOLLOWER_REPLICAS].filter((n) => !held.has(n)));
}

async function alterTopicLists(admin: KafkaAdmin, topics: ThrottleLedger['topics'], op: 'append' | 'subtract'): Promise<string[]> {
  const errors: string[] = [];
  for (const t of topics) {
    const leaderChunks = chunks(t.leader, ENTRIES_PER_CALL);
    const followerChunks = chunks(t.follower, ENTRIES_PER_CALL);
    const unset = op === 'append' ? await unsetLists(admin, t.topic) : new Set<string>();
    const opFor = (name: string, i: number): 'set' | typeof op => (i === 0 && unset.has(name) ? 'set' : op);
    for (let i = 0; i < Math.max(leaderChunks.length, followerChunks.length); i++) {
      const ops = [
        ...(leaderChunks[i]?.length ? [{ name: LEADER_REPLICAS, op: opFor(LEADER_REPLICAS, i), value: leaderChunks[i]!.join(',') }] : []),
        ...(followerChunks[i]?.length ? [{ name: FOLLOWER_REPLICAS, op: opFor(FOLLOWER_REPLICAS, i), value: followerChunks[i]!.join(',') }] : []),
      ];
      errors.push(...errorsOf(await admin.incrementalAlterConfigs([{ type: 'topic', name: t.topic, ops }])));
    }
  }
  return errors;
}

export interface ThrottleRemoval {
  /** Everything this run set is gone. */
  complete: boolean;
  /** What could not be removed (an unreachable broker, a deleted topic...), for the thread and the sweep. */
  problems: string[];
}

/**
 * Removes exactly what the ledger says this run set. Idempotent: safe to
 * repeat from a resumed worker or the sweep. A broker rate that someone has
 * changed since is theirs now and stays.
 */
export async function removeThrottles(admin: KafkaAdmin, ledger: ThrottleLedger): Promise<ThrottleRemoval> {
  const problems: string[] = [];
  const ours = String(ledger.rateBytesPerSec);
  if (ledger.brokers.length) {
    let described: Awaited<ReturnType<KafkaAdmin['describeConfigs']>> = [];
    try {
      described = await admin.describeConfigs(ledger.brokers.map((b) => ({ type: 'broker' as const, name: String(b), names: [LEADER_RATE, FOLLOWER_RATE] })));
    } catch (err) {
      problems.push(`reading broker throttle rates: ${errorMessage(err)}`);
    }
    const deletes = described
      .filter((r) => r.errorCode === 0)
      .map((r) => ({
        type: 'broker' as const,
        name: r.name,
        ops: r.entries
          .filter((e) => (e.name === LEADER_RATE || e.name === FOLLOWER_RATE) && !e.isDefault && e.value === ours)
          .map((e) => ({ name: e.name, op: 'delete' as const, value: null })),
      }))
      .filter((r) => r.ops.length > 0);
    problems.push(...errorsOf(described));
    if (deletes.length) {
      try {
        problems.push(...errorsOf(await admin.incrementalAlterConfigs(deletes)));
      } catch (err) {
        problems.push(`removing broker throttle rates: ${errorMessage(err)}`);
      }
    }
  }
  try {
    problems.push(...(await removeTopicEntries(admin, ledger.topics)));
  } catch (err) {
    problems.push(`removing topic throttle lists: ${errorMessage(err)}`);
  }
  return { complete: problems.length === 0, problems };
}

const isGone = (problem: string) => /UNKNOWN_TOPIC_OR_PARTITION|does not exist/i.test(problem);

/**
 * Takes our entries out of each topic list: SUBTRACT when someone else's
 * entries remain, DELETE when ours were all there was (SUBTRACT of the last
 * entries leaves the key set to "", still a dynamic config). Decided from the
 * list as it is now: a describe right after a change may still show the old
 * value, so nothing here reads its own write back.
 */
async function removeTopicEntries(admin: KafkaAdmin, topics: ThrottleLedger['topics']): Promise<string[]> {
  if (topics.length === 0) return [];
  const described = new Map(
    (await admin.describeConfigs(topics.map((t) => ({ type: 'topic' as const, name: t.topic, names: [LEADER_REPLICAS, FOLLOWER_REPLICAS] })))).map((r) => [r.name, r]),
  );
  const problems: string[] = [];
  for (const t of topics) {
    const current = described.get(t.topic);
    if (!current || current.errorCode !== 0) {
      const why = current?.error ?? 'no answer';
      if (!isGone(why)) problems.push(`topic ${t.topic}: ${why}`);
      continue;
    }
    // One config name appears at most once per request: each call carries one op per list.
    const calls: { name: string; op: 'subtract' | 'delete'; value: string | null }[][] = [];
    for (const [name, ours] of [[LEADER_REPLICAS, t.leader], [FOLLOWER_REPLICAS, t.follower]] as const) {
      const entry = current.entries.find((e) => e.name === name);
      if (!entry || entry.isDefault || entry.value === null) continue;
      const listed = entry.value.split(',').map((v) => v.trim()).filter(Boolean);
      const mine = new Set(ours);
      const theirs = listed.filter((v) => !mine.has(v));
      const ops =
        theirs.length === 0
          ? [{ name, op: 'delete' as const, value: null }]
          : chunks(ours.filter((v) => listed.includes(v)), ENTRIES_PER_CALL).map((chunk) => ({ name, op: 'subtract' as const, value: chunk.join(',') }));
      ops.forEach((op, i) => (calls[i] ??= []).push(op));
    }
    for (const ops of calls) {
      problems.push(...errorsOf(await admin.incrementalAlterConfigs([{ type: 'topic', name: t.topic, ops }])).filter((p) => !isGone(p)));
    }
  }
  return problems;
}

/** One line for the thread. */
export function describeLedger(ledger: ThrottleLedger): string {
  const entries = ledger.topics.reduce((n, t) => n + t.leader.length + t.follower.length, 0);
  const rate = ledger.rateBytesPerSec >= 1024 * 1024 ? `${Math.round(ledger.rateBytesPerSec / 1024 / 1024)} MiB/s` : `${Math.round(ledger.rateBytesPerSec / 1024)} KiB/s`;
  // Our own runs' leftovers were handed over before the ledger was decided: a rate still there was set outside these operations.
  const theirs = ledger.operatorRateBrokers.length ? `; broker ${ledger.operatorRateBrokers.join(', ')} kept the rate set there outside these operations` : '';
  return `${rate} on broker ${ledger.brokers.join(', ') || '(none)'}, ${entries} replica entr${entries === 1 ? 'y' : 'ies'} on ${ledger.topics.length} topic(s)${theirs}`;
}
