// Kafka's wire primitives (https://kafka.apache.org/protocol#protocol_types) for
// the request definitions kafkajs 2.2.4 lacks. Each field is written in its
// classic form or, from a message's first flexible version on (KIP-482), in its
// compact form: unsigned-varint lengths stored as length + 1 (0 = null), and a
// tagged-field section closing every struct. We never send tagged fields; we
// skip any the broker sends, whatever their tags.
import { ResponderError } from '../../runtime/errors.ts';

export class Writer {
  // One growing buffer, not a Buffer per field: a fleet's requests carry 4,000 partitions each.
  // Every write takes its offset (room) before touching this.buf: room may replace it.
  private buf = Buffer.allocUnsafe(256);
  private size = 0;

  constructor(readonly flexible: boolean) {}

  private room(n: number): number {
    if (this.size + n > this.buf.length) {
      const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.size + n));
      this.buf.copy(next, 0, 0, this.size);
      this.buf = next;
    }
    const at = this.size;
    this.size += n;
    return at;
  }

  private push(b: Buffer): this {
    const at = this.room(b.length);
    b.copy(this.buf, at);
    return this;
  }

  int8(v: number): this {
    const at = this.room(1);
    this.buf.writeInt8(v, at);
    return this;
  }

  int16(v: number): this {
    const at = this.room(2);
    this.buf.writeInt16BE(v, at);
    return this;
  }

  int32(v: number): this {
    const at = this.room(4);
    this.buf.writeInt32BE(v, at);
    return this;
  }

  int64(v: number | bigint): this {
    const at = this.room(8);
    if (typeof v === 'bigint' || !Number.isSafeInteger(v)) {
      this.buf.writeBigInt64BE(BigInt(v), at);
      return this;
    }
    const high = Math.floor(v / 4294967296);
    this.buf.writeInt32BE(high, at);
    this.buf.writeUInt32BE(v - high * 4294967296, at + 4);
    return this;
  }

  bool(v: boolean): this {
    return this.int8(v ? 1 : 0);
  }

  /** UUID: its 16 bytes as they are. */
  uuid(bytes: Buffer): this {
    if (bytes.length !== 16) throw new RangeError(`a UUID is 16 bytes, not ${bytes.length}`);
    return this.push(bytes);
  }

  uvarint(v: number): this {
    if (!Number.isInteger(v) || v < 0 || v > 0xffffffff) throw new RangeError(`not an unsigned 32-bit varint: ${v}`);
    let rest = v;
    while (rest > 0x7f) {
      const at = this.room(1);
      this.buf[at] = (rest & 0x7f) | 0x80;
      rest = Math.floor(rest / 128);
    }
    const at = this.room(1);
    this.buf[at] = rest;
    return this;
  }

  /** STRING / COMPACT_STRING, or their NULLABLE forms when `v` is null. */
  string(v: string | null): this {
    if (v === null) return this.flexible ? this.uvarint(0) : this.int16(-1);
    const length = Buffer.byteLength(v, 'utf8');
    if (this.flexible) this.uvarint(length + 1);
    else {
      if (length > 0x7fff) throw new RangeError('string longer than 32767 bytes');
      this.int16(length);
    }
    const at = this.room(length);
    this.buf.write(v, at, length, 'utf8');
    return this;
  }

  /** ARRAY / COMPACT_ARRAY (null = nullable array's null). */
  array<T>(items: readonly T[] | null, each: (w: this, item: T) => void): this {
    if (items === null) return this.flexible ? this.uvarint(0) : this.int32(-1);
    if (this.flexible) this.uvarint(items.length + 1);
    else this.int32(items.length);
    for (const item of items) each(this, item);
    return this;
  }

  int32Array(items: readonly number[] | null): this {
    return this.array(items, (w, v) => w.int32(v));
  }

  /** End of a struct: an empty tagged-field section in flexible versions, nothing otherwise. */
  tags(): this {
    return this.flexible ? this.uvarint(0) : this;
  }

  get buffer(): Buffer {
    return Buffer.from(this.buf.subarray(0, this.size));
  }
}

/** A response we cannot decode (cut short, or not what its version says): read again. */
export class ProtocolError extends ResponderError {
  readonly failure = 'transient';
  constructor(message: string) {
    super(message);
    this.name = 'ProtocolError';
  }
}

export class Reader {
  private offset = 0;

  constructor(
    private readonly buf: Buffer,
    readonly flexible: boolean,
  ) {}

  private need(n: number, what: string): number {
    const at = this.offset;
    if (at + n > this.buf.length) throw new ProtocolError(`truncated response: ${what} needs ${n} bytes at offset ${at}, ${this.buf.length - at} left`);
    this.offset += n;
    return at;
  }

