// ALERT_SOURCES and what follows from it: serverless.yml's routes, secrets
// and outputs and the docs' table are what scripts/alert-sources.ts writes;
// every source's examples pass its schema and map to events; serve serves
// exactly the table's routes.
import { describe, expect, it } from 'vitest';
import { ALERT_SOURCES } from '../../lib/alerts/sources/index.ts';
import { routeAuth } from '../../lib/alerts/sources/types.ts';
import { ALERT_SOURCE_NAME } from '../../lib/config/schema.ts';
import { unknownSourceNames } from '../../lib/alerts/sources/index.ts';
import { alertRoutes, toSnsEvent } from '../../lib/local/http-events.ts';
import { MemoryStateStore } from '../../lib/state/state-store.ts';
import { GENERATED_FILES, generated } from '../../scripts/alert-sources.ts';
import { recordingLog } from '../helpers/recording-log.ts';

describe('ALERT_SOURCES', () => {
  it.each(GENERATED_FILES)('%s is what the table makes it (npx tsx scripts/alert-sources.ts)', (file) => {
    const { now, want } = generated()[file];
    expect(now, `${file} differs from ALERT_SOURCES: run npx tsx scripts/alert-sources.ts`).toBe(want);
  });

  it("names the sources the config's routes and clusterLabels accept, each once, each at its own path", () => {
    const names = ALERT_SOURCES.map((s) => s.name);
    for (const name of names) expect(name).toMatch(ALERT_SOURCE_NAME);
    expect(new Set(names).size).toBe(names.length);
    expect(unknownSourceNames(names)).toEqual([]);
    expect(unknownSourceNames(['grafana', 'grafanna'])).toEqual(['grafanna']);
    expect(new Set(ALERT_SOURCES.map((s) => s.path)).size).toBe(ALERT_SOURCES.length);
    expect(new Set(ALERT_SOURCES.map((s) => s.idPrefix)).size).toBe(ALERT_SOURCES.length);
    for (const s of ALERT_SOURCES) expect(s.path).toMatch(/^\/alerts\/[a-z0-9-]+$/);
  });

  it.each(ALERT_SOURCES.map((s) => [s.name, s] as const))('%s: each example passes its schema and maps to events of the source', (_name, source) => {
    expect(source.examples.length).toBeGreaterThan(0);
    for (const { body } of source.examples) {
      expect(source.schema.safeParse(body).success).toBe(true);
      const parsed = source.kind === 'http' ? source.parse(JSON.stringify(body)) : source.parse(toSnsEvent(JSON.stringify(body)));
      expect(parsed.ok).toBe(true);
      const events = !parsed.ok ? [] : Array.isArray(parsed.value) ? parsed.value : parsed.value.events;
      expect(events.length).toBeGreaterThan(0);
      for (const e of events) expect(e.source).toBe(source.name);
    }
  });

  it('serve serves exactly the routes of the table, each with its secret (its own, else the Alertmanager token)', () => {
    const routes = alertRoutes({ queue: { enqueue: async () => {} }, store: new MemoryStateStore(), log: recordingLog() }, { alertmanagerToken: 'am-token-0123456789abcdef', alertSecrets: { 'grafana-token': 'gf-token-0123456789abcdef' } });
    expect([...routes.keys()].sort()).toEqual(ALERT_SOURCES.map((s) => s.path).sort());
    expect(routes.get('/alerts/grafana')!.secret).toBe('gf-token-0123456789abcdef');
    expect(routes.get('/alerts/sns')!.secret).toBe('am-token-0123456789abcdef');
    for (const s of ALERT_SOURCES) expect(routeAuth(s).checkHeaders(() => undefined, 'x'.repeat(16))).not.toBeNull();
  });
});
