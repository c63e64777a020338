// DynamoDB persistence for approval requests. One table, composite key:
//   pk = REQ#<id>, sk = STATE            the request (status, version, events...)
//   pk = REQ#<id>, sk = AUDIT#<seq>      one audit record per transition
//   pk = REQ#<id>, sk = NOTE#<at>#<rnd>  refused actions (who tried what, why)
// Every transition is one UpdateItem conditioned on the status and version it
// was decided from, so concurrent writers serialize and losers re-decide.
// No TransactWriteItems (dynalite lacks it): the transition's audit event is
// appended to the request item in that same write, then mirrored to its own
// AUDIT# item by the audit log (audit-log.ts).

import { ConditionalCheckFailedException, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { gunzipSync, gzipSync } from 'node:zlib';
import { SWEEP_INDEX, SWEEP_VALUE, decodeSweepCursor, encodeSweepCursor, ensureApprovalsTable } from './store-table.ts';
import { AuditLog } from './audit-log.ts';
import { ClusterLockStore } from './cluster-lock.ts';
import { KEY_ATTRS, pkOf, queryPrefix } from './records.ts';
import { RateLimitStore } from './rate-limit.ts';
import { applied } from './conditional.ts';
import { digestOf } from './fingerprint.ts';
import type { ApprovablePlan, ApprovalRequest, AuditEvent, Lease, RunState } from './types.ts';

/** Records are kept this long after their request stops being open (DynamoDB TTL deletes lazily). */
export const DEFAULT_RETENTION_DAYS = 400;


const STATE_SK = 'STATE';
function needsSweep(r: Pick<ApprovalRequest, 'status' | 'run'>): boolean {
  return r.status === 'REQUESTED' || r.status === 'APPROVED' || r.status === 'EXECUTING' || r.run?.cleanupPending === true;
}
/** Set at creation and never rewritten by a transition (the plan may be megabytes). */
const IMMUTABLE_ATTRS = new Set(['id', 'plan', 'planDigest', 'requester', 'requiredApprovals', 'createdAt', 'expiresAt']);
/** Plans above this are gzipped into PLAN#nnnn items beside the request (a drain of a big broker is megabytes). */
export const INLINE_PLAN_CHARS = 64_000;
const PLAN_CHUNK_BYTES = 300_000;
export const MAX_PLAN_CHUNKS = 20;

/** What the request item holds instead of a plan stored in chunks. */
interface ChunkedPlanStub {
  id: string;
  kind: string;
  title: string;
  fingerprint: string;
  storedInChunks: number;
}

export interface ApprovalStoreOptions {
  tableName: string;
  retentionDays?: number;
}

export class ApprovalStore {
  private readonly doc: DynamoDBDocumentClient;
  private readonly table: string;
  private readonly retentionMs: number;
  /** The audit trail and refused actions, in the same table (audit-log.ts). */
  readonly audit: AuditLog;

  constructor(
    private readonly client: DynamoDBClient,
    options: ApprovalStoreOptions,
  ) {
    this.doc = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
    this.table = options.tableName;
    this.retentionMs = (options.retentionDays ?? DEFAULT_RETENTION_DAYS) * 86_400_000;
    this.audit = new AuditLog(this.doc, this.table, this.retentionMs);
  }

  /** The plan-request limits kept in the same table (rate-limit.ts). */
  rateLimits(): RateLimitStore {
    return new RateLimitStore(this.client, this.table);
  }

  /** The cluster operation locks kept in the same table (cluster-lock.ts). */
  locks(): ClusterLockStore {
    return new ClusterLockStore(this.client, this.table);
  }

  /** Creates the table (pay per request) if it does not exist; for local use and tests. */
  ensureTable(): Promise<void> {
    return ensureApprovalsTable(this.client, this.table);
  }

  async create(request: ApprovalRequest, event: AuditEvent): Promise<'created' | 'exists' | 'too-large'> {
    let plan: ApprovablePlan | ChunkedPlanStub = request.plan;
    const json = JSON.stringify(request.plan);
    if (json.length > INLINE_PLAN_CHARS) {
      // Chunks first: the request item only appears once its whole plan is readable.
      const gz = gzipSync(Buffer.from(json, 'utf8'), { level: 9 });
      const chunks = Math.ceil(gz.length / PLAN_CHUNK_BYTES);
      if (chunks > MAX_PLAN_CHUNKS) return 'too-large';
      for (let i = 0; i < chunks; i++) {
        try {
          await this.doc.send(
            new PutCommand({
              TableName: this.table,
              Item: {
                pk: pkOf(request.id),
                sk: `PLAN#${String(i).padStart(4, '0')}`,
                recordType: 'plan-chunk',
                data: gz.subarray(i * PLAN_CHUNK_BYTES, (i + 1) * PLAN_CHUNK_BYTES),
                ttl: this.ttlFor(request),
              },
              ConditionExpression: 'attribute_not_exists(pk)',
            }),
          );
        } catch (err) {
          if (err instanceof ConditionalCheckFailedException) return 'exists';
          throw err;
        }
      }
      const { id, kind, title, fingerprint } = request.plan;
      plan = { id, kind, title, fingerprint, storedInChunks: chunks };
    }
    try {
      await this.doc.send(
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
      );
    } catch (err) {
      if (err instanceof ConditionalCheckFailedException) return 'exists';
      throw err;
    }
    await this.audit.put(event);
    return 'created';
  }

  async get<P extends ApprovablePlan = ApprovablePlan>(id: string): Promise<ApprovalRequest<P> | null> {
    const out = await this.doc.send(
      new GetCommand({ TableName: this.table, Key: { pk: pkOf(id), sk: STATE_SK }, ConsistentRead: true }),
    );
    if (!out.Item) return null;
    const request: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(out.Item)) if (!KEY_ATTRS.has(k)) request[k] = v;
    const stub = request.plan as Partial<ChunkedPlanStub> | undefined;
    if (typeof stub?.storedInChunks === 'number') request.plan = await this.readChunkedPlan(id, stub.storedInChunks, String(request.planDigest));
    return request as unknown as ApprovalRequest<P>;
  }

  /** Reassembles a gzipped plan and checks it is byte for byte what was approved. */
  private async readChunkedPlan(id: string, chunks: number, planDigest: string): Promise<unknown> {
    const items = await queryPrefix(this.doc, this.table, id, 'PLAN#');
    if (items.length !== chunks) throw new Error(`request ${id}: ${items.length} of ${chunks} plan chunks found`);
    const gz = Buffer.concat(items.map((i) => Buffer.from(i.data as Uint8Array)));
    const plan: unknown = JSON.parse(gunzipSync(gz).toString('utf8'));
    if (digestOf(plan) !== planDigest) throw new Error(`request ${id}: the stored plan does not match its digest`);
    return plan;
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
          ExpressionAttributeNames: { '#status': 'status', ...names },
          ExpressionAttributeValues: { ':executing': 'EXECUTING', ...values },
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
