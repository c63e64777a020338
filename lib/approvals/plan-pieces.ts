// A plan too large for the request item, gzipped into pieces beside it:
//   pk = REQ#<id>, sk = CHUNK#<key>#nnnn   (key: sha256 of the gzipped plan)
//   pk = REQ#<id>, sk = PLAN#nnnn          (older requests: read only)
//
// The pieces are written before the request item (store.ts), so a request
// only exists once its whole plan is readable, and nothing is approvable
// before that. A job that dies between pieces is retried (SQS) with the same
// request id; the retry must be able to finish. Hence:
// - pieces are named by their content: a retry with the same bytes finds its
//   pieces already written and goes on; a retry that planned again (a later
//   snapshot) writes its own and never mixes its bytes with another's;
// - pieces start short-lived (PENDING_PIECE_TTL_MS): those of an attempt that
//   never got its request item vanish within a day, not in 400 days;
// - once the request item names them, they are pinned to its retention, and
//   the item records `pinned`; a request read without it (the job died just
//   after writing it) is pinned by that read.
// - pieces of an earlier attempt that planned differently are expired by the
//   retry that replaces them (expireEarlierAttempts).
// Otherwise no piece write ever shortens a piece's life.

import { type DynamoDBDocumentClient, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import * as z from 'zod';
import { applied } from './conditional.ts';
import { digestOf } from './fingerprint.ts';
import { pkOf, queryPrefix } from './records.ts';
import type { ApprovablePlan } from './types.ts';

/** Plans above this are stored in pieces (a drain of a big broker is megabytes). */
export const INLINE_PLAN_CHARS = 64_000;
export const PLAN_CHUNK_BYTES = 300_000;
export const MAX_PLAN_CHUNKS = 20;
/** How long pieces live until their request item names them: a retry comes within minutes. */
export const PENDING_PIECE_TTL_MS = 86_400_000;
/** Pieces written this long ago by an attempt that never named them are an earlier attempt's, not a live one's. */
export const STALE_ATTEMPT_MS = 10 * 60_000;

/** What the request item holds instead of a plan stored in pieces; checked on every read. */
const pieceStubSchema = z.object({
  id: z.string(),
  kind: z.string(),
  title: z.string(),
  fingerprint: z.string(),
  storedInChunks: z.number().int().min(1).max(MAX_PLAN_CHUNKS),
  /** Absent on requests stored before pieces were named by content (PLAN#nnnn, written long-lived). */
  chunkKey: z.string().regex(/^[0-9a-f]{32}$/).optional(),
  pinned: z.literal(true).optional(),
});
export type PieceStub = z.infer<typeof pieceStubSchema>;

const pieceSchema = z.object({ data: z.instanceof(Uint8Array) });

/** Whether a stored plan attribute is a stub (the plan is in pieces), validated; null for an inline plan. */
export function pieceStubOf(stored: unknown): PieceStub | null {
  if (typeof (stored as { storedInChunks?: unknown } | null)?.storedInChunks !== 'number') return null;
  return pieceStubSchema.parse(stored);
}

export class PlanPieces {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly table: string,
    /** Bytes per piece; smaller only in tests, so a plan spanning pieces stays small. */
    private readonly pieceBytes = PLAN_CHUNK_BYTES,
  ) {}

  /**
   * Writes the pieces of a large plan, short-lived, and returns the stub the
   * request item stores instead; 'too-large' beyond MAX_PLAN_CHUNKS.
   * Each write: PutItem CHUNK#<key>#nnnn if absent or shorter-lived.
   */
  async write(id: string, plan: ApprovablePlan, json: string, now: number): Promise<PieceStub | 'too-large'> {
    const gz = gzipSync(Buffer.from(json, 'utf8'), { level: 9 });
    const size = this.pieceBytes;
    const chunks = Math.ceil(gz.length / size);
    if (chunks > MAX_PLAN_CHUNKS) return 'too-large';
    const chunkKey = createHash('sha256').update(gz).digest('hex').slice(0, 32);
    const ttl = Math.floor((now + PENDING_PIECE_TTL_MS) / 1000);
    await this.expireEarlierAttempts(id, chunkKey, now);
    for (let i = 0; i < chunks; i++) {
      // Same key, same bytes: a piece already there (an earlier try, a pinned one) is kept as it is.
      await applied(
        this.doc.send(
          new PutCommand({
            TableName: this.table,
            Item: { pk: pkOf(id), sk: skOf(chunkKey, i), recordType: 'plan-chunk', data: gz.subarray(i * size, (i + 1) * size), ttl },
            ConditionExpression: 'attribute_not_exists(pk) OR #ttl < :ttl',
            ExpressionAttributeNames: { '#ttl': 'ttl' },
            ExpressionAttributeValues: { ':ttl': ttl },
          }),
        ),
      );
    }
    return { id: plan.id, kind: plan.kind, title: plan.title, fingerprint: plan.fingerprint, storedInChunks: chunks, chunkKey };
  }

  /**
   * Pieces an earlier attempt at this request wrote for a plan it never got to
   * name (it died before the request item; this retry planned again): expired
   * now, so no piece outlives the attempt that replaced it. Only pieces older
   * than STALE_ATTEMPT_MS and still short-lived (never pinned): SQS retries a
   * job after its visibility timeout, while two live attempts at once are
   * minutes apart and must not expire each other's pieces.
   * Writes: UpdateItem per such piece (SET ttl = now, if its ttl is unchanged).
   */
  private async expireEarlierAttempts(id: string, keep: string, now: number): Promise<void> {
    const pending = Math.floor((now + PENDING_PIECE_TTL_MS) / 1000);
    const writtenBefore = Math.floor((now - STALE_ATTEMPT_MS + PENDING_PIECE_TTL_MS) / 1000);
    let start: Record<string, unknown> | undefined;
    do {
      const out = await this.doc.send(
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ProjectionExpression: 'sk, #ttl',
          ExpressionAttributeNames: { '#ttl': 'ttl' },
          ExpressionAttributeValues: { ':pk': pkOf(id), ':prefix': 'CHUNK#' },
          ConsistentRead: true,
          ExclusiveStartKey: start,
        }),
      );
      for (const item of out.Items ?? []) {
        const { sk, ttl } = item as { sk?: unknown; ttl?: unknown };
        if (typeof sk !== 'string' || typeof ttl !== 'number' || sk.startsWith(`CHUNK#${keep}#`)) continue;
        if (ttl > pending || ttl > writtenBefore || ttl <= Math.floor(now / 1000)) continue;
        await applied(
          this.doc.send(
            new UpdateCommand({
              TableName: this.table,
              Key: { pk: pkOf(id), sk },
              UpdateExpression: 'SET #ttl = :now',
              ConditionExpression: '#ttl = :seen',
              ExpressionAttributeNames: { '#ttl': 'ttl' },
              ExpressionAttributeValues: { ':now': Math.floor(now / 1000), ':seen': ttl },
            }),
          ),
        );
      }
      start = out.LastEvaluatedKey;
    } while (start);
  }

  /**
   * Gives the pieces the request item names its retention (`ttl`, epoch
   * seconds), then marks the item pinned. Idempotent; repeated after a crash.
   * Writes: UpdateItem per piece (SET ttl if it exists and lives shorter),
   * then UpdateItem on the request item (SET plan.pinned if it names these pieces).
   */
  async pin(id: string, stub: PieceStub, ttl: number, stateSk: string): Promise<void> {
    if (!stub.chunkKey || stub.pinned) return;
    for (let i = 0; i < stub.storedInChunks; i++) {
      await applied(
        this.doc.send(
          new UpdateCommand({
            TableName: this.table,
            Key: { pk: pkOf(id), sk: skOf(stub.chunkKey, i) },
            UpdateExpression: 'SET #ttl = :ttl',
            ConditionExpression: 'attribute_exists(pk) AND #ttl < :ttl',
            ExpressionAttributeNames: { '#ttl': 'ttl' },
            ExpressionAttributeValues: { ':ttl': ttl },
          }),
        ),
      );
    }
    await applied(
      this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: pkOf(id), sk: stateSk },
          UpdateExpression: 'SET #plan.#pinned = :true',
          ConditionExpression: 'attribute_exists(pk) AND #plan.#key = :key',
          ExpressionAttributeNames: { '#plan': 'plan', '#pinned': 'pinned', '#key': 'chunkKey' },
          ExpressionAttributeValues: { ':true': true, ':key': stub.chunkKey },
        }),
      ),
    );
  }

  /** Reassembles a plan from its pieces and checks it is byte for byte what was approved. */
  async read(id: string, stub: PieceStub, planDigest: string): Promise<unknown> {
    const prefix = stub.chunkKey ? `CHUNK#${stub.chunkKey}#` : 'PLAN#';
    const items = (await queryPrefix(this.doc, this.table, id, prefix)).map((i) => pieceSchema.parse(i));
    if (items.length !== stub.storedInChunks) throw new Error(`request ${id}: ${items.length} of ${stub.storedInChunks} plan chunks found`);
    const gz = Buffer.concat(items.map((i) => Buffer.from(i.data)));
    const plan: unknown = JSON.parse(gunzipSync(gz).toString('utf8'));
    if (digestOf(plan) !== planDigest) throw new Error(`request ${id}: the stored plan does not match its digest`);
    return plan;
  }
}

function skOf(chunkKey: string, i: number): string {
  return `CHUNK#${chunkKey}#${String(i).padStart(4, '0')}`;
}
