// PagerDuty V3 webhook signatures. `X-PagerDuty-Signature` carries one or
// more `v1=<hex>` entries, comma-separated: each the HMAC-SHA256 of the raw
// body with a subscription's secret. During a rotation PagerDuty signs with
// both secrets and we hold both, so every entry is tried against every secret.
// Checked on the raw bytes, before the body is parsed.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-pagerduty-signature';
/** More entries than a rotation needs is not PagerDuty: refused before any HMAC is computed. */
const MAX_SIGNATURES = 8;
const V1 = /^v1=([0-9a-f]{64})$/i;

export type SignatureCheck = { ok: true } | { ok: false; reason: string };

/** The configured secrets from the SecureString value: one a line (or comma-separated), blanks ignored. */
export function webhookSecrets(value: string): string[] {
  return value
    .split(/[\n,]/)
    .map((s) => s.trim())
    .filter(Boolean);
}

export function verifyPagerDutySignature(rawBody: Uint8Array | string, header: string | string[] | undefined, secrets: readonly string[]): SignatureCheck {
  if (secrets.length === 0) return { ok: false, reason: 'no webhook secret is configured' };
  const value = Array.isArray(header) ? header.join(',') : header;
  if (!value) return { ok: false, reason: 'no X-PagerDuty-Signature header' };
  const entries = value.split(',').map((s) => s.trim()).filter(Boolean);
  if (entries.length > MAX_SIGNATURES) return { ok: false, reason: 'too many signatures' };
  // Other schemes (a future v2) are skipped, not refused: a v1 entry beside them may still match.
  const given = entries.flatMap((e) => {
    const hex = V1.exec(e)?.[1];
    return hex ? [Buffer.from(hex, 'hex')] : [];
  });
  if (given.length === 0) return { ok: false, reason: 'no v1 signature' };
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody;
  let matched = false;
  // Every pair is compared (no early exit): the time taken says nothing about which one matched.
  for (const secret of secrets) {
    const expected = createHmac('sha256', secret).update(body).digest();
    for (const signature of given) if (timingSafeEqual(expected, signature)) matched = true;
  }
  return matched ? { ok: true } : { ok: false, reason: 'signature does not match' };
}
