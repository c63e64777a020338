// Single flight per cluster and scope, on dynalite (the lease is a real
// conditional write): concurrent requests share one diagnosis and its result,
// a result is reused within the window, failures are shared, a dead leader's
// lease runs out and a waiting request takes over, and a waiter never waits
// past its own deadline.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig, type ClusterConfig } from '../../lib/config/schema.ts';
import type { DiagnoseRequest, Diagnoser } from '../../lib/diagnose/diagnoser.ts';
import { SharedDiagnosisTimeout, flightKey, singleFlightDiagnoser } from '../../lib/diagnose/single-flight.ts';
import type { DiagnosisReport } from '../../lib/diagnose/types.ts';
import { startDynalite, type DynaliteHandle } from '../alerts/helpers/dynalite.ts';
import { finding, report } from '../slack/helpers/harness.ts';

let db: DynaliteHandle;
beforeAll(async () => {
  db = await startDynalite();
});
afterAll(async () => db.close());

let clusterSeq = 0;
/** A fresh cluster name per test, so flights never leak between tests. */
function cluster(shareDiagnosisSeconds = 30): ClusterConfig {
  const config = parseConfig({
    clusters: [{ name: `c${++clusterSeq}`, bootstrap: ['127.0.0.1:9092'], load: { shareDiagnosisSeconds } }],
    slack: { allowedTeams: ['T0TEST'], allowedUsers: ['U0ALICE'], incidentChannel: 'C0INC' },
  });
  return config.clusters[0]!;
}

/** Counts diagnoses; each takes `ms` and returns a report naming its number. */
class CountingDiagnoser implements Diagnoser {
  calls = 0;
  constructor(
    private readonly ms = 100,
    private readonly outcome: (n: number) => DiagnosisReport | Error = (n) => report([finding(n)]),
  ) {}
  async diagnose(): Promise<DiagnosisReport> {
    const n = ++this.calls;
    await new Promise((r) => setTimeout(r, this.ms));
    const out = this.outcome(n);
    if (out instanceof Error) throw out;
    return out;
  }
  async canRestart(): Promise<never> {
    throw new Error('not used');
  }
}

const req = (c: ClusterConfig, i: number, extra: Partial<DiagnoseRequest> = {}): DiagnoseRequest => ({ cluster: c, correlationId: `corr-${i}`, ...extra });

