// Jobs that would not fit in a queue message. SQS takes at most 256 KiB per
// message (body and attributes) and refuses anything larger on every retry,
// so a job never leaves here over that: a payload too large is stored in the
// state table (gzipped, in parts under DynamoDB's 400 KB item limit) and the
// job carries its key; the consumer reads it back (readSpilled).
//
// Why the state table and not an S3 bucket: the payloads are bounded digests
// (an alert group's counts and first alerts), a few hundred KB at worst and
// tens of KB gzipped, which a handful of items hold; every function already
// has the table, its TTL removes what is read or not, and serve and the tests
// run the same path on their dynalite. A bucket would add a resource, a
// lifecycle rule and a second client to the alerts bundle for nothing a table
// cannot do at this size.
import { gunzipSync, gzipSync } from 'node:zlib';
import * as z from 'zod';
import type { Job } from './job.ts';
import { ResponderError } from '../runtime/errors.ts';

/** SQS's limit for one message, body and attributes. */
export const SQS_MAX_MESSAGE_BYTES = 256 * 1024;
/** What a job's JSON may take of it (SqsJobQueue sends no attributes; the margin is for the FIFO ids). */
export const MAX_JOB_BYTES = SQS_MAX_MESSAGE_BYTES - 4 * 1024;
/** Characters of base64 per stored part: an item stays well under DynamoDB's 400 KB. */
const PART_CHARS = 300_000;
/** 100 parts of 300,000 base64 characters: 22 MB gzipped, far beyond any bounded payload. */
const MAX_PARTS = 100;
/** Longer than SQS keeps a message (4 days by default, 14 at most) plus its retries. */
export const SPILL_TTL_SECONDS = 15 * 24 * 3600;

/** The slice of the state store this needs (lib/state's StateStore has it). */
export interface SpillStore {
  create<T>(key: string, value: T, ttlSeconds: number): Promise<boolean>;
  get<T = unknown>(key: string): Promise<{ value: T } | null>;
}

export const spilledPayloadSchema = z.object({
  spilled: z.object({
    key: z.string().min(1).max(200),
    parts: z.number().int().min(1).max(MAX_PARTS),
    /** The payload's JSON, in bytes, before gzip. */
    bytes: z.number().int().min(0),
  }),
});
export type SpilledPayload = z.infer<typeof spilledPayloadSchema>;

/** A job too large for a queue message even after its payload was stored (a bug, never the sender's fault). */
export class JobTooLargeError extends ResponderError {
  readonly failure = 'fatal';
  override name = 'JobTooLargeError';
}

export function jobBytes(job: Job): number {
  return Buffer.byteLength(JSON.stringify(job), 'utf8');
}

/** Throws unless the job fits in one queue message. */
export function assertJobFits(job: Job): void {
  const bytes = jobBytes(job);
  if (bytes > MAX_JOB_BYTES) throw new JobTooLargeError(`job ${job.id} (${job.kind}) is ${bytes} bytes; a queue message takes at most ${MAX_JOB_BYTES}`);
}

export interface FittedJob {
  job: Job;
  /** The job as it travels, in bytes. */
  bytes: number;
  /** Set when the payload was stored: its size before gzip. */
  spilledBytes?: number;
}

/** The job as it can travel: itself when it fits, else with its payload stored and replaced by the key. */
export async function fitJob(job: Job, store: SpillStore, ttlSeconds = SPILL_TTL_SECONDS): Promise<FittedJob> {
  const bytes = jobBytes(job);
  if (bytes <= MAX_JOB_BYTES) return { job, bytes };
  const text = JSON.stringify(job.payload);
  const b64 = gzipSync(Buffer.from(text, 'utf8'), { level: 6 }).toString('base64');
  const parts = Math.max(1, Math.ceil(b64.length / PART_CHARS));
  if (parts > MAX_PARTS) throw new JobTooLargeError(`job ${job.id} (${job.kind}): payload of ${text.length} characters is too large to store`);
  const key = `spill:${job.id}`;
  for (let i = 0; i < parts; i++) {
    // create(): a retried intake with the same job id finds its parts there already, which is fine (same content).
    await store.create(`${key}:${i}`, b64.slice(i * PART_CHARS, (i + 1) * PART_CHARS), ttlSeconds);
  }
  const spilled: SpilledPayload = { spilled: { key, parts, bytes: Buffer.byteLength(text, 'utf8') } };
  const small: Job = { ...job, payload: spilled };
  assertJobFits(small);
  return { job: small, bytes: jobBytes(small), spilledBytes: spilled.spilled.bytes };
}

export function isSpilled(payload: unknown): payload is SpilledPayload {
  return spilledPayloadSchema.safeParse(payload).success;
}

/** The payload a spilled job carried; throws when a part is gone (expired or never written). */
export async function readSpilled(ref: SpilledPayload, store: SpillStore): Promise<unknown> {
  const chunks: string[] = [];
  for (let i = 0; i < ref.spilled.parts; i++) {
    const item = await store.get<string>(`${ref.spilled.key}:${i}`);
    if (!item || typeof item.value !== 'string') throw new SpilledPayloadMissingError(`stored payload ${ref.spilled.key} is missing part ${i + 1} of ${ref.spilled.parts}`);
    chunks.push(item.value);
  }
  return JSON.parse(gunzipSync(Buffer.from(chunks.join(''), 'base64')).toString('utf8')) as unknown;
}

/** The stored payload is gone (expired or never written): it will not come back. */
export class SpilledPayloadMissingError extends ResponderError {
  readonly failure = 'fatal';
  override name = 'SpilledPayloadMissingError';
}
