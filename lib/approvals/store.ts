// DynamoDB persistence for approval requests. One table, composite key:
//   pk = REQ#<id>, sk = STATE            the request (status, version, events...)
//   pk = REQ#<id>, sk = AUDIT#<seq>      one audit record per transition
//   pk = REQ#<id>, sk = NOTE#<at>#<rnd>  refused actions (who tried what, why)
//   pk = REQ#<id>, sk = CHUNK#<key>#nnnn a large plan's pieces (plan-pieces.ts)
// Every transition is one UpdateItem conditioned on the status and version it
// was decided from, so concurrent writers serialize and losers re-decide.
// No TransactWriteItems (dynalite lacks it): the transition's audit event is
// appended to the request item in that same write, then mirrored to its own
// AUDIT# item by the audit log (audit-log.ts).

import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { gunzipSync, gzipSync } from 'node:zlib';
import * as z from 'zod';
import { SWEEP_INDEX, SWEEP_VALUE, decodeSweepCursor, encodeSweepCursor, ensureApprovalsTable } from './table-shape.ts';
import { AuditLog } from './audit-log.ts';
import { ClusterLockStore } from './cluster-lock.ts';
import { KEY_ATTRS, pkOf } from './records.ts';
import { RateLimitStore } from './rate-limit.ts';
import { applied } from './conditional.ts';
import { INLINE_PLAN_CHARS, PLAN_CHUNK_BYTES, PlanPieces, pieceStubOf } from './plan-pieces.ts';
import type { ApprovablePlan, ApprovalRequest, AuditEvent, Lease, RunState } from './types.ts';

/** Records are kept this long after their request stops being open (DynamoDB TTL deletes lazily). */
export const DEFAULT_RETENTION_DAYS = 400;


const STATE_SK = 'STATE';
function needsSweep(r: Pick<ApprovalRequest, 'status' | 'run' | 'expiryShown'>): boolean {
  return r.status === 'REQUESTED' || r.status === 'APPROVED' || r.status === 'EXECUTING' || r.run?.cleanupPending === true || (r.status === 'EXPIRED' && !r.expiryShown);
}
/** Set at creation and never rewritten by a transition (the plan may be megabytes; who may approve is fixed). */
const IMMUTABLE_ATTRS = new Set(['id', 'plan', 'planDigest', 'requester', 'excludedApprovers', 'requiredApprovals', 'createdAt', 'expiresAt']);
export { INLINE_PLAN_CHARS, MAX_PLAN_CHUNKS } from './plan-pieces.ts';

/** The request item's fields the machine's rules rest on beyond the plan, checked when read (fail closed). */
const headSchema = z.looseObject({ excludedApprovers: z.array(z.string().max(64)).max(50).optional() });

export interface ApprovalStoreOptions {
  tableName: string;
  retentionDays?: number;
  /** Bytes per piece of a plan stored in pieces (default PLAN_CHUNK_BYTES); tests pass less. */
  planPieceBytes?: number;
}

export class ApprovalStore {
  private readonly doc: DynamoDBDocumentClient;
  private readonly table: string;
  private readonly retentionMs: number;
  /** The audit trail and refused actions, in the same table (audit-log.ts). */
  readonly audit: AuditLog;
  private readonly pieces: PlanPieces;

  constructor(
    private readonly client: DynamoDBClient,
    options: ApprovalStoreOptions,
  ) {
    this.doc = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
    this.table = options.tableName;
    this.retentionMs = (options.retentionDays ?? DEFAULT_RETENTION_DAYS) * 86_400_000;
    this.audit = new AuditLog(this.doc, this.table, this.retentionMs);
    this.pieces = new PlanPieces(this.doc, this.table, options.planPieceBytes);
  }

  /** The plan-request limits kept in the same table (rate-limit.ts). */
  rateLimits(): RateLimitStore {
    return new RateLimitStore(this.client, this.table);
  }

  /** The cluster operation locks kept in the same table (cluster-lock.ts). */
  locks(): ClusterLockStore {
    return new ClusterLockStore(this.client, this.table);
  }

  /** Creates the table (pay per request) if it does not exist; for local use and tests. `pollMs`: how often to look whether it is ACTIVE yet (default 50). */
  ensureTable(wait: { pollMs?: number } = {}): Promise<void> {
    return ensureApprovalsTable(this.client, this.table, wait);
  }

