// The host scripts' registry: one entry makes the SSM document, the
// parameters sent with it and what the local executor runs.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TOPIC_NAME } from '../../lib/kafka/names.ts';
import { LocalExecutor } from '../../lib/hosts/local-executor.ts';
import { HOST_SCRIPT_FILES } from '../../lib/hosts/script-text.ts';
import { PROBE_LOG_CATEGORIES } from '../../lib/hosts/probe-schema.ts';
import { HOST_SCRIPTS, PROBE_PARTS, checkParams, cloudFormationResources, documentCommands, scriptArgs, ssmDocument } from '../../lib/hosts/scripts.ts';

const dir = mkdtempSync(join(tmpdir(), 'kr-scripts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('host scripts registry', () => {
  it('renders at package time (esbuild, each .sh loaded as text) exactly the documents of the registry run from source', async () => {
    const { renderDocuments } = createRequire(import.meta.url)('../../handlers/build/ssm-documents-plugin.cjs') as { renderDocuments: () => Promise<unknown> };
    expect(await renderDocuments()).toEqual(JSON.parse(JSON.stringify(cloudFormationResources())));
  });

  it('has one source per script: every lib/hosts/*.sh is a registry body or one of the probe\'s parts, and nothing else is', () => {
    const shFiles = readdirSync(new URL('../../lib/hosts/', import.meta.url)).filter((f) => f.endsWith('.sh')).sort();
    expect([...HOST_SCRIPT_FILES].sort()).toEqual(shFiles);
    const read = (f: string) => readFileSync(new URL(`../../lib/hosts/${f}`, import.meta.url), 'utf8');
    const whole = shFiles.filter((f) => !(PROBE_PARTS as readonly string[]).includes(f));
    const bodies = Object.values(HOST_SCRIPTS).map((s) => s.body()).sort();
    expect(bodies).toEqual([...whole.map(read), PROBE_PARTS.map(read).join('')].sort());
  });

  it('joins the probe from its parts, probe.sh first (the arguments and helpers the others use), each part whole lines and under 450 of them', () => {
    expect(PROBE_PARTS[0]).toBe('probe.sh');
    const body = HOST_SCRIPTS.probe.body();
    expect(body.startsWith('#!/usr/bin/env bash\n')).toBe(true);
    expect(body.split('\n').filter((l) => l.startsWith('#!'))).toHaveLength(1);
    for (const part of PROBE_PARTS) {
      const text = readFileSync(new URL(`../../lib/hosts/${part}`, import.meta.url), 'utf8');
      expect(text.endsWith('\n'), part).toBe(true);
      expect(text.split('\n').length, part).toBeLessThan(450);
    }
    expect(spawnSync('bash', ['-n'], { input: body }).status).toBe(0);
  });

  it('the probe prints exactly the log line categories the record reader knows (and offsetsLoad, read into load starts and finishes)', () => {
    const declared = [...HOST_SCRIPTS.probe.body().matchAll(/^category (\w+) /gm)].map((m) => m[1]);
    expect(declared).toEqual([...PROBE_LOG_CATEGORIES.slice(0, -2), 'offsetsLoad', ...PROBE_LOG_CATEGORIES.slice(-2)]);
  });

  it('writes documents SSM accepts: schema 2.2, one Linux shell step, every parameter a pattern-checked environment variable, under 64 KB', () => {
    for (const script of Object.values(HOST_SCRIPTS)) {
      const doc = ssmDocument(script) as { schemaVersion: string; parameters: Record<string, { allowedPattern: string; interpolationType?: string }>; mainSteps: { action: string }[] };
      expect(doc.schemaVersion).toBe('2.2');
      expect(doc.mainSteps.map((s) => s.action)).toEqual(['aws:runShellScript']);
      for (const p of script.parameters) expect(doc.parameters[p.name]).toMatchObject({ allowedPattern: p.allowedPattern, interpolationType: 'ENV_VAR' });
      expect(JSON.stringify(doc).length).toBeLessThan(64 * 1024);
    }
  });

  it('uses Kafka\'s own topic rule for topic parameters', () => {
    const topic = HOST_SCRIPTS['replica-data'].parameters.find((p) => p.name === 'topic')!;
    expect(topic.allowedPattern).toBe(TOPIC_NAME.source);
  });

  it('refuses values outside the patterns: shell text, relative paths, too long topics, bad units', () => {
    const rd = HOST_SCRIPTS['replica-data'];
    const ok = { kafkaBin: '/opt/kafka/bin', topic: 'orders', partition: '0', logDirs: '/data/1,/data/2' };
    expect(scriptArgs(rd, ok)).toEqual(['/opt/kafka/bin', 'orders', '0', '/data/1', '/data/2']);
    for (const bad of [{ topic: 'a;reboot' }, { topic: 'x'.repeat(250) }, { kafkaBin: 'bin' }, { logDirs: '/a,b' }, { partition: '-1' }, { logDirs: '/a b' }]) {
      expect(() => checkParams(rd, { ...ok, ...bad }), JSON.stringify(bad)).toThrow(/refusing/);
    }
    expect(() => checkParams(HOST_SCRIPTS.probe, { systemdUnit: 'kafka; reboot.service' })).toThrow(/refusing systemdUnit/);
    expect(scriptArgs(HOST_SCRIPTS.probe, { systemdUnit: 'kafka.service' })).toEqual(['--systemd-unit', 'kafka.service']);
  });

  it('runs the document commands under a plain POSIX sh (dash where there is one), as the SSM agent does', () => {
    const shell = spawnSync('sh', ['-c', 'command -v dash'], { encoding: 'utf8' }).stdout.trim() || 'sh';
    const script = { name: 't', description: 't', body: () => 'printf "%s|" "$@"', parameters: HOST_SCRIPTS['replica-data'].parameters };
    const env = { PATH: process.env.PATH!, SSM_kafkaBin: '/opt/kafka/bin', SSM_topic: 'orders', SSM_partition: '3', SSM_logDirs: '/d/1,/d/2' };
    const r = spawnSync(shell, ['-c', documentCommands(script).join('\n')], { encoding: 'utf8', env });
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('/opt/kafka/bin|orders|3|/d/1|/d/2|');
  });

  it("makes of every script's parameters the arguments the local executor passes (scriptArgs), under sh as the agent runs it", () => {
    const shell = spawnSync('sh', ['-c', 'command -v dash'], { encoding: 'utf8' }).stdout.trim() || 'sh';
    // Every registered script, once with each optional value given and once with none.
    const samples: Record<string, Record<string, string>[]> = {
      probe: [{}, { config: '/h/b1/config/server.properties', systemdUnit: 'kafka.service', unitFile: '/h/b1/systemd/kafka.service', pidFile: '/h/b1/broker.pid', logBytes: '1048576', scanDeadline: '9' }],
      'replica-data': [{ kafkaBin: '/opt/kafka/bin', topic: 'orders.v2_x-y', partition: '17', logDirs: '/d/1,/d/2,/d/3' }],
      'service-control': [{ action: 'stop', unit: 'kafka.service', logsDir: '-' }, { action: 'status', unit: 'kafka', logsDir: '/var/log/kafka', logDirs: '/data/1,/data/2' }],
    };
    expect(Object.keys(samples).sort()).toEqual(Object.keys(HOST_SCRIPTS).sort());
    for (const [name, cases] of Object.entries(samples)) {
      const script = { ...HOST_SCRIPTS[name as keyof typeof HOST_SCRIPTS], body: () => 'printf "%s\\n" "$0" "$@"' };
      for (const params of cases) {
        const env: Record<string, string> = { PATH: process.env.PATH! };
        for (const p of script.parameters) env[`SSM_${p.name}`] = params[p.name] ?? '';
        const r = spawnSync(shell, ['-c', documentCommands(script).join('\n')], { encoding: 'utf8', env });
        expect(r.stderr).toBe('');
        expect(r.stdout.split('\n').slice(0, -1), `${name} ${JSON.stringify(params)}`).toEqual([script.name, ...scriptArgs(script, params)]);
      }
    }
  });

  it('hands bash the script from descriptor 3 as its -c text: its stdin is empty (never its own text), nothing is left in /tmp, and its exit code is the document\'s', () => {
    const shell = spawnSync('sh', ['-c', 'command -v dash'], { encoding: 'utf8' }).stdout.trim() || 'sh';
    const body = () => ['#!/usr/bin/env bash', 'echo "stdin:$(cat)"', 'printf "%s|" "$@"', ...Array.from({ length: 1600 }, (_, i) => `: line ${i} of a script longer than a pipe holds`), 'exit 7', ''].join('\n');
    const script = { name: 't', description: 't', body, parameters: HOST_SCRIPTS['replica-data'].parameters };
    const env = { PATH: process.env.PATH!, SSM_kafkaBin: '/opt/kafka/bin', SSM_topic: 'orders', SSM_partition: '3', SSM_logDirs: '/d/1' };
    const before = readdirSync('/tmp').filter((f) => f.startsWith('kafka-responder.'));
    const r = spawnSync(shell, ['-c', documentCommands(script).join('\n')], { encoding: 'utf8', env });
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('stdin:\n/opt/kafka/bin|orders|3|/d/1|');
    expect(r.status).toBe(7);
    expect(readdirSync('/tmp').filter((f) => f.startsWith('kafka-responder.'))).toEqual(before);
  });

  it('refuses a script too long for one argument of bash -c', () => {
    const script = { name: 't', description: 't', body: () => `: ${'x'.repeat(130_000)}\n`, parameters: [] };
    expect(() => documentCommands(script)).toThrow(/over 120000 bytes/);
  });

  it('measures a partition of a 249-character topic (Kafka\'s longest) on a host: nothing in the path limits it', async () => {
    const topic = 't'.repeat(249);
    const logDir = join(dir, 'data');
    mkdirSync(join(logDir, `${topic}-0`), { recursive: true });
    writeFileSync(join(logDir, `${topic}-0`, '00000000000000000000.log'), Buffer.alloc(1234));
    writeFileSync(join(logDir, 'replication-offset-checkpoint'), `0\n1\n${topic} 0 42\n`);
    const [r] = await new LocalExecutor().run([{ brokerId: 1, address: dir }], {
      script: 'replica-data',
      params: { kafkaBin: join(dir, 'no-bin'), topic, partition: '0', logDirs: logDir },
      timeoutMs: 10_000,
      comment: 't',
    });
    expect(r!.stderr).toBe('');
    expect(JSON.parse(r!.stdout)).toMatchObject({ found: true, sizeBytes: 1234, checkpointedHighWatermark: 42 });
  });
});
