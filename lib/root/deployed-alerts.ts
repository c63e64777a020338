// Lambdas: the alert webhooks (one HTTP API route per source of
// ALERT_SOURCES, dispatched here by path, each with its own SecureString) and
// CloudWatch alarms through SNS. Both validate and enqueue; the worker
// triages. The state table keeps a payload too large for a queue message
// (lib/queue/oversize.ts).
import { createHttpAlertHandler, createSnsHandler, type SnsIntakeResult } from '../alerts/intake.ts';
import { ALERT_SOURCES } from '../alerts/sources/index.ts';
import type { AlertSourceDef, HttpAlertSource } from '../alerts/sources/types.ts';
import type { JobQueue } from '../queue/job.ts';
import type { SpillStore } from '../queue/oversize.ts';
import { sqsJobQueue } from '../queue/sqs.ts';
import { awsStateStore } from '../state/aws.ts';
import { readSecret } from '../config/secrets.ts';
import type { HttpEvent, HttpResult, SnsEvent } from '../runtime/lambda-types.ts';
import { json } from '../runtime/lambda-types.ts';
import { powertoolsLog, type Log } from '../runtime/log.ts';
import { rotatingBuild } from '../runtime/rotating-build.ts';

type HttpHandler = (e: HttpEvent) => Promise<HttpResult>;

export interface DispatchDeps {
  log: Log;
  /** Built once per source, on its first request. */
  intake: () => { queue: JobQueue; store: SpillStore };
  /** A source's secret: its SecureString through the Powertools cache (a rotated one is honoured within its TTL). */
  secret: (source: HttpAlertSource) => Promise<string>;
}

/**
 * The alerts function's dispatch: the webhook source whose path the request
 * came in on, built on its first request from its own secret. A source whose
 * secret cannot be read answers 500 (the sender retries); the others still work.
 */
export function alertDispatch(sources: readonly AlertSourceDef[], deps: DispatchDeps): HttpHandler {
  const handlers = new Map<string, () => Promise<HttpHandler>>();
  for (const source of sources) {
    if (source.kind !== 'http') continue;
    handlers.set(
      source.path,
      rotatingBuild<HttpHandler>({
        name: `${source.label} endpoint`,
        log: deps.log,
        readSecrets: async () => [await deps.secret(source)],
        async build() {
          const secret = await deps.secret(source);
          return { value: createHttpAlertHandler(source, { ...deps.intake(), log: deps.log, secret }), secrets: [secret] };
        },
      }),
    );
  }
  return async (event) => {
    // The route API Gateway matched ("POST /alerts/grafana"): rawPath may carry a custom domain's base path.
    const routeKey = (event as { routeKey?: string }).routeKey;
    const path = routeKey?.startsWith('POST /') ? routeKey.slice('POST '.length) : event.rawPath;
    const handlerOf = handlers.get(path);
    if (!handlerOf) return json(404, { error: `no alert source at ${path}` });
    let handle: HttpHandler;
    try {
      handle = await handlerOf();
    } catch {
      return json(500, { error: 'not configured; see the function logs' });
    }
    return handle(event);
  };
}

const log = powertoolsLog('kafka-responder-alerts');
let intake: { queue: JobQueue; store: SpillStore } | undefined;
let snsHandler: ((e: SnsEvent) => Promise<SnsIntakeResult>) | undefined;

export const http: HttpHandler = alertDispatch(ALERT_SOURCES, {
  log,
  intake: () => (intake ??= { queue: sqsJobQueue(), store: awsStateStore() }),
  secret: (source) => readSecret(source.auth.secret),
});

/** The function's export before there was a table of sources: the same dispatch. */
export const alertmanager = http;

export async function sns(event: SnsEvent): Promise<SnsIntakeResult> {
  snsHandler ??= createSnsHandler({ queue: sqsJobQueue(), store: awsStateStore(), log });
  return snsHandler(event);
}