  /**
   * Stores a new request: a large plan's pieces first (short-lived), then the
   * request item (attribute_not_exists: the id is taken once), then the pieces
   * pinned to its retention, then its first audit record. 'exists' when the id
   * is taken: the caller decides whether that is its own earlier try.
   */
  async create(request: ApprovalRequest, event: AuditEvent): Promise<'created' | 'exists' | 'too-large'> {
    let plan: unknown = request.plan;
    const json = JSON.stringify(request.plan);
    if (json.length > INLINE_PLAN_CHARS) {
      const stub = await this.pieces.write(request.id, request.plan, json, request.createdAt);
      if (stub === 'too-large') return 'too-large';
      plan = stub;
    }
    const created = await applied(
      this.doc.send(
        new PutCommand({
          TableName: this.table,
          Item: {
            ...request,
            plan,
            pk: pkOf(request.id),
            sk: STATE_SK,
            recordType: 'request',
            ttl: this.ttlFor(request),
            ...(request.approvals.length > 0 ? { approverIds: new Set(request.approvals.map((a) => a.user)) } : {}),
            ...(needsSweep(request) ? { sweep: SWEEP_VALUE, sweepSince: request.createdAt } : {}),
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      ),
    );
    if (!created) return 'exists';
    const stub = pieceStubOf(plan);
    if (stub) await this.pieces.pin(request.id, stub, this.ttlFor(request), STATE_SK);
    await this.audit.put(event);
    return 'created';
  }

  /** The request, its plan reassembled and checked; a large plan's pieces left short-lived by a crash are pinned on the way. */
  async get<P extends ApprovablePlan = ApprovablePlan>(id: string): Promise<ApprovalRequest<P> | null> {
    const out = await this.doc.send(
      new GetCommand({ TableName: this.table, Key: { pk: pkOf(id), sk: STATE_SK }, ConsistentRead: true }),
    );
    if (!out.Item) return null;
    const request: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(headSchema.parse(out.Item))) if (!KEY_ATTRS.has(k)) request[k] = v;
    const stub = pieceStubOf(request.plan);
    if (stub) {
      request.plan = await this.pieces.read(id, stub, String(request.planDigest));
      await this.pieces.pin(id, stub, this.ttlFor(request as unknown as ApprovalRequest), STATE_SK);
    }
    return request as unknown as ApprovalRequest<P>;
  }

  /**
   * Writes `next` if the stored request is still exactly `prev` (same status and
   * version). Returns false when another writer got there first.
   * `addApprover`: also require that this user is not yet in the approver set and add them.
   */
  async transition(
    prev: ApprovalRequest,
    next: ApprovalRequest,
    event: AuditEvent,
    options: { addApprover?: string; onlyFields?: readonly (keyof ApprovalRequest)[] } = {},
  ): Promise<boolean> {
    const names: Record<string, string> = { '#status': 'status', '#version': 'version' };
    const values: Record<string, unknown> = { ':fromStatus': prev.status, ':fromVersion': prev.version };
    const sets: string[] = [];
    const removes: string[] = [];
    let i = 0;
    const placeholder = (attr: string) => {
      const n = `#a${i++}`;
      names[n] = attr;
      return n;
    };
    // `onlyFields`: write just these (plus status, version, events); a targeted change such as a cancel
    // request must not rewrite the run state a worker saved meanwhile without a version bump.
    const only = options.onlyFields ? new Set<string>([...options.onlyFields, 'status', 'version', 'events']) : null;
    const record = { ...next, ttl: this.ttlFor(next) } as Record<string, unknown>;
    if (!only) {
      record.sweep = needsSweep(next) ? SWEEP_VALUE : undefined;
      record.sweepSince = needsSweep(next) ? next.createdAt : undefined;
    }
    for (const [attr, value] of Object.entries(record)) {
      if (IMMUTABLE_ATTRS.has(attr) || value === undefined || (only && !only.has(attr))) continue;
      const n = attr === 'status' ? '#status' : attr === 'version' ? '#version' : placeholder(attr);
      const v = `:v${i++}`;
      values[v] = value;
      sets.push(`${n} = ${v}`);
    }
    if (!only) {
      const stored = new Set([...Object.keys(prev), 'sweep', 'sweepSince']);
      for (const attr of stored) {
        if (!IMMUTABLE_ATTRS.has(attr) && record[attr] === undefined) removes.push(placeholder(attr));
      }
    }
    let condition = '#status = :fromStatus AND #version = :fromVersion';
    if (prev.lease) {
      // takeLease, saveRun and renewLease change the lease without a version bump: a write
      // decided from an older lease (a slow worker's step after a takeover, an abandon after
      // a heartbeat) must lose and re-decide, not put the old lease back.
      names['#lease'] = 'lease';
      names['#leaseOwner'] = 'owner';
      names['#leaseUntil'] = 'until';
      values[':fromLeaseOwner'] = prev.lease.owner;
      values[':fromLeaseUntil'] = prev.lease.until;
      condition += ' AND #lease.#leaseOwner = :fromLeaseOwner AND #lease.#leaseUntil = :fromLeaseUntil';
    }
    let add = '';
    if (options.addApprover) {
      names['#approverIds'] = 'approverIds';
      values[':approver'] = options.addApprover;
      values[':approverSet'] = new Set([options.addApprover]);
      condition += ' AND NOT contains(#approverIds, :approver)';
      add = ' ADD #approverIds :approverSet';
    }
    const update = `SET ${sets.join(', ')}${removes.length ? ` REMOVE ${removes.join(', ')}` : ''}${add}`;
    const done = await applied(
      this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: pkOf(prev.id), sk: STATE_SK },
          UpdateExpression: update,
          ConditionExpression: condition,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      ),
    );
    if (!done) return false;
    // A process that died between a transition and its mirror left that event in the request item
    // only: mirrored here by the next transition (a conditional put, a no-op when it is there).
    const before = prev.events.at(-1);
    if (before) await this.audit.put(before);
    await this.audit.put(event);
    return true;
  }

