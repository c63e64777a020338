// serve's own DynamoDB-compatible store (lib/local/approvals.ts): in-process
// dynalite by default, and when it cannot be loaded, the note says what failed.
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../lib/config/schema.ts';
import { startLocalApprovals } from '../../lib/local/approvals.ts';
import { BASE_CONFIG } from './helpers/harness.ts';

const withApprovers = parseConfig({ ...BASE_CONFIG, approvals: { approvers: ['U0ALICE', 'U0BOB'] } });

describe('serve’s local approvals store', () => {
  it('by default: approvals and bot state in an in-process dynalite', async () => {
    const local = await startLocalApprovals(withApprovers, {});
    try {
      expect(local.approvals).toBeDefined();
      expect(local.state).toBeDefined();
      expect(local.note).toMatch(/approvals \(table kafka-responder-approvals\) in an in-process dynalite/);
    } finally {
      await local.close();
    }
  });

  it('when dynalite cannot be loaded: the real error, operations off, never "not installed"', async () => {
    // What an ESM bundle with LevelDB's native module in it threw.
    const broken = () => Promise.reject(new ReferenceError('__dirname is not defined in ES module scope'));
    const local = await startLocalApprovals(withApprovers, {}, broken);
    expect(local.approvals).toBeUndefined();
    expect(local.note).toMatch(/^dynalite could not be loaded \(__dirname is not defined in ES module scope\)/);
    expect(local.note).toMatch(/operations are off$/);
    expect(local.note).not.toMatch(/not installed/);
  });
});
