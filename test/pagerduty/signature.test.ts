// V3 webhook signatures: every v1 entry against every configured secret, on the raw bytes.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verifyPagerDutySignature, webhookSecrets } from '../../lib/pagerduty/signature.ts';
import { PAGERDUTY_EXAMPLES } from '../../lib/pagerduty/examples.ts';

const body = JSON.stringify(PAGERDUTY_EXAMPLES.triggered);
const sign = (secret: string, raw: string | Buffer = body) => `v1=${createHmac('sha256', secret).update(raw).digest('hex')}`;

describe('verifyPagerDutySignature', () => {
  it('accepts the body signed with the configured secret, as a string or as bytes', () => {
    expect(verifyPagerDutySignature(body, sign('s3cret'), ['s3cret'])).toEqual({ ok: true });
    expect(verifyPagerDutySignature(Buffer.from(body), sign('s3cret'), ['s3cret'])).toEqual({ ok: true });
  });

  it('refuses a wrong secret, a changed body and a mangled signature', () => {
    expect(verifyPagerDutySignature(body, sign('other'), ['s3cret'])).toEqual({ ok: false, reason: 'signature does not match' });
    // One byte of whitespace changes the HMAC: verified on the raw body, never on re-serialised JSON.
    expect(verifyPagerDutySignature(`${body} `, sign('s3cret'), ['s3cret']).ok).toBe(false);
    expect(verifyPagerDutySignature(body, sign('s3cret').slice(0, -2), ['s3cret'])).toEqual({ ok: false, reason: 'no v1 signature' });
    expect(verifyPagerDutySignature(body, sign('s3cret').replace('v1=', 'v2='), ['s3cret'])).toEqual({ ok: false, reason: 'no v1 signature' });
  });

  it('refuses a request without the header, and any request when no secret is configured', () => {
    expect(verifyPagerDutySignature(body, undefined, ['s3cret'])).toEqual({ ok: false, reason: 'no X-PagerDuty-Signature header' });
    expect(verifyPagerDutySignature(body, '', ['s3cret']).ok).toBe(false);
    expect(verifyPagerDutySignature(body, sign('s3cret'), [])).toEqual({ ok: false, reason: 'no webhook secret is configured' });
  });

  it('rotation: the old and the new secret are both accepted while both are configured', () => {
    const secrets = webhookSecrets('new-secret\nold-secret\n');
    expect(secrets).toEqual(['new-secret', 'old-secret']);
    expect(verifyPagerDutySignature(body, sign('old-secret'), secrets).ok).toBe(true);
    expect(verifyPagerDutySignature(body, sign('new-secret'), secrets).ok).toBe(true);
    expect(verifyPagerDutySignature(body, sign('old-secret'), ['new-secret']).ok).toBe(false);
  });

  it('several v1 entries (PagerDuty signs with each secret of the subscription): any one matching is enough', () => {
    expect(verifyPagerDutySignature(body, `${sign('unknown')},${sign('s3cret')}`, ['s3cret']).ok).toBe(true);
    expect(verifyPagerDutySignature(body, `${sign('s3cret')}, ${sign('unknown')}`, ['a', 's3cret']).ok).toBe(true);
    expect(verifyPagerDutySignature(body, [sign('unknown'), sign('s3cret')], ['s3cret']).ok).toBe(true);
    expect(verifyPagerDutySignature(body, `${sign('x')},${sign('y')}`, ['s3cret']).ok).toBe(false);
    // An unknown scheme beside a good v1 entry does not spoil it.
    expect(verifyPagerDutySignature(body, `v2=abc,${sign('s3cret')}`, ['s3cret']).ok).toBe(true);
    expect(verifyPagerDutySignature(body, Array.from({ length: 9 }, () => sign('s3cret')).join(','), ['s3cret'])).toEqual({ ok: false, reason: 'too many signatures' });
  });

  it('reads secrets separated by commas too, blanks ignored', () => {
    expect(webhookSecrets(' a , b,,\n c ')).toEqual(['a', 'b', 'c']);
  });
});
