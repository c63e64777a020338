// Block Kit rendering stays within Slack's limits whatever the input.
import { describe, expect, it } from 'vitest';
import { renderCanRestart, renderDiagnosis } from '../../lib/diagnose/render-slack.ts';
import { button, section } from '../../lib/slack/blocks.ts';
import { finding, report } from './helpers/harness.ts';
import { restartAssessment } from '../diagnose/fixtures.ts';

type Block = { type: string; text?: { text: string }; elements?: { text: string }[] };

function assertWithinLimits(blocks: unknown[]) {
  expect(blocks.length).toBeLessThanOrEqual(50);
  for (const b of blocks as Block[]) {
    if (b.type === 'section') expect(b.text!.text.length).toBeLessThanOrEqual(3000);
    if (b.type === 'header') expect(b.text!.text.length).toBeLessThanOrEqual(150);
    if (b.type === 'context') for (const e of b.elements!) expect(e.text.length).toBeLessThanOrEqual(3000);
  }
}

describe('renderDiagnosis', () => {
  it('renders a healthy cluster without a file', () => {
    const r = renderDiagnosis(report([]), { correlationId: 'kr-1' });
    expect(r.text).toBe('No problems found on sandbox');
    expect(r.file).toBeUndefined();
    assertWithinLimits(r.blocks);
  });

  it('orders by severity and escapes Slack control characters from cluster data', () => {
    const r = renderDiagnosis(
      report([finding(1, { severity: 'warning', title: 'warn <!channel> & co' }), finding(2, { severity: 'critical' })]),
      { correlationId: 'kr-1' },
    );
    const texts = (r.blocks as Block[]).filter((b) => b.type === 'section').map((b) => b.text!.text);
    const critical = texts.findIndex((t) => t.includes('orders-2'));
    const warning = texts.findIndex((t) => t.includes('warn &lt;!channel&gt; &amp; co'));
    expect(critical).toBeGreaterThan(-1);
    expect(warning).toBeGreaterThan(critical);
    expect(JSON.stringify(r.blocks)).not.toContain('<!channel>');
  });

  it('keeps huge reports within limits and moves the rest to a file', () => {
    const findings = Array.from({ length: 500 }, (_, i) =>
      finding(i, {
        title: 'T'.repeat(400),
        summary: 'S'.repeat(5000),
        affected: { partitions: Array.from({ length: 300 }, (_, p) => ({ topic: 'orders', partition: p })), brokers: [1, 2, 3], groups: [] },
        nextActions: ['a'.repeat(3000)],
      }),
    );
    const r = renderDiagnosis({ ...report(findings), skippedChecks: Array.from({ length: 30 }, (_, i) => `check ${i}`) }, { correlationId: 'kr-1', topic: 'x'.repeat(300) });
    assertWithinLimits(r.blocks);
    expect(r.file?.content).toContain('check 29');
    expect(r.file?.content.match(/\[CRITICAL\]/g)).toHaveLength(500);
  });
});

describe('other renderers', () => {
  it('clips sections and validates buttons', () => {
    expect((section('x'.repeat(5000)) as Block).text!.text).toHaveLength(3000);
    expect(button({ text: 'A'.repeat(100), actionId: 'approval:approve', value: 'p1' }).text.text).toHaveLength(75);
    expect(() => button({ text: 'Approve', actionId: 'a', value: 'v'.repeat(2001) })).toThrow(/store it and pass a key/);
  });

  it('renders a restart assessment with a bounded at-risk list', () => {
    const m = renderCanRestart('sandbox', restartAssessment({ brokerId: 1, verdict: 'no', reasons: Array.from({ length: 40 }, (_, i) => `r${i}`), wouldGoOffline: Array.from({ length: 5000 }, (_, i) => ({ topic: 'orders', partition: i })) }), 'kr-1');
    assertWithinLimits(m.blocks);
    expect(JSON.stringify(m.blocks)).toContain('and 4,970 more');
  });
});
