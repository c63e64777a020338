// Decodes the PNGs the bot draws (8-bit RGB, filter 0 or any of PNG's five
// filters), so tests check the picture itself: size, non-blank pixels, colours.
import { inflateSync } from 'node:zlib';

export interface DecodedPng {
  width: number;
  height: number;
  /** RGB, row by row. */
  rgb: Uint8Array;
}

const SIGNATURE = '89504e470d0a1a0a';

export function decodePng(buf: Buffer): DecodedPng {
  if (buf.subarray(0, 8).toString('hex') !== SIGNATURE) throw new Error('not a PNG');
  let off = 8;
  let width = 0;
  let height = 0;
  const idat: Buffer[] = [];
  while (off < buf.length) {
    const len = buf.readUInt32BE(off);
    const type = buf.toString('ascii', off + 4, off + 8);
    const data = buf.subarray(off + 8, off + 8 + len);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      if (data[8] !== 8 || data[9] !== 2) throw new Error(`only 8-bit RGB is decoded here (depth ${data[8]}, colour type ${data[9]})`);
    } else if (type === 'IDAT') idat.push(data);
    off += 12 + len;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * 3;
  const rgb = new Uint8Array(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    for (let x = 0; x < stride; x++) {
      const v = raw[y * (stride + 1) + 1 + x]!;
      const a = x >= 3 ? rgb[y * stride + x - 3]! : 0;
      const b = y > 0 ? rgb[(y - 1) * stride + x]! : 0;
      const c = x >= 3 && y > 0 ? rgb[(y - 1) * stride + x - 3]! : 0;
      const p = a + b - c;
      const pa = Math.abs(p - a);
      const pb = Math.abs(p - b);
      const pc = Math.abs(p - c);
      const pred = [0, a, b, (a + b) >> 1, pa <= pb && pa <= pc ? a : pb <= pc ? b : c][filter]!;
      rgb[y * stride + x] = (v + pred) & 0xff;
    }
  }
  return { width, height, rgb };
}

export function pixel(png: DecodedPng, x: number, y: number): [number, number, number] {
  const i = (y * png.width + x) * 3;
  return [png.rgb[i]!, png.rgb[i + 1]!, png.rgb[i + 2]!];
}

/** How many pixels have exactly this colour, optionally within a box. */
export function countColour(png: DecodedPng, c: readonly number[], box?: { x0: number; y0: number; x1: number; y1: number }): number {
  const { x0 = 0, y0 = 0, x1 = png.width, y1 = png.height } = box ?? {};
  let n = 0;
  for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) {
    const [r, g, b] = pixel(png, x, y);
    if (r === c[0] && g === c[1] && b === c[2]) n++;
  }
  return n;
}

export function nonWhite(png: DecodedPng): number {
  let n = 0;
  for (let i = 0; i < png.rgb.length; i += 3) if (png.rgb[i] !== 255 || png.rgb[i + 1] !== 255 || png.rgb[i + 2] !== 255) n++;
  return n;
}
