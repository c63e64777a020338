// `kafka-responder timeline` with neither store named (no KR_APPROVALS_DYNAMODB_ENDPOINT,
// no STATE_TABLE): a usage error saying which to set, before any AWS call.
import { afterEach, expect, it, vi } from 'vitest';
import { main } from '../../lib/cli/main.ts';

afterEach(() => vi.restoreAllMocks());

it('with no store named, exits 2 and says to set KR_APPROVALS_DYNAMODB_ENDPOINT or STATE_TABLE', async () => {
  const errors: string[] = [];
  vi.spyOn(console, 'error').mockImplementation((m: unknown) => void errors.push(String(m)));
  const saved = { endpoint: process.env.KR_APPROVALS_DYNAMODB_ENDPOINT, table: process.env.STATE_TABLE };
  delete process.env.KR_APPROVALS_DYNAMODB_ENDPOINT;
  delete process.env.STATE_TABLE;
  try {
    expect(await main(['timeline', '--incident', 'C0123ABC/1764662400.000100'])).toBe(2);
  } finally {
    if (saved.endpoint !== undefined) process.env.KR_APPROVALS_DYNAMODB_ENDPOINT = saved.endpoint;
    if (saved.table !== undefined) process.env.STATE_TABLE = saved.table;
  }
  expect(errors.join('\n')).toMatch(/set KR_APPROVALS_DYNAMODB_ENDPOINT \(a local serve's store\) or STATE_TABLE \(the deployed bot's\)/);
});
