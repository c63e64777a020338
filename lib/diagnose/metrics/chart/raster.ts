// A small RGB pixel buffer with the few drawing operations a line chart needs
// (rectangles, 2-px lines, dashes, text), and its PNG encoding with node:zlib.
// No anti-aliasing on purpose: every pixel of a line is exactly its series'
// colour, so a reader (or a test) can tell the brokers apart by colour.
import { deflateSync } from 'node:zlib';
import { GLYPH_ADVANCE, GLYPH_HEIGHT, GLYPH_WIDTH, glyph } from './font.ts';

export type Rgb = readonly [number, number, number];

export class Raster {
  readonly pixels: Uint8Array;

  constructor(readonly width: number, readonly height: number, background: Rgb = [255, 255, 255]) {
    this.pixels = new Uint8Array(width * height * 3);
    this.fillRect(0, 0, width, height, background);
  }

  set(x: number, y: number, c: Rgb): void {
    const xi = Math.round(x);
    const yi = Math.round(y);
    if (xi < 0 || yi < 0 || xi >= this.width || yi >= this.height) return;
    const i = (yi * this.width + xi) * 3;
    this.pixels[i] = c[0];
    this.pixels[i + 1] = c[1];
    this.pixels[i + 2] = c[2];
  }

  fillRect(x: number, y: number, w: number, h: number, c: Rgb): void {
    const x0 = Math.max(0, Math.round(x));
    const y0 = Math.max(0, Math.round(y));
    const x1 = Math.min(this.width, Math.round(x + w));
    const y1 = Math.min(this.height, Math.round(y + h));
    const px = this.pixels;
    for (let yy = y0; yy < y1; yy++) {
      for (let i = (yy * this.width + x0) * 3, end = (yy * this.width + x1) * 3; i < end; i += 3) {
        px[i] = c[0];
        px[i + 1] = c[1];
        px[i + 2] = c[2];
      }
    }
  }

  /** A line `thickness` pixels wide (Bresenham with a square brush). */
  line(x0: number, y0: number, x1: number, y1: number, c: Rgb, thickness = 1): void {
    let x = Math.round(x0);
    let y = Math.round(y0);
    const xe = Math.round(x1);
    const ye = Math.round(y1);
    const dx = Math.abs(xe - x);
    const dy = -Math.abs(ye - y);
    const sx = x < xe ? 1 : -1;
    const sy = y < ye ? 1 : -1;
    let err = dx + dy;
    const half = Math.floor((thickness - 1) / 2);
    for (let guard = 0; guard < 100_000; guard++) {
      if (thickness <= 1) this.set(x, y, c);
      else this.fillRect(x - half, y - half, thickness, thickness, c);
      if (x === xe && y === ye) return;
      const e2 = 2 * err;
      if (e2 >= dy) {
        err += dy;
        x += sx;
      }
      if (e2 <= dx) {
        err += dx;
        y += sy;
      }
    }
  }

  /** A vertical dashed line, for marks on the time axis. */
  dashedVertical(x: number, y0: number, y1: number, c: Rgb, dash = 4, thickness = 2): void {
    for (let y = y0; y < y1; y += dash * 2) this.fillRect(x - Math.floor(thickness / 2), y, thickness, Math.min(dash, y1 - y), c);
  }

  /** Text in the bitmap font, top-left at (x, y). */
  text(x: number, y: number, s: string, c: Rgb, scale = 1): void {
    let cx = Math.round(x);
    for (const ch of s) {
      const g = glyph(ch);
      for (let r = 0; r < GLYPH_HEIGHT; r++) {
        for (let col = 0; col < GLYPH_WIDTH; col++) if (g[r]![col]) this.fillRect(cx + col * scale, y + r * scale, scale, scale, c);
      }
      cx += GLYPH_ADVANCE * scale;
    }
  }

  /** PNG: 8-bit RGB, no interlace, filter 0 on every row, zlib-compressed. */
  toPng(): Buffer {
    const rowBytes = this.width * 3;
    const raw = Buffer.alloc((rowBytes + 1) * this.height);
    for (let y = 0; y < this.height; y++) {
      raw[y * (rowBytes + 1)] = 0;
      raw.set(this.pixels.subarray(y * rowBytes, (y + 1) * rowBytes), y * (rowBytes + 1) + 1);
    }
    const ihdr = Buffer.alloc(13);
    ihdr.writeUInt32BE(this.width, 0);
    ihdr.writeUInt32BE(this.height, 4);
    ihdr[8] = 8; // bit depth
    ihdr[9] = 2; // colour type: RGB
    return Buffer.concat([PNG_SIGNATURE, chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw, { level: 6 })), chunk('IEND', Buffer.alloc(0))]);
  }
}

export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

export function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}
