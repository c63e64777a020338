// Adding a check is one new file (toy-check.ts) plus one line in the table
// (lib/diagnose/checks/index.ts): here the line is added by mocking the table
// module, and the toy's finding comes out of a diagnosis, out of an audit
// (with the failure it prevents), and as a "Plan …" button in Slack.
import { describe, expect, it, vi } from 'vitest';
import { TOY_KIND, toyCheck } from './toy-check.ts';

vi.mock('../../lib/diagnose/checks/index.ts', async (importOriginal) => {
  const table = await importOriginal<typeof import('../../lib/diagnose/checks/index.ts')>();
  const { checkTable } = await import('../../lib/diagnose/checks/check.ts');
  const { toyCheck: toy } = await import('./toy-check.ts');
  return { ...table, ...checkTable([...table.CHECKS, toy]) }; // the one table line
});

const { detect } = await import('../../lib/diagnose/detect.ts');
const { AUDIT_CHECKS, runAuditChecks } = await import('../../lib/audit/preventive.ts');
const { renderDiagnosis } = await import('../../lib/diagnose/render-slack.ts');
const { healthyTopic, snapshot } = await import('./fixtures.ts');

const cluster = () => snapshot([healthyTopic('a', 3), healthyTopic('b', 3), healthyTopic('c', 3)]);

describe('a toy check registered in the table', () => {
  it('is run by the diagnosis', () => {
    const toy = detect(cluster()).filter((f) => f.kind === TOY_KIND);
    expect(toy).toHaveLength(1);
    expect(toy[0]).toMatchObject({ severity: 'warning', title: '3 topics, more than 2', runbook: TOY_KIND });
  });

  it('is run by the audit with the preventive profile, with the failure it prevents', () => {
    expect(AUDIT_CHECKS.map((c) => c.kind)).toContain(TOY_KIND);
    const input = { snapshot: cluster(), probes: [], hostAccess: false, brokerConfigs: null, storageHistory: null, nowMs: 0 };
    const toy = runAuditChecks(input).filter((f) => f.kind === TOY_KIND);
    expect(toy).toEqual([expect.objectContaining({ severity: 'info', prevents: toyCheck.preventive!.prevents })]);
  });

  it('offers its operation as a Slack button, from the check, not from the renderer', () => {
    const report = { cluster: 'toy', startedAt: '2026-12-05T00:00:00.000Z', durationMs: 1, findings: detect(cluster()), skippedChecks: [], partial: false };
    const blocks = renderDiagnosis(report, { correlationId: 'kr-toy' }).blocks as { accessory?: { value: string; text: { text: string } } }[];
    const buttons = blocks.flatMap((b) => (b.accessory ? [b.accessory] : []));
    expect(buttons.map((b) => b.text.text)).toEqual(['Plan raise RF of a to 3']);
    expect(JSON.parse(buttons[0]!.value)).toEqual({ cluster: 'toy', request: { kind: 'raise-replication-factor', topic: 'a', replicationFactor: 3 } });
  });
});