  int8(): number {
    return this.buf.readInt8(this.need(1, 'int8'));
  }

  int16(): number {
    return this.buf.readInt16BE(this.need(2, 'int16'));
  }

  int32(): number {
    return this.buf.readInt32BE(this.need(4, 'int32'));
  }

  /** int64 as a number: exact up to 2^53 (9 PB, 9e15 offsets), which sizes and offsets stay below. */
  int64(): number {
    // Two 32-bit reads, not a BigInt: a fleet's answers carry a million offsets.
    const at = this.need(8, 'int64');
    return this.buf.readInt32BE(at) * 4294967296 + this.buf.readUInt32BE(at + 4);
  }

  bool(): boolean {
    return this.int8() !== 0;
  }

  /** UUID (16 bytes), in Kafka's printed form: URL-safe base64 without padding. */
  uuid(): string {
    const at = this.need(16, 'uuid');
    return this.buf.subarray(at, at + 16).toString('base64url');
  }

  uvarint(): number {
    let result = 0;
    for (let shift = 0; shift <= 28; shift += 7) {
      const byte = this.buf.readUInt8(this.need(1, 'varint'));
      result += (byte & 0x7f) * 2 ** shift;
      if ((byte & 0x80) === 0) return result;
    }
    throw new ProtocolError('varint longer than 5 bytes');
  }

  string(): string | null {
    const len = this.flexible ? this.uvarint() - 1 : this.int16();
    if (len < 0) return null;
    const at = this.need(len, 'string');
    return this.buf.toString('utf8', at, at + len);
  }

  /** A non-nullable string field: null on the wire is a protocol error. */
  requiredString(what: string): string {
    const s = this.string();
    if (s === null) throw new ProtocolError(`${what} is null`);
    return s;
  }

  array<T>(each: (r: this) => T): T[] | null {
    const n = this.flexible ? this.uvarint() - 1 : this.int32();
    if (n < 0) return null;
    if (n > this.buf.length - this.offset) throw new ProtocolError(`array of ${n} elements cannot fit in ${this.buf.length - this.offset} bytes`);
    const out: T[] = [];
    for (let i = 0; i < n; i++) out.push(each(this));
    return out;
  }

  int32Array(): number[] | null {
    const n = this.flexible ? this.uvarint() - 1 : this.int32();
    if (n < 0) return null;
    const at = this.need(4 * n, 'int32 array');
    const out = new Array<number>(n);
    for (let i = 0; i < n; i++) out[i] = this.buf.readInt32BE(at + 4 * i);
    return out;
  }

  /** Skips a fixed-size field this reader does not use. */
  skip(n: number, what: string): void {
    this.need(n, what);
  }

  /**
   * An array of structs, the decoder tail every response repeats: each
   * element's fields, then its tagged fields (flexible versions); null read
   * as empty.
   */
  structs<T>(each: (r: this) => T): T[] {
    return (
      this.array((r) => {
        const v = each(r);
        r.tags();
        return v;
      }) ?? []
    );
  }

  /** The topics → partitions nesting most responses share: each topic's name (`what` names it in errors), then its partition structs. */
  topics<P>(what: string, partition: (r: this) => P): { name: string; partitions: P[] }[] {
    return this.structs((r) => {
      const name = r.requiredString(what);
      return { name, partitions: r.structs(partition) };
    });
  }

  /**
   * The per-topic, per-partition outcome list several admin responses share
   * (AlterPartitionReassignments, ElectLeaders): topic name, then partitions
   * with their error code and message. An absent array reads as empty.
   */
  topicPartitionResults(what: string): { topic: string; partitions: { partition: number; errorCode: number; errorMessage: string | null }[] }[] {
    return this.structs((r) => {
      const topic = r.requiredString(what);
      return { topic, partitions: r.structs((r) => ({ partition: r.int32(), errorCode: r.int16(), errorMessage: r.string() })) };
    });
  }

  /** Skips a struct's tagged fields (flexible versions): count, then per field its tag, size and bytes. */
  tags(): void {
    if (!this.flexible) return;
    const count = this.uvarint();
    for (let i = 0; i < count; i++) {
      this.uvarint();
      this.need(this.uvarint(), 'tagged field');
    }
  }

  /** The bytes not read yet (and marks them read). */
  rest(): Buffer {
    const b = this.buf.subarray(this.offset);
    this.offset = this.buf.length;
    return b;
  }

  get remaining(): number {
    return this.buf.length - this.offset;
  }
}
