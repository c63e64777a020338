// A toy alert source, written as a new source would be: this one file. Its
// sender posts {"service", "cluster", "state": "down" | "up", "message"} with
// an X-Toy-Key header; the key is the SecureString toy-key (TOY_KEY in serve).
import * as z from 'zod';
import type { AlertEvent } from '../../lib/alerts/event.ts';
import { extractTargets, groupKey } from '../../lib/alerts/event.ts';
import { alertSecret, safeEqual } from '../../lib/alerts/sources/auth.ts';
import type { HttpAlertSource } from '../../lib/alerts/sources/types.ts';

const toySchema = z.object({ service: z.string().min(1).max(200), cluster: z.string().max(200).optional(), state: z.enum(['down', 'up']), message: z.string().max(2000).default('') });

export const toySource: HttpAlertSource = {
  name: 'toy',
  label: 'Toy',
  idPrefix: 'toy',
  kind: 'http',
  path: '/alerts/toy',
  auth: {
    doc: '`X-Toy-Key: <key>`',
    secret: alertSecret('toy-key'),
    secretNoun: 'key',
    minSecretChars: 16,
    checkHeaders: (get, key) => {
      const given = get('x-toy-key');
      if (!given) return 'missing X-Toy-Key header';
      return safeEqual(given, key) ? null : 'invalid X-Toy-Key';
    },
  },
  schema: toySchema,
  maps: 'one thread per `service`; `cluster` names the cluster; `down` fires, `up` resolves',
  parse: (body) => {
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch (err) {
      return { ok: false, reason: `body is not JSON: ${(err as Error).message}` };
    }
    const p = toySchema.safeParse(json);
    if (!p.success) return { ok: false, reason: `not a toy alert: ${p.error.message}` };
    const labels = { alertname: 'ToyServiceDown', service: p.data.service, ...(p.data.cluster ? { cluster: p.data.cluster } : {}) };
    const event: AlertEvent = {
      source: 'toy',
      groupKey: groupKey(`toy:${p.data.service}`),
      status: p.data.state === 'down' ? 'firing' : 'resolved',
      alertname: 'ToyServiceDown',
      title: `${p.data.service} is ${p.data.state}`,
      summary: p.data.message,
      labels,
      at: new Date().toISOString(),
      ...extractTargets([labels]),
      count: 1,
    };
    return { ok: true, value: [event] };
  },
  examples: [{ title: 'a service down', body: { service: 'billing', cluster: 'sandbox', state: 'down', message: 'billing cannot produce' } }],
};