describe('single-flight diagnosis', () => {
  it('20 concurrent requests for one cluster run one diagnosis and all get its result', async () => {
    const inner = new CountingDiagnoser(200);
    const sf = singleFlightDiagnoser(inner, { store: db.store, pollMs: 20 });
    const c = cluster();
    const reports = await Promise.all(Array.from({ length: 20 }, (_, i) => sf.diagnose(req(c, i))));
    expect(inner.calls).toBe(1);
    expect(new Set(reports.map((r) => r.findings[0]!.fingerprint))).toEqual(new Set(['offline-partition:orders-1']));
  });

  it('the brokers an alert names are their own diagnosis; a topic shares the cluster-wide one', async () => {
    const inner = new CountingDiagnoser(50);
    const sf = singleFlightDiagnoser(inner, { store: db.store, pollMs: 20 });
    const c = cluster();
    await Promise.all([sf.diagnose(req(c, 1)), sf.diagnose(req(c, 2, { topic: 'orders' })), sf.diagnose(req(c, 3, { brokers: [2, 1] })), sf.diagnose(req(c, 4, { brokers: [1, 2] }))]);
    expect(inner.calls).toBe(2);
    expect(flightKey({ cluster: c, brokers: [2, 1] })).toBe(flightKey({ cluster: c, brokers: [1, 2] }));
  });

  it('reuses a finished result within the window and diagnoses again after it', async () => {
    const inner = new CountingDiagnoser(10);
    // The window's 2 s pass on the diagnoser's clock, not in a real wait.
    let passed = 0;
    const sf = singleFlightDiagnoser(inner, { store: db.store, pollMs: 20, now: () => Date.now() + passed });
    const c = cluster(2);
    await sf.diagnose(req(c, 1));
    await sf.diagnose(req(c, 2));
    expect(inner.calls).toBe(1);
    passed += 2100;
    const third = await sf.diagnose(req(c, 3));
    expect(inner.calls).toBe(2);
    expect(third.findings[0]!.fingerprint).toBe('offline-partition:orders-2');
  });

  it('shares a failure instead of hammering the cluster again', async () => {
    const inner = new CountingDiagnoser(100, () => new Error('no bootstrap server answered'));
    const sf = singleFlightDiagnoser(inner, { store: db.store, pollMs: 20 });
    const c = cluster();
    const results = await Promise.allSettled(Array.from({ length: 5 }, (_, i) => sf.diagnose(req(c, i))));
    expect(inner.calls).toBe(1);
    expect(results.every((r) => r.status === 'rejected' && /no bootstrap server answered/.test(String(r.reason)))).toBe(true);
  });

  it("a leader that died leaves a lease that runs out; a waiting request takes over and diagnoses once", async () => {
    const inner = new CountingDiagnoser(10);
    const sf = singleFlightDiagnoser(inner, { store: db.store, pollMs: 20, leaseMs: 400 });
    const c = cluster();
    // What a killed worker leaves behind: a running flight it will never renew.
    const now = Date.now();
    await db.store.create(flightKey({ cluster: c }), { state: 'running', leader: 'dead-worker', attempt: 'x', leaseUntil: now + 400, startedAt: now }, 600);
    const started = Date.now();
    const [a, b] = await Promise.all([sf.diagnose(req(c, 1)), sf.diagnose(req(c, 2))]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(350);
    expect(inner.calls).toBe(1);
    expect(a).toEqual(b);
  });

  it('a retried job (same correlation id) takes its own dead attempt over at once', async () => {
    const inner = new CountingDiagnoser(10);
    const sf = singleFlightDiagnoser(inner, { store: db.store, pollMs: 20, leaseMs: 20_000 });
    const c = cluster();
    const now = Date.now();
    await db.store.create(flightKey({ cluster: c }), { state: 'running', leader: 'corr-7', attempt: 'killed', leaseUntil: now + 20_000, startedAt: now }, 600);
    const started = Date.now();
    await sf.diagnose(req(c, 7));
    // Well inside the 20 s lease: it did not wait for it to run out.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(inner.calls).toBe(1);
  });

  it('a waiting request gives up at its own deadline, saying where the result goes', async () => {
    // Still running well past the waiter's deadline (~300 ms in), with room for a loaded machine.
    const inner = new CountingDiagnoser(800);
    const sf = singleFlightDiagnoser(inner, { store: db.store, pollMs: 20 });
    const c = cluster();
    const leader = sf.diagnose(req(c, 1));
    await new Promise((r) => setTimeout(r, 100));
    await expect(sf.diagnose(req(c, 2, { deadlineMs: 200 }))).rejects.toBeInstanceOf(SharedDiagnosisTimeout);
    await leader;
    expect(inner.calls).toBe(1);
  });

  it('renews its lease while a long diagnosis runs, so nobody takes over a live leader', async () => {
    // A lease of 900 ms, renewed every 300: the diagnosis outlives it twice over.
    const inner = new CountingDiagnoser(2000);
    const sf = singleFlightDiagnoser(inner, { store: db.store, pollMs: 20, leaseMs: 900 });
    const c = cluster();
    const leader = sf.diagnose(req(c, 1));
    // Past the first lease: only renewals keep it.
    await new Promise((r) => setTimeout(r, 1100));
    await sf.diagnose(req(c, 2));
    await leader;
    expect(inner.calls).toBe(1);
  });

  it('with a window of 0 every request diagnoses', async () => {
    const inner = new CountingDiagnoser(10);
    const sf = singleFlightDiagnoser(inner, { store: db.store });
    const c = cluster(0);
    await Promise.all([sf.diagnose(req(c, 1)), sf.diagnose(req(c, 2))]);
    expect(inner.calls).toBe(2);
  });
});
