// SHA-1 and SHA-256 of a string's UTF-8 bytes, as hex: finding fingerprints and
// "what changed" topic digests. The runtime's own node:crypto does the hashing.
import { createHash } from 'node:crypto';

export const sha1Hex = (text: string): string => createHash('sha1').update(text, 'utf8').digest('hex');

export const sha256Hex = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');
