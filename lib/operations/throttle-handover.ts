// Who owns a throttle when our runs follow one another on a cluster. Every
// resource a run throttles (a broker's two rates, a topic's "partition:broker"
// list entries) belongs to the one run whose ledger (RUN#throttles beside the
// request) names it, recorded before it is created; only that ledger releases
// it. A run that ended with its cleanup pending (a broker refused the removal)
// still owns what it left, and the sweep retries. The cluster lock lets one
// throttling run live at a time, but the sweep works outside it, so:
//   - hand-over: before a run throttles, what our finished runs still owe on
//     the resources it is about to throttle is released through their ledgers
//     and then taken out of them. Only then does the new run look at the
//     cluster: what is still set there is not ours (the operator's), and what
//     it sets is recorded in its own ledger and released by it alone;
//   - no release under a live run: the sweep's release of a finished run may
//     have read that run's ledger before a hand-over shrank it. After it, the
//     ledgers of the cluster's live runs that it touched are set again (they
//     were recorded before being applied, so that is exactly what those runs
//     set or are about to set). SET and APPEND are idempotent.
// No store write here is conditional: the order (record, then create;
// release, then re-assert) is what keeps a live run throttled.

import type { ApprovalService } from '../approvals/service.ts';
import { FINAL_STATUSES, type ApprovalRequest } from '../approvals/types.ts';
import type { KafkaAdmin } from '../kafka/admin.ts';
import { partitionLookup } from '../kafka/partitions.ts';
import type { ClusterSnapshot } from '../kafka/types.ts';
import { errorMessage } from '../runtime/errors.ts';
import type { CompensationResult } from './kind.ts';
import { ledgerIsEmpty, ledgerOverlap, ledgerWithout, removeThrottles, setThrottles, throttleLedgerFor, type ThrottleLedger } from './throttles.ts';
import type { Plan, PlanStep } from './types.ts';

/** The run data name of a run's throttle ledger. */
export const LEDGER_NAME = 'throttles';

type Approvals = Pick<ApprovalService<Plan>, 'sweepPage' | 'get' | 'getRunData' | 'putRunData'>;

interface OurRun {
  request: ApprovalRequest<Plan>;
  ledger: ThrottleLedger;
}

/** Our other runs on `cluster` whose ledger still names something: live (EXECUTING) or finished with cleanup pending. */
async function runsHoldingThrottles(approvals: Approvals, cluster: string, except: string): Promise<OurRun[]> {
  const out: OurRun[] = [];
  let after: string | undefined;
  do {
    // The sweep's index holds exactly the open, running and cleanup-owing requests.
    const page = await approvals.sweepPage(after);
    for (const { id } of page.entries) {
      if (id === except) continue;
      const request = await approvals.get(id);
      if (!request || request.context?.cluster !== cluster) continue;
      if (request.status !== 'EXECUTING' && !(FINAL_STATUSES.has(request.status) && request.run?.cleanupPending)) continue;
      const ledger = await approvals.getRunData<ThrottleLedger>(id, LEDGER_NAME);
      if (ledger && !ledgerIsEmpty(ledger)) out.push({ request, ledger });
    }
    after = page.next;
  } while (after);
  return out;
}

export interface HandOverContext {
  approvals: Approvals;
  requestId: string;
  cluster: string;
  admin: KafkaAdmin;
  snapshot(): Promise<ClusterSnapshot>;
  ledger: { get(): Promise<ThrottleLedger | null> };
}

/**
 * Before a throttled reassignment decides its ledger: our finished runs'
 * leftovers on the same brokers and topic entries are released (by their
 * ledgers: a rate is deleted only while it holds their value) and handed
 * over, i.e. taken out of their ledgers, so their pending cleanup can never
 * remove what this run sets there. What cannot be released yet (the broker
 * still unreachable) makes the step wait: this run's throttling that broker
 * could not succeed either. Released first, then taken out: a worker dying
 * in between leaves a ledger naming removed entries, which is harmless.
 */
export async function handOverLeftovers(step: PlanStep, c: HandOverContext): Promise<void> {
  if (step.action !== 'reassign' || step.throttleBytesPerSec === null || !c.cluster) return;
  // Recorded already (a resumed step): the ledger was decided after the hand-over.
  if (await c.ledger.get()) return;
  const finished = (await runsHoldingThrottles(c.approvals, c.cluster, c.requestId)).filter((r) => FINAL_STATUSES.has(r.request.status));
  if (finished.length === 0) return;
  // The same entries the step will want (steps.ts: reassign): computed from the same live replicas.
  const lookup = partitionLookup(await c.snapshot());
  const wanted = throttleLedgerFor(step.partitions, (t, p) => lookup(t, p)?.replicas, step.throttleBytesPerSec);
  for (const { request, ledger } of finished) {
    const owed = ledgerOverlap(ledger, wanted);
    if (ledgerIsEmpty(owed)) continue;
    const removal = await removeThrottles(c.admin, owed);
    if (!removal.complete) {
      throw new Error(`the throttles request ${request.id} left on these brokers and topics cannot be removed yet: ${removal.problems.slice(0, 3).join('; ')}`);
    }
    await c.approvals.putRunData(request.id, LEDGER_NAME, ledgerWithout(ledger, owed));
  }
}

/**
 * The sweep's release of a finished run's throttles, then the live runs'
 * throttles it may have touched set again. A live run is skipped once it is
 * removing its own (past its remove-throttles step, or cancelled): setting
 * them then would leave them with no owner to remove them. When setting them
 * fails, the finished run's cleanup stays pending and is tried again.
 */
export async function releaseKeepingLiveThrottles(
  approvals: Approvals,
  admin: KafkaAdmin | null,
  request: ApprovalRequest<Plan>,
  release: () => Promise<CompensationResult>,
): Promise<CompensationResult> {
  const cluster = request.context?.cluster;
  const released = cluster && admin ? await approvals.getRunData<ThrottleLedger>(request.id, LEDGER_NAME).catch(() => null) : null;
  const result = await release();
  if (!cluster || !admin || !released || ledgerIsEmpty(released)) return result;
  try {
    for (const live of await runsHoldingThrottles(approvals, cluster, request.id)) {
      if (live.request.status !== 'EXECUTING' || live.request.cancelRequested) continue;
      const removeAt = live.request.plan.steps.findIndex((s) => s.action === 'remove-throttles');
      if (removeAt >= 0 && (live.request.run?.cursor ?? 0) >= removeAt) continue;
      if (ledgerIsEmpty(ledgerOverlap(live.ledger, released))) continue;
      await setThrottles(admin, live.ledger);
    }
    return result;
  } catch (err) {
    return { ...result, complete: false, notices: [...result.notices, { code: 'throttles-left', problems: [`setting a running operation's throttles again: ${errorMessage(err)}`] }] };
  }
}
