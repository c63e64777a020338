// Commands that cost the cluster work are bounded per user, per channel and
// per cluster (in the state table, on dynalite: the windows are real
// conditional writes), share the work already in flight, and check a topic
// against the metadata before anything reads the cluster. Signed slash
// commands into the real handler, the real worker on the in-process queue, a
// fake cluster that counts what it is asked.
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Diagnoser, DiagnoseRequest, TopicCheckRequest } from '../../lib/diagnose/diagnoser.ts';
import type { TopicCheck } from '../../lib/diagnose/topic-scope.ts';
import type { DiagnosisReport } from '../../lib/diagnose/types.ts';
import type { RestartAssessment } from '../../lib/diagnose/can-restart.ts';
import { restartAssessment } from '../diagnose/fixtures.ts';
import { startDynalite, type DynaliteHandle } from '../alerts/helpers/dynalite.ts';
import { BASE_CONFIG, buildHarness, finding, report, type Harness } from './helpers/harness.ts';
import { slashEvent } from './helpers/signed.ts';
import { parseIncidentArg, timelineFlightKey } from '../../lib/timeline/slack.ts';
import { SlackStub } from './helpers/slack-stub.ts';

const BROKERS = 3;
const EXISTING = new Set(['orders', 'payments', 'refunds', 'invoices', 'audit-log']);

/** The cluster as a diagnosis sees it: metadata reads, snapshots and host probes, counted. */
class CountingCluster implements Diagnoser {
  metadataReads = 0;
  snapshots = 0;
  probes = 0;
  restartChecks = 0;
  inFlight = 0;
  maxInFlight = 0;
  readonly scopes: (string | null)[] = [];
  private gate: Promise<void> = Promise.resolve();
  private open: (() => void) | null = null;
  /** Reads wait until release(): "in flight at once" without timing anything. */
  hold(): void {
    this.gate = new Promise((r) => (this.open = r));
  }
  release(): void {
    this.open?.();
  }
  async checkTopic(req: TopicCheckRequest): Promise<TopicCheck> {
    this.metadataReads++;
    return EXISTING.has(req.topic) ? { status: 'exists' } : { status: 'missing', nearMisses: req.topic.startsWith('order') ? ['orders'] : [] };
  }
  private async read<T>(answer: () => T): Promise<T> {
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      await this.gate;
      return answer();
    } finally {
      this.inFlight--;
    }
  }
  async diagnose(req: DiagnoseRequest): Promise<DiagnosisReport> {
    this.snapshots++;
    this.probes += BROKERS;
    this.scopes.push(req.topic ?? null);
    return this.read(() => report([finding(1), finding(2, { affected: { partitions: [{ topic: 'payments', partition: 0 }], brokers: [], groups: [] }, fingerprint: 'x:payments-0', title: 'Partition payments-0 has no leader' })]));
  }
  async canRestart(): Promise<RestartAssessment> {
    this.restartChecks++;
    this.snapshots++;
    this.probes += 1;
    return this.read(() => restartAssessment({ brokerId: 2, verdict: 'yes' }));
  }
}

let stub: SlackStub;
let db: DynaliteHandle;
beforeAll(async () => {
  stub = await new SlackStub().start();
});
afterAll(async () => stub.stop());
// A fresh table per test: windows and flights of one test never answer another.
beforeEach(async () => {
  stub.reset();
  await db?.close();
  db = await startDynalite();
});
afterAll(async () => db?.close());

const USERS = ['U0ALICE', 'U0BOB', 'U0CAROL', 'U0DAVE', 'U0ERIN', 'U0FRANK'];

/** The harness's config with the defaults of the bounds (or `limits`), sharing as deployed, and more people allowed. */
function config(limits?: Record<string, unknown>, load: Record<string, unknown> = { shareDiagnosisSeconds: 30 }) {
  const { commandLimits: _testLimits, ...base } = BASE_CONFIG;
  return {
    ...base,
    clusters: BASE_CONFIG.clusters.map((c) => ({ ...c, load })),
    slack: { ...BASE_CONFIG.slack, allowedUsers: USERS },
    ...(limits ? { commandLimits: limits } : {}),
  };
}

let seq = 0;
async function slash(h: Harness, text: string, user = 'U0ALICE', channel = 'C0OPS'): Promise<string> {
  const res = await h.handler(slashEvent({ text, user, channel, responseUrl: stub.responseUrl(`r${++seq}`) }));
  expect(res.statusCode).toBe(200);
  return String((JSON.parse(res.body) as { text: string }).text);
}