  /**
   * Takes over a running request's lease when it is exactly `expected` (a
   * parked lease, or one whose worker stopped reporting). No version bump:
   * resuming a parked run is routine, not an audit event. false when another
   * worker took it first.
   */
  async takeLease(id: string, expected: Lease, next: Lease, run: RunState): Promise<boolean> {
    return this.conditionalUpdate(
      id,
      'SET #lease = :next, #run = :run',
      '#status = :executing AND #lease.#owner = :owner AND #lease.#until = :until',
      { '#lease': 'lease', '#run': 'run', '#owner': 'owner', '#until': 'until' },
      { ':next': stripUndefined(next), ':run': stripUndefined(run), ':owner': expected.owner, ':until': expected.until },
    );
  }

  /** Saves a running request's progress and lease (its owner only), without a version bump. */
  async saveRun(id: string, workerId: string, run: RunState, lease: Lease): Promise<boolean> {
    return this.conditionalUpdate(
      id,
      'SET #lease = :lease, #run = :run',
      '#status = :executing AND #lease.#owner = :owner',
      { '#lease': 'lease', '#run': 'run', '#owner': 'owner' },
      { ':lease': stripUndefined(lease), ':run': stripUndefined(run), ':owner': workerId },
    );
  }

  /** An expired request's plan message says so: it leaves the sweep's view. */
  async markExpiryShown(id: string): Promise<boolean> {
    return this.conditionalUpdate(id, 'SET #shown = :true REMOVE #sweep, #since', '#status = :expired', { '#shown': 'expiryShown', '#sweep': 'sweep', '#since': 'sweepSince' }, { ':true': true, ':expired': 'EXPIRED' });
  }

  /** A finished request's cleanup is done: it leaves the sweep index. */
  async clearCleanup(id: string): Promise<boolean> {
    return this.conditionalUpdate(
      id,
      'SET #run.#pending = :false REMOVE #sweep, #since',
      'NOT #status IN (:r, :a, :executing)',
      { '#run': 'run', '#pending': 'cleanupPending', '#sweep': 'sweep', '#since': 'sweepSince' },
      { ':false': false, ':r': 'REQUESTED', ':a': 'APPROVED' },
    );
  }

