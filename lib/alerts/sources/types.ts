// The shape of one alert source (lib/alerts/sources/index.ts lists them):
// its route, how it authenticates, its schema, its mapping to AlertEvents and
// its example payloads. serve's routes, the deployed alerts function's
// dispatch, serverless.yml's routes and secrets and the docs' table all come
// from the table (scripts/alert-sources.ts writes the last two).
import type * as z from 'zod';
import type { ParseResult } from '../alertmanager.ts';
import type { SnsParseOutcome } from '../cloudwatch.ts';
import type { Config } from '../../config/schema.ts';
import type { AlertEvent, AlertSource } from '../event.ts';

/** A SecureString parameter `/kafka-responder/<stage>/<parameter>`; serve reads `valueVar` instead. */
export interface AlertSecret {
  parameter: string;
  valueVar: string;
  /** The Lambda variable holding the parameter's name (never its value). */
  parameterVar: string;
}

/** A request header by name, case-insensitive. */
export type HeaderLookup = (name: string) => string | undefined;

export interface SourceAuth {
  /** What the sender sends, for the docs' table. */
  doc: string;
  secret: AlertSecret;
  /** "bearer token", "signing secret": named when the secret is too short. */
  secretNoun: string;
  minSecretChars: number;
  /** From the headers alone, before the body is read: why the request is refused, or null. Timing-safe. */
  checkHeaders(get: HeaderLookup, secret: string): string | null;
  /** A signature over the raw bytes, checked before they are parsed: why refused, or null. */
  checkBody?(get: HeaderLookup, body: Buffer, secret: string): string | null;
}

export interface SourceExample {
  title: string;
  /** The body as the sender posts it (for an SNS source: the alarm message serve wraps). */
  body: unknown;
}

interface SourceBase {
  name: AlertSource;
  /** As people call it: "Alertmanager", "CloudWatch". */
  label: string;
  /** Correlation id prefix of its requests ("am" → am-1a2b…). */
  idPrefix: string;
  /** The HTTP route: deployed (http sources) and in serve (all). */
  path: `/alerts/${string}`;
  /** What a notification must look like (its envelope). */
  schema: z.ZodType;
  /** What an event takes from the payload, for the docs' table. */
  maps: string;
  examples: SourceExample[];
  /** How the worker maps this source's events to a cluster beyond the labels (a config section of its own); absent: labels only. */
  cluster?: SourceClusterMapping;
}

/** Why no configured cluster takes an alert, and what to add: the thread says both. */
export interface Unmapped {
  why: string;
  fix: string;
}

export interface SourceClusterMapping {
  /** The cluster the config maps the event to, tried before the labels; undefined: not mapped there. */
  hint(event: AlertEvent, config: Config): string | undefined;
  /** True: an event mapped nowhere goes to no cluster, not the only or default one. */
  noDefault?: boolean;
  /** The thread's explanation when no configured cluster takes it (`clusters`: the configured names, formatted). */
  unmapped(event: AlertEvent, config: Config, hint: string | undefined, clusters: string): Unmapped;
}

/** A webhook: API Gateway route deployed, the same route in serve. */
export interface HttpAlertSource extends SourceBase {
  kind: 'http';
  auth: SourceAuth;
  /** Schema and mapping: the body's events (none: accepted and ignored). */
  parse(body: string): ParseResult<AlertEvent[]>;
}

/** Invoked by an SNS subscription deployed (AWS authenticates); an HTTP route in serve. */
export interface SnsAlertSource extends SourceBase {
  kind: 'sns';
  /** SNS topic the function subscribes to, deployed. */
  topic: string;
  /** How serve's HTTP route stands in for AWS's own authentication. */
  servedAuth: SourceAuth;
  parse(event: unknown): ParseResult<SnsParseOutcome>;
}

export type AlertSourceDef = HttpAlertSource | SnsAlertSource;

/** The secret a source's route checks: its own (http), or serve's stand-in (sns). */
export function routeAuth(source: AlertSourceDef): SourceAuth {
  return source.kind === 'http' ? source.auth : source.servedAuth;
}