describe('/kafka diagnose under a flood of made-up topics', () => {
  it('200 commands for 200 topics that do not exist: no host probe, no snapshot, refused users told when to try again', async () => {
    const cluster = new CountingCluster();
    const h = buildHarness({ stub, store: db.store, diagnoser: cluster, config: config() });
    // Windows are fixed minutes: a burst that crossed one on a slow machine could admit twice the bound.
    // The clock starts at a minute's beginning and runs on from there.
    vi.useFakeTimers({ toFake: ['Date'], now: Math.ceil(Date.now() / 60_000) * 60_000 + 100, shouldAdvanceTime: true });
    let replies: string[];
    try {
      replies = await Promise.all(
        Array.from({ length: 200 }, (_, i) => slash(h, `diagnose sandbox x${i}`, USERS[i % 2], i % 4 < 2 ? 'C0OPS' : 'C0INCIDENT')),
      );
      await h.queue.idle();
    } finally {
      vi.useRealTimers();
    }

    expect(cluster.probes).toBe(0);
    expect(cluster.snapshots).toBe(0);
    const admitted = replies.filter((r) => r.includes('Diagnosing'));
    const refused = replies.filter((r) => !r.includes('Diagnosing'));
    // Two users, six a minute each by default.
    expect(admitted.length).toBeGreaterThan(0);
    expect(admitted.length).toBeLessThanOrEqual(12);
    expect(refused).toHaveLength(200 - admitted.length);
    for (const r of refused) expect(r).toMatch(/try again in \d+ s/);
    expect(refused[0]).toMatch(/at most 6 every 60 s/);
    // Each admitted one was answered from the metadata alone, to its requester, and nothing was posted in the channel.
    expect(cluster.metadataReads).toBe(admitted.length);
    const answers = stub.responses.map((r) => String(r.body.text));
    expect(answers).toHaveLength(admitted.length);
    for (const a of answers) expect(a).toMatch(/^topic x\d+ does not exist on sandbox/);
    expect(stub.callsTo('chat.postMessage')).toHaveLength(0);
  });

  it('a near miss is named; a topic that exists is diagnosed', async () => {
    const cluster = new CountingCluster();
    const h = buildHarness({ stub, store: db.store, diagnoser: cluster, config: config() });
    await slash(h, 'diagnose sandbox order');
    await h.queue.idle();
    expect(String(stub.responses[0]!.body.text)).toMatch(/topic order does not exist on sandbox; did you mean `orders`\?/);
    expect(cluster.snapshots).toBe(0);
    await slash(h, 'diagnose sandbox orders');
    await h.queue.idle();
    expect(cluster.snapshots).toBe(1);
  });
});

describe('diagnoses in flight for one cluster share one snapshot, whatever the topic', () => {
  it('five users, five topics, one cluster-wide snapshot; each thread keeps its topic', async () => {
    const cluster = new CountingCluster();
    cluster.hold();
    const h = buildHarness({ stub, store: db.store, diagnoser: cluster, config: config() });
    const topics = ['orders', 'payments', 'refunds', 'invoices', 'audit-log'];
    const replies = await Promise.all(topics.map((t, i) => slash(h, `diagnose sandbox ${t}`, USERS[i])));
    expect(replies.every((r) => r.includes('Diagnosing'))).toBe(true);
    const done = h.queue.idle();
    // Everyone has joined (or leads) before the one read answers.
    for (let i = 0; i < 500 && stub.topLevel('C0OPS').length < 5; i++) await new Promise((r) => setTimeout(r, 10));
    cluster.release();
    await done;
    expect(cluster.snapshots).toBe(1);
    expect(cluster.scopes).toEqual([null]);
    expect(cluster.probes).toBe(BROKERS);
    const results = stub.topLevel('C0OPS').map((m) => stub.thread(m.ts).map((t) => JSON.stringify(t.blocks)).join(''));
    expect(results).toHaveLength(5);
    // The payments finding only in the payments thread; the orders-less cluster finding nowhere but orders'.
    expect(results.filter((r) => r.includes('payments-0'))).toHaveLength(1);
  });
});