  /**
   * Operation state too large for the request item (e.g. the throttle entries
   * of a big drain), kept beside it gzipped: `RUN#<name>`. Overwritten as a whole.
   */
  async putRunData(id: string, name: string, value: unknown): Promise<void> {
    const gz = gzipSync(Buffer.from(JSON.stringify(value), 'utf8'), { level: 6 });
    if (gz.length > PLAN_CHUNK_BYTES) throw new Error(`run data ${name} of ${id} is too large (${gz.length} bytes gzipped)`);
    await this.doc.send(
      new PutCommand({
        TableName: this.table,
        Item: { pk: pkOf(id), sk: `RUN#${name}`, recordType: 'run-data', data: gz, ttl: Math.floor((Date.now() + this.retentionMs) / 1000) },
      }),
    );
  }

  async getRunData<T>(id: string, name: string): Promise<T | null> {
    const out = await this.doc.send(new GetCommand({ TableName: this.table, Key: { pk: pkOf(id), sk: `RUN#${name}` }, ConsistentRead: true }));
    if (!out.Item) return null;
    return JSON.parse(gunzipSync(Buffer.from(out.Item.data as Uint8Array)).toString('utf8')) as T;
  }

  /**
   * One page of the requests the sweep must look at (open, running, or owing
   * cleanup), oldest first, from just after `after` (a cursor this returned).
   * Each id comes with the cursor that resumes right after it, so a sweep that
   * runs out of time can hand the rest to its continuation.
   */
  async sweepPage(after?: string, limit = 100): Promise<{ entries: { id: string; cursor: string }[]; next?: string }> {
    const out = await this.doc.send(
      new QueryCommand({
        TableName: this.table,
        IndexName: SWEEP_INDEX,
        KeyConditionExpression: '#sweep = :open',
        ExpressionAttributeNames: { '#sweep': 'sweep' },
        ExpressionAttributeValues: { ':open': SWEEP_VALUE },
        ...(after ? { ExclusiveStartKey: decodeSweepCursor(after) } : {}),
        Limit: Math.max(1, Math.min(100, limit)),
      }),
    );
    const entries: { id: string; cursor: string }[] = [];
    for (const item of out.Items ?? []) {
      if (typeof item.pk !== 'string') continue;
      entries.push({ id: item.pk.slice('REQ#'.length), cursor: encodeSweepCursor({ pk: item.pk, sk: item.sk, sweep: item.sweep, sweepSince: item.sweepSince }) });
    }
    return { entries, ...(out.LastEvaluatedKey ? { next: encodeSweepCursor(out.LastEvaluatedKey) } : {}) };
  }

  /** Ids of every request the sweep must look at (oldest first), all pages, at most `limit`. */
  async listForSweep(limit = Number.POSITIVE_INFINITY): Promise<string[]> {
    const ids: string[] = [];
    let after: string | undefined;
    do {
      const page = await this.sweepPage(after, Math.min(100, limit - ids.length));
      ids.push(...page.entries.map((e) => e.id));
      after = page.next;
    } while (after && ids.length < limit);
    return ids;
  }

  private async conditionalUpdate(
    id: string,
    update: string,
    condition: string,
    names: Record<string, string>,
    values: Record<string, unknown>,
  ): Promise<boolean> {
    return applied(
      this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: pkOf(id), sk: STATE_SK },
          UpdateExpression: update,
          ConditionExpression: condition,
          // The common placeholders only where used: DynamoDB refuses a name or value an expression does not use.
          ExpressionAttributeNames: { ...(`${update} ${condition}`.includes('#status') ? { '#status': 'status' } : {}), ...names },
          ExpressionAttributeValues: { ...(`${update} ${condition}`.includes(':executing') ? { ':executing': 'EXECUTING' } : {}), ...values },
        }),
      ),
    );
  }

  /**
   * Extends the lease of a running request without a version bump (heartbeats
   * are not audit events). false when the caller no longer owns a running request.
   */
  async renewLease(id: string, workerId: string, until: number): Promise<boolean> {
    return this.conditionalUpdate(id, 'SET #lease.#until = :until', '#status = :executing AND #lease.#owner = :owner', { '#lease': 'lease', '#until': 'until', '#owner': 'owner' }, { ':owner': workerId, ':until': until });
  }


  /** Open requests must survive past expiry so the EXPIRED transition and its audit can be written. */
  private ttlFor(request: ApprovalRequest): number {
    const lastActivity = request.events.at(-1)?.at ?? request.createdAt;
    return Math.floor((Math.max(request.expiresAt, lastActivity) + this.retentionMs) / 1000);
  }
}

/** DynamoDB's marshaller rejects undefined inside maps. */
function stripUndefined<T extends object>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
