// PagerDuty V3 webhook subscriptions: incident.triggered starts the thread
// and its diagnosis, acknowledged / unacknowledged / reopened update it,
// resolved resolves it (as an Alertmanager resolve does); every other event
// (incident.annotated, priority changes…) is answered 2xx and ignored, so
// PagerDuty does not retry it. X-PagerDuty-Signature is required from the
// headers alone; every v1= entry is checked against every configured secret
// (the SecureString pagerduty-webhook-secrets, one a line: a secret rotates)
// on the raw bytes before they are parsed.
//
// The alerts function reads no config: the incident's service id and custom
// field values travel as labels, and the worker maps them to a cluster
// (pagerDutyClusters below, which lib/alerts/routing.ts asks for the source's events).
import { EXAMPLE_SERVICE_ID, PAGERDUTY_EXAMPLES } from '../../pagerduty/examples.ts';
import { SERVICE_LABEL, mapPagerDutyEvent } from '../../pagerduty/inbound.ts';
import type { Config } from '../../config/schema.ts';
import { escapeMrkdwn, inlineCode as code } from '../../slack/limits.ts';
import type { AlertEvent } from '../event.ts';
import { SIGNATURE_HEADER, verifyPagerDutySignature, webhookSecrets } from '../../pagerduty/signature.ts';
import { pagerDutyWebhookSchema, parsePagerDutyWebhook } from '../../pagerduty/webhook.ts';
import { alertSecret } from './auth.ts';
import type { HttpAlertSource, SourceAuth, SourceClusterMapping } from './types.ts';

/** The same SSM parameter and variables as SECRETS.pagerdutyWebhookSecrets (lib/config/secrets.ts). */
export const PAGERDUTY_WEBHOOK_SECRET = alertSecret('pagerduty-webhook-secrets');

export const pagerDutyAuth: SourceAuth = {
  doc: '`X-PagerDuty-Signature: v1=<HMAC-SHA256 of the body>` (V3 webhook subscription; every `v1=` entry tried against each secret, one a line, so a secret can rotate)',
  secret: PAGERDUTY_WEBHOOK_SECRET,
  secretNoun: 'webhook signing secret',
  minSecretChars: 16,
  checkHeaders: (get) => (get(SIGNATURE_HEADER) ? null : 'missing X-PagerDuty-Signature header'),
  checkBody: (get, body, secrets) => {
    const check = verifyPagerDutySignature(body, get(SIGNATURE_HEADER), webhookSecrets(secrets));
    return check.ok ? null : `invalid PagerDuty signature: ${check.reason}`;
  },
};

/**
 * The incident's cluster, as the config's pagerduty.incidents says: its service
 * id in `services`, else the custom field `clusterField` names it. An incident
 * mapped nowhere is about no cluster: an account-wide subscription sees every
 * service's incidents, and only the mapping says which are Kafka's.
 */
export const pagerDutyClusters: SourceClusterMapping = {
  noDefault: true,
  hint(event: AlertEvent, config: Config) {
    const incidents = config.pagerduty?.incidents;
    if (!incidents) return undefined;
    const service = event.labels[SERVICE_LABEL];
    return (service ? incidents.services[service] : undefined) ?? (incidents.clusterField ? event.labels[incidents.clusterField] : undefined);
  },
  unmapped(event, config, hint, clusters) {
    const service = event.labels[SERVICE_LABEL] ?? '?';
    const field = config.pagerduty?.incidents.clusterField;
    if (hint !== undefined) {
      return {
        why: `\`pagerduty.incidents\` maps the incident (service ${code(service)}) to "${escapeMrkdwn(hint.slice(0, 100))}", which is neither the name nor an alias of a configured cluster (${clusters})`,
        fix: 'name a configured cluster (or one of its `aliases`) in that mapping',
      };
    }
    return {
      why: `its PagerDuty service ${code(service)} is not in \`pagerduty.incidents.services\`${field ? ` and its custom field ${code(field)} is not set` : ' and no `clusterField` is configured'} (an incident goes to no cluster by default)`,
      fix: `add \`"${escapeMrkdwn(service.replace(/[`"]/g, "'").slice(0, 64))}": "&lt;cluster&gt;"\` to \`pagerduty.incidents.services\` (one of ${clusters}), or set \`pagerduty.incidents.clusterField\` to the incident's custom field that names the cluster`,
    };
  },
};

export const pagerdutySource: HttpAlertSource = {
  name: 'pagerduty',
  label: 'PagerDuty',
  idPrefix: 'pd',
  kind: 'http',
  path: '/alerts/pagerduty',
  auth: pagerDutyAuth,
  schema: pagerDutyWebhookSchema,
  maps: 'one thread per incident; `incident.triggered` fires (and starts the diagnosis), `acknowledged` / `unacknowledged` / `reopened` update the thread, `resolved` resolves; other events (`incident.annotated`…) answered 2xx and ignored; the cluster from `pagerduty.incidents.services` (service id) or `pagerduty.incidents.clusterField` (a custom field); the incident and its service linked',
  parse: (body) => {
    const parsed = parsePagerDutyWebhook(body);
    if (!parsed.ok) return { ok: false, reason: parsed.error };
    // No config here: the service id and custom fields are labels, mapped to a cluster by the worker.
    const mapped = mapPagerDutyEvent(parsed.webhook, undefined);
    return { ok: true, value: mapped.kind === 'alert' ? [mapped.event] : [] };
  },
  cluster: pagerDutyClusters,
  examples: [
    { title: `incident triggered on service ${EXAMPLE_SERVICE_ID}`, body: PAGERDUTY_EXAMPLES.triggered },
    { title: 'the same incident resolved', body: PAGERDUTY_EXAMPLES.resolved },
  ],
};
