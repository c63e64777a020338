import { afterEach, describe, expect, it, vi } from 'vitest';
import { closedPort } from '../helpers/net.ts';
import { run as diagnose } from '../../lib/diagnose/cli-diagnose.ts';
import { run as canRestart } from '../../lib/diagnose/cli-can-restart.ts';
import { main } from '../../lib/cli/main.ts';
import { renderReport, renderRestart } from '../../lib/diagnose/render-terminal.ts';
import { code, renderReportMarkdown, renderRestartMarkdown } from '../../lib/diagnose/render-markdown.ts';
import { detect } from '../../lib/diagnose/detect.ts';
import { assessRestart } from '../../lib/diagnose/can-restart.ts';
import { part, snapshot, topic, config } from './fixtures.ts';

afterEach(() => vi.restoreAllMocks());


describe('CLI argument handling', () => {
  it.each([
    [['--bogus']],
    [['--topic', 'not a topic; rm -rf /']],
    [['extra-positional']],
    [['--format', 'yaml']],
    [['--json', '--format', 'markdown']],
  ])('diagnose %j is a usage error (2)', async (argv) => {
    const err = vi.spyOn(console, 'error').mockImplementation(() => {});
    expect(await diagnose(argv)).toBe(2);
    expect(err).toHaveBeenCalled();
  });

  it.each([[[]], [['abc']], [['1', '2']], [['-1']]])('can-restart %j is a usage error (2)', async (argv) => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    expect(await canRestart(argv)).toBe(2);
  });

  it('an unreachable --bootstrap fails with a clear error within --timeout', async () => {
    const port = await closedPort();
    const t0 = Date.now();
    await expect(diagnose(['--bootstrap', `127.0.0.1:${port}`, '--timeout', '2'])).rejects.toThrow(/could not read cluster metadata from any bootstrap server/);
    expect(Date.now() - t0).toBeLessThan(3000);
  });

  it('--cluster without a config file is a usage error, not a guess', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    await expect(diagnose(['--cluster', 'prod'])).rejects.toThrow(expect.objectContaining({ name: 'UsageError', message: expect.stringMatching(/--config FILE/) }));
  });

  it('with no flag the module names no cluster itself: the sandbox default is the CLI entry’s (lib/cli), given to it', async () => {
    await expect(diagnose([])).rejects.toThrow(expect.objectContaining({ name: 'UsageError', message: expect.stringMatching(/name the cluster/) }));
    const home = `/nonexistent/kr-sandbox-${process.pid}`;
    const saved = process.env.KR_SANDBOX_HOME;
    process.env.KR_SANDBOX_HOME = home;
    const errors: string[] = [];
    vi.spyOn(console, 'error').mockImplementation((m: string) => void errors.push(m));
    try {
      expect(await main(['diagnose'])).toBe(1);
      expect(errors.join('\n')).toContain(`no sandbox at ${home}`);
    } finally {
      if (saved === undefined) delete process.env.KR_SANDBOX_HOME;
      else process.env.KR_SANDBOX_HOME = saved;
    }
  });

  it('an object method\'s name is an unknown command, not a crash', async () => {
    const errors: string[] = [];
    vi.spyOn(console, 'error').mockImplementation((m: string) => void errors.push(m));
    for (const name of ['constructor', '__proto__', 'toString']) expect(await main([name]), name).toBe(2);
    expect(errors.filter((e) => e.startsWith('unknown command:'))).toHaveLength(3);
  });

  it('rejects a nonsense --timeout', async () => {
    await expect(diagnose(['--bootstrap', '127.0.0.1:9', '--timeout', 'soon'])).rejects.toThrow(/--timeout must be a number of seconds/);
  });
});

describe('terminal rendering', () => {
  const s = snapshot([topic('logs', [part(0, -1, [3], []), part(1, 1, [1])], config({ minInsyncReplicas: 1 }))], {
    brokers: [1, 2].map((id) => ({ id, host: 'h', port: id, rack: null })),
  });
  const report = { cluster: 'c1', startedAt: '2026-01-01T00:00:00.000Z', durationMs: 12, findings: detect(s), skippedChecks: ['No host access: x'], partial: false };

  it('groups by severity with counts, names runbooks and skipped checks, and has no colour codes off a TTY', () => {
    const text = renderReport(report, { color: false });
    expect(text).toContain('3 findings: 1 critical, 1 error, 1 warning');
    expect(text.indexOf('CRITICAL (1)')).toBeLessThan(text.indexOf('ERROR (1)'));
    expect(text).toContain('runbooks/offline-partition.md');
    expect(text).toContain('Not checked:');
    expect(text).not.toContain('\x1b[');
  });

  it('colours when asked', () => {
    expect(renderReport(report, { color: true })).toContain('\x1b[1;31m');
  });

  it('a healthy report says so', () => {
    expect(renderReport({ ...report, findings: [], skippedChecks: [] }, { color: false })).toContain('No findings: the cluster looks healthy.');
  });

  it('can-restart prints a clear verdict with reasons', () => {
    const text = renderRestart(assessRestart(s, 1), { color: false });
    expect(text).toMatch(/^Can broker 1 be restarted now\? NO/);
    expect(text).toContain('would go offline (1): logs-1');
  });
});

describe('markdown rendering (for a ticket)', () => {
  const s = snapshot([topic('logs', [part(0, -1, [3], []), part(1, 1, [1])], config({ minInsyncReplicas: 1 }))], {
    brokers: [1, 2].map((id) => ({ id, host: 'h', port: id, rack: null })),
  });
  const report = { cluster: 'prod_eu', startedAt: '2026-01-01T00:00:00.000Z', durationMs: 12, findings: detect(s), skippedChecks: ['No host access: x'], partial: false };

  it('has a heading, a summary table worst first, each finding with partitions in code spans and its runbook', () => {
    const md = renderReportMarkdown(report);
    expect(md.startsWith('## Kafka diagnosis: prod\\_eu\n')).toBe(true);
    const rows = md.split('\n').filter((l) => /^\| (critical|error|warning|info) \|/.test(l));
    expect(rows.map((r) => r.split('|')[1]!.trim())).toEqual(['critical', 'error', 'warning']);
    expect(md).toContain('`logs-0`');
    expect(md).toContain('Runbook: `runbooks/offline-partition.md`');
    expect(md).toContain('**Not checked:**');
  });

  it('keeps cluster-derived text from forming markup', () => {
    expect(code('a`b')).toBe('``a`b``');
    expect(code('`x')).toBe('`` `x ``');
    const md = renderReportMarkdown({ ...report, cluster: '<script>*x*', findings: [] });
    expect(md).toContain('\\<script\\>\\*x\\*');
    expect(md).toContain('No findings');
  });

  it('a restart verdict says yes or no first, then why', () => {
    const md = renderRestartMarkdown('prod', assessRestart(s, 1));
    expect(md).toMatch(/^## Can broker 1 of prod restart now\? \*\*No\*\*/);
    expect(md).toContain('**Would go offline (1):** `logs-1`');
  });
});
