// Slack request signing, checked before Bolt sees the request: Bolt rejects
// stale timestamps but accepts future ones and replays within its window, so
// we reject both ourselves.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_TOLERANCE_SECONDS = 300;

export type VerifyResult = { ok: true; timestamp: number; signature: string } | { ok: false; reason: string };

export function signSlackRequest(signingSecret: string, timestamp: number, rawBody: string): string {
  return `v0=${createHmac('sha256', signingSecret).update(`v0:${timestamp}:${rawBody}`).digest('hex')}`;
}

export function verifySlackSignature(input: {
  signingSecret: string;
  rawBody: string;
  signature: string | undefined;
  timestamp: string | undefined;
  nowSeconds: number;
  toleranceSeconds?: number;
}): VerifyResult {
  const tolerance = input.toleranceSeconds ?? SIGNATURE_TOLERANCE_SECONDS;
  if (!input.signature || !input.timestamp) return { ok: false, reason: 'missing X-Slack-Signature or X-Slack-Request-Timestamp' };
  if (!/^\d{1,12}$/.test(input.timestamp)) return { ok: false, reason: 'malformed X-Slack-Request-Timestamp' };
  const timestamp = Number(input.timestamp);
  if (timestamp < input.nowSeconds - tolerance) return { ok: false, reason: 'request timestamp is older than 5 minutes' };
  if (timestamp > input.nowSeconds + tolerance) return { ok: false, reason: 'request timestamp is more than 5 minutes in the future' };
  if (!/^v0=[0-9a-f]{64}$/.test(input.signature)) return { ok: false, reason: 'malformed X-Slack-Signature' };
  const expected = Buffer.from(signSlackRequest(input.signingSecret, timestamp, input.rawBody));
  const given = Buffer.from(input.signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return { ok: false, reason: 'signature mismatch' };
  return { ok: true, timestamp, signature: input.signature };
}