describe('every command that reads the cluster is bounded', () => {
  const limits = { perUser: { requests: 2, windowSeconds: 60 }, perChannel: { requests: 3, windowSeconds: 60 }, perCluster: { requests: 4, windowSeconds: 60 } };

  it.each([
    ['can-restart 2', /Checking whether broker 2/],
    ['transactions', /Checking the transactions/],
    ['audit', /Auditing \*sandbox\*/],
    ['timeline C0INCIDENT/1700000000.000100', /Building the timeline/],
  ])('/kafka %s: per user', async (text, accepted) => {
    const h = buildHarness({ stub, store: db.store, diagnoser: new CountingCluster(), config: config(limits) });
    const replies = [];
    // One at a time: a timeline in flight is shared, so each asks for its own thread.
    for (let i = 0; i < 3; i++) replies.push(await slash(h, text.replace('000100', `00010${i}`)));
    expect(replies[0]).toMatch(accepted);
    expect(replies[1]).toMatch(accepted);
    expect(replies[2]).toMatch(/Too many \S+ requests from you: at most 2 every 60 s\b.*Nothing was started; try again in \d+ s\./);
    expect(h.queue.enqueued).toHaveLength(2);
    await h.queue.idle();
  });

  it('per channel and per cluster, across users and commands', async () => {
    const h = buildHarness({ stub, store: db.store, diagnoser: new CountingCluster(), config: config(limits) });
    expect(await slash(h, 'can-restart 1', 'U0ALICE', 'C0OPS')).toMatch(/Checking whether/);
    expect(await slash(h, 'audit', 'U0BOB', 'C0OPS')).toMatch(/Auditing/);
    expect(await slash(h, 'transactions', 'U0CAROL', 'C0OPS')).toMatch(/Checking the transactions/);
    expect(await slash(h, 'diagnose', 'U0DAVE', 'C0OPS')).toMatch(/in this channel: at most 3 every 60 s.*try again in \d+ s/);
    // Dave's refusal by the channel did not eat his own budget.
    expect(await slash(h, 'diagnose', 'U0DAVE', 'C0INCIDENT')).toMatch(/Diagnosing/);
    expect(await slash(h, 'diagnose', 'U0ERIN', 'C0INCIDENT')).toMatch(/for this cluster: at most 4 every 60 s.*try again in \d+ s/);
    // Another cluster has its own budget.
    expect(await slash(h, 'audit other', 'U0ERIN', 'C0INCIDENT')).toMatch(/Auditing \*other\*/);
    await h.queue.idle();
  });

  it('a timeline export in flight is shared, not built twice', async () => {
    const h = buildHarness({ stub, store: db.store, diagnoser: new CountingCluster(), config: config() });
    const incident = parseIncidentArg('C0INCIDENT/1700000000.000200')!;
    // What an export still running leaves in the table (its job clears it when done).
    await db.store.create(timelineFlightKey(incident), { correlationId: 'kr-running' }, 300);
    expect(await slash(h, 'timeline C0INCIDENT/1700000000.000200', 'U0BOB')).toMatch(/already being built; it will be posted as a file in the thread/);
    expect(h.queue.enqueued).toHaveLength(0);
    await db.store.remove(timelineFlightKey(incident));
    expect(await slash(h, 'timeline C0INCIDENT/1700000000.000200', 'U0BOB')).toMatch(/Building the timeline/);
    await h.queue.idle();
    // The job cleared its own mark: the next request builds a fresh export.
    expect(await db.store.get(timelineFlightKey(incident))).toBeNull();
  });
});

describe('reads of one cluster in flight are bounded across requests (load.maxSnapshotsInFlight)', () => {
  it('six restart checks of six brokers: at most two read the cluster at once, and all are answered', async () => {
    const cluster = new CountingCluster();
    cluster.hold();
    const h = buildHarness({ stub, store: db.store, diagnoser: cluster, config: config(undefined, { shareDiagnosisSeconds: 0 }) });
    for (let b = 1; b <= 6; b++) expect(await slash(h, `can-restart ${b}`, USERS[b - 1])).toMatch(/Checking whether/);
    const done = h.queue.idle();
    for (let i = 0; i < 500 && cluster.inFlight < 2; i++) await new Promise((r) => setTimeout(r, 10));
    cluster.release();
    await done;
    expect(cluster.restartChecks).toBe(6);
    expect(cluster.maxInFlight).toBe(2);
    expect(stub.topLevel('C0OPS')).toHaveLength(6);
  });
});
