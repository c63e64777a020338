// The chart's legend names every series it draws: with 12 brokers the entries
// wrap onto more rows and the image grows, instead of running off its right edge.
import { describe, expect, it } from 'vitest';
import { BROKER_COLOURS, MARK_COLOUR, legendLayout, plotArea, renderChart } from '../../lib/diagnose/metrics/chart/chart.ts';
import { textWidth } from '../../lib/diagnose/metrics/chart/font.ts';
import type { MetricSeries } from '../../lib/diagnose/metrics/types.ts';
import { decodePng, type DecodedPng } from '../helpers/png.ts';
import type { Rgb } from '../../lib/diagnose/metrics/chart/raster.ts';

const T0 = Date.parse('2026-12-01T03:00:00Z');
const window = { fromMs: T0, toMs: T0 + 20 * 60_000, stepMs: 15_000 };
const BROKERS = Array.from({ length: 12 }, (_, i) => i + 1);

function twelveBrokers(): MetricSeries[] {
  return (['underReplicated', 'isrShrinks'] as const).flatMap((metric) =>
    BROKERS.map((broker) => ({ metric, broker, unit: 'count' as const, points: Array.from({ length: 81 }, (_, i): [number, number] => [T0 + i * 15_000, (i * broker) % 7]) })),
  );
}

const at = (png: DecodedPng, x: number, y: number): Rgb => {
  const o = (y * png.width + x) * 3;
  return [png.rgb[o]!, png.rgb[o + 1]!, png.rgb[o + 2]!];
};
const same = (a: Rgb, b: Rgb) => a[0] === b[0] && a[1] === b[1] && a[2] === b[2];

/** The legend's swatches in the picture: solid 22×10 rectangles of a broker colour below the last panel. */
function swatches(png: DecodedPng, fromY: number): { x: number; y: number }[] {
  const found: { x: number; y: number }[] = [];
  for (let y = fromY + 1; y + 10 <= png.height; y++) {
    for (let x = 1; x + 22 <= png.width; x++) {
      const c = at(png, x, y);
      if (!BROKER_COLOURS.some((b) => same(b, c)) || same(at(png, x - 1, y), c) || same(at(png, x, y - 1), c)) continue;
      let solid = true;
      for (let dy = 0; dy < 10 && solid; dy++) for (let dx = 0; dx < 22 && solid; dx++) solid = same(at(png, x + dx, y + dy), c);
      if (solid) found.push({ x, y });
    }
  }
  return found;
}

describe('the chart legend', () => {
  it('with 12 brokers shows a swatch for each of the 12, inside the image, and the alert mark', () => {
    const png = decodePng(renderChart({ title: 'prod', window, metrics: ['underReplicated', 'isrShrinks'], series: twelveBrokers(), markAtMs: T0 + 10 * 60_000 }));
    const legendTop = plotArea(window, 1).bottom + 30;
    expect(swatches(png, legendTop)).toHaveLength(12);
    // The alert's mark in the legend: red below the last panel.
    let red = 0;
    for (let y = legendTop; y < png.height; y++) for (let x = 0; x < png.width; x++) if (same(at(png, x, y), MARK_COLOUR)) red++;
    expect(red).toBeGreaterThan(5);
  });

  it('lays every entry out whole inside the image, wrapping onto a second row', () => {
    const entries = [...BROKERS.map((b) => ({ name: `broker ${b}`, colour: BROKER_COLOURS[(b - 1) % BROKER_COLOURS.length]! })), { name: 'alert fired', colour: null }];
    const { items, rows } = legendLayout(entries);
    expect(items.map((i) => i.name)).toEqual(entries.map((e) => e.name));
    expect(rows).toBeGreaterThan(1);
    for (const i of items) {
      expect(i.x, i.name).toBeGreaterThanOrEqual(0);
      expect(i.x + 30 + textWidth(i.name, 2), i.name).toBeLessThanOrEqual(1200);
    }
    // A short legend stays one row.
    expect(legendLayout(entries.slice(0, 3)).rows).toBe(1);
  });
});
