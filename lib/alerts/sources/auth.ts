// How alert senders authenticate: from the headers alone (before a byte of
// the body is kept), every comparison timing-safe.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { HeaderLookup, SourceAuth, AlertSecret } from './types.ts';

function sha256(s: string): Buffer {
  return createHash('sha256').update(s).digest();
}

/** Constant-time string equality: both sides hashed first, so neither length nor prefix leaks. */
export function safeEqual(given: string, expected: string): boolean {
  return timingSafeEqual(sha256(given), sha256(expected));
}

/** Constant-time comparison of `Authorization: Bearer <token>` against the configured token. */
export function checkBearer(authorization: string | undefined, expected: string): string | null {
  if (!authorization) return 'missing Authorization header (expected "Bearer <token>")';
  const m = /^Bearer\s+(\S+)$/i.exec(authorization.trim());
  if (!m) return 'Authorization header is not a bearer token';
  return safeEqual(m[1]!, expected) ? null : 'invalid bearer token';
}

/**
 * `Bearer <token>`, or HTTP Basic whose password is the token (any user name):
 * the two ways Grafana's webhook contact point sends credentials.
 */
export function checkBearerOrBasic(authorization: string | undefined, expected: string): string | null {
  if (!authorization) return 'missing Authorization header (expected "Bearer <token>" or Basic credentials)';
  const value = authorization.trim();
  if (/^Bearer\s/i.test(value)) return checkBearer(value, expected);
  const m = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(value);
  if (!m) return 'Authorization header is neither a bearer token nor Basic credentials';
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return 'Basic credentials are not "user:password"';
  return safeEqual(decoded.slice(colon + 1), expected) ? null : 'invalid Basic credentials';
}

/** A secret's SSM parameter and variables, from its name: `grafana-token` → GRAFANA_TOKEN, KR_GRAFANA_TOKEN_PARAMETER. */
export function alertSecret(parameter: string): AlertSecret {
  const upper = parameter.toUpperCase().replace(/-/g, '_');
  return { parameter, valueVar: upper, parameterVar: `KR_${upper}_PARAMETER` };
}

/** The Alertmanager token: Alertmanager's bearer, and serve's default for every alert route. */
export const ALERTMANAGER_SECRET = alertSecret('alertmanager-token');

export function bearerAuth(secret: AlertSecret): SourceAuth {
  return { doc: '`Authorization: Bearer <token>`', secret, secretNoun: 'bearer token', minSecretChars: 16, checkHeaders: (get: HeaderLookup, expected) => checkBearer(get('authorization'), expected) };
}

export function bearerOrBasicAuth(secret: AlertSecret): SourceAuth {
  return {
    doc: '`Authorization: Bearer <token>`, or Basic auth with the token as password',
    secret,
    secretNoun: 'token',
    minSecretChars: 16,
    checkHeaders: (get: HeaderLookup, expected) => checkBearerOrBasic(get('authorization'), expected),
  };
}
