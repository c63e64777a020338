// What a request definition of ours provides. Bodies only: the wire layer
// (lib/kafka/wire.ts) adds the request header, its tagged-field section in
// flexible versions (request header v2), and strips the response header
// (v1 in flexible versions: correlation id + tagged fields).
import { Reader, Writer } from './codec.ts';

export interface ApiDefinition<Args, Result> {
  apiKey: number;
  apiName: string;
  /** The versions we implement, ascending. Negotiation takes the highest one the broker also supports. */
  versions: readonly number[];
  /** The message schema's flexibleVersions ("N+"). */
  firstFlexibleVersion: number;
  encode(version: number, args: Args): Buffer;
  decode(version: number, body: Buffer): Result;
}

export function isFlexible(def: { firstFlexibleVersion: number }, version: number): boolean {
  return version >= def.firstFlexibleVersion;
}

export function writerFor(def: { firstFlexibleVersion: number }, version: number): Writer {
  return new Writer(isFlexible(def, version));
}

export function readerFor(def: { firstFlexibleVersion: number }, version: number, body: Buffer): Reader {
  return new Reader(body, isFlexible(def, version));
}

export function assertVersion(def: { apiName: string; versions: readonly number[] }, version: number): void {
  if (!def.versions.includes(version)) throw new Error(`${def.apiName} v${version} is not implemented (we have v${def.versions.join(', v')})`);
}
