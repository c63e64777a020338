// ALERT_SOURCES: every way an alert reaches the bot, one file each in this
// folder and one line here. serve's routes (lib/local/server.ts), the deployed
// alerts function's dispatch (lib/root/deployed-alerts.ts), serverless.yml's
// routes and secrets and the docs' table (scripts/alert-sources.ts, checked by
// test/alerts/sources-table.test.ts) follow this list.
import { alertmanagerSource } from './alertmanager.ts';
import { cloudwatchSource } from './cloudwatch.ts';
import { grafanaSource } from './grafana.ts';
import { pagerdutySource } from './pagerduty.ts';
import type { AlertSourceDef } from './types.ts';

export const ALERT_SOURCES: readonly AlertSourceDef[] = [
  alertmanagerSource,
  cloudwatchSource,
  grafanaSource,
  pagerdutySource,
];

/**
 * The config's source names (alerts.routes[].match.source, alerts.clusterLabels)
 * that no source of the table has: the config takes any name-shaped string
 * (it cannot import this table), the composition root refuses these.
 */
export function unknownSourceNames(names: Iterable<string>, sources: readonly AlertSourceDef[] = ALERT_SOURCES): string[] {
  const known = new Set(sources.map((s) => s.name));
  return [...new Set(names)].filter((n) => !known.has(n));
}
