// serve's requests as the events Lambda receives (API Gateway HTTP API v2,
// SNS), and its alert routes: one per source of ALERT_SOURCES, each with the
// secret its sender must present.
import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import { createHttpAlertHandler, createSnsHandler } from '../alerts/intake.ts';
import { ALERT_SOURCES } from '../alerts/sources/index.ts';
import { ALERTMANAGER_SECRET } from '../alerts/sources/auth.ts';
import { routeAuth, type AlertSourceDef } from '../alerts/sources/types.ts';
import type { JobQueue } from '../queue/job.ts';
import type { SpillStore } from '../queue/oversize.ts';
import type { HttpEvent, HttpResult } from '../runtime/lambda-types.ts';
import { json } from '../runtime/lambda-types.ts';
import type { Log } from '../runtime/log.ts';

/**
 * An API Gateway HTTP API v2 event for this request. Slack's forms come base64
 * as API Gateway sends them; alerts (JSON) as text, so a 10 MB alert is not
 * copied once more into base64 (unless it is not UTF-8: then base64, exactly).
 */
export function toHttpEvent(req: IncomingMessage, body: Buffer): HttpEvent {
  const url = new URL(req.url ?? '/', 'http://local');
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(',') : v;
  // Text only when it decodes losslessly: a signature (PagerDuty's) is checked on the bytes the
  // handler gets back from the event, so a body that is not UTF-8 travels as base64, byte for byte.
  const text = url.pathname.startsWith('/alerts/') && isUtf8(body);
  return {
    version: '2.0',
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    headers,
    body: body.toString(text ? 'utf8' : 'base64'),
    isBase64Encoded: !text,
    requestContext: { requestId: `local-${Date.now()}`, http: { method: req.method ?? 'GET', path: url.pathname, sourceIp: req.socket.remoteAddress ?? '' } },
  };
}

/**
 * POST /alerts/sns takes either an SNS Lambda event ({"Records": [...]}) or a
 * bare CloudWatch alarm message, which is wrapped the way SNS would deliver it.
 */
export function toSnsEvent(body: string): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { Records: [{ EventSource: 'aws:sns', Sns: { MessageId: 'local', Message: body } }] };
  }
  if (parsed && typeof parsed === 'object' && 'Records' in parsed) return parsed;
  return { Records: [{ EventSource: 'aws:sns', Sns: { MessageId: `local-${Date.now()}`, Message: body, Timestamp: new Date().toISOString() } }] };
}

export interface AlertRoute {
  source: AlertSourceDef;
  /** The secret the route's sender presents (checked from the headers before the body is read). */
  secret: string;
  handle(req: IncomingMessage, body: Buffer): Promise<HttpResult>;
}

export interface AlertRouteSecrets {
  /** ALERTMANAGER_TOKEN: Alertmanager's, serve's stand-in for SNS, and any source's without its own. */
  alertmanagerToken: string;
  /** By SSM parameter name ("grafana-token"): a source's own secret (GRAFANA_TOKEN). */
  alertSecrets?: Record<string, string>;
}

/** serve's alert routes by path, from the table. */
export function alertRoutes(deps: { queue: JobQueue; store: SpillStore; log: Log }, secrets: AlertRouteSecrets, sources: readonly AlertSourceDef[] = ALERT_SOURCES): Map<string, AlertRoute> {
  const routes = new Map<string, AlertRoute>();
  for (const source of sources) {
    const name = routeAuth(source).secret.parameter;
    const secret = name === ALERTMANAGER_SECRET.parameter ? secrets.alertmanagerToken : (secrets.alertSecrets?.[name] ?? secrets.alertmanagerToken);
    if (source.kind === 'http') {
      const handler = createHttpAlertHandler(source, { ...deps, secret });
      routes.set(source.path, { source, secret, handle: (req, body) => handler(toHttpEvent(req, body)) });
      continue;
    }
    const sns = createSnsHandler(deps, source);
    // Not a Lambda subscription here but an open HTTP route: authenticated as the source's servedAuth says (checked before the body).
    const handle = async (_req: IncomingMessage, body: Buffer): Promise<HttpResult> => {
      const result = await sns(toSnsEvent(body.toString('utf8')));
      if (result.events.length === 0 && result.rejected.length > 0) return json(400, { error: 'nothing accepted', rejected: result.rejected });
      return json(202, result);
    };
    routes.set(source.path, { source, secret, handle });
  }
  return routes;
}
