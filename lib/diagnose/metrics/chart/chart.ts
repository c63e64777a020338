// The graph posted in an incident thread: one panel per metric (two or three),
// one line per broker in a colour of its own, the alert's firing time marked
// by a red dashed line across every panel. Drawn into a pixel buffer and
// encoded as PNG here, so it runs anywhere the bundle runs (no native module,
// no WebAssembly, no font file).
import { METRICS, type MetricId } from '../catalog.ts';
import type { MetricSeries, TimeWindow } from '../types.ts';
import { GLYPH_HEIGHT, textWidth } from './font.ts';
import { Raster, type Rgb } from './raster.ts';

export interface ChartInput {
  title: string;
  window: TimeWindow;
  metrics: MetricId[];
  series: MetricSeries[];
  /** Epoch ms of the alert's firing, marked on every panel. */
  markAtMs?: number;
  markLabel?: string;
}

/** Line colours, one per broker in id order (red is kept for the alert mark). */
export const BROKER_COLOURS: readonly Rgb[] = [
  [31, 119, 180], [255, 127, 14], [44, 160, 44], [148, 103, 189], [140, 86, 75], [227, 119, 194], [188, 189, 34], [23, 190, 207],
];
export const MARK_COLOUR: Rgb = [214, 39, 40];
const CLUSTER_COLOUR: Rgb = [60, 60, 60];
const TEXT: Rgb = [34, 34, 34];
const MUTED: Rgb = [110, 110, 110];
const GRID: Rgb = [228, 228, 228];
const AXIS: Rgb = [150, 150, 150];

const WIDTH = 1200;
const SCALE = 2;
const LINE_H = GLYPH_HEIGHT * SCALE;
const HEADER = 44;
const PANEL_H = 210;
const LEGEND = 46;
const LEFT = 120;
const RIGHT = 28;

/** Where panel `i`'s plot area lies, and the x of a time in it: for readers of the picture (tests). */
export function plotArea(window: TimeWindow, i: number): { x0: number; x1: number; top: number; bottom: number; xOf: (t: number) => number } {
  const top = HEADER + i * PANEL_H;
  const x0 = LEFT;
  const x1 = WIDTH - RIGHT;
  const span = Math.max(1, window.toMs - window.fromMs);
  return { x0, x1, top: top + LINE_H + 14, bottom: top + PANEL_H - LINE_H - 18, xOf: (t) => LEFT + ((t - window.fromMs) / span) * (x1 - x0) };
}

const key = (s: MetricSeries) => (s.broker !== null ? `b${s.broker}` : `l${s.label ?? ''}`);
const legendName = (s: MetricSeries) => (s.broker !== null ? `broker ${s.broker}` : (s.label ?? 'cluster'));

/** One colour per broker across the panels, in broker id order. */
export function colourFor(series: readonly MetricSeries[]): Map<string, Rgb> {
  const keys = [...new Map(series.map((s) => [key(s), s])).values()].sort((a, b) => (a.broker ?? Infinity) - (b.broker ?? Infinity) || (a.label ?? '').localeCompare(b.label ?? ''));
  const colours = new Map<string, Rgb>();
  let i = 0;
  for (const s of keys) colours.set(key(s), s.broker === null && !s.label ? CLUSTER_COLOUR : BROKER_COLOURS[i++ % BROKER_COLOURS.length]!);
  return colours;
}

/** "UnderReplicatedPartitions" → "Under Replicated Partitions": capitals-only text needs the word breaks. */
export function spaced(name: string): string {
  return name.replace(/([a-z])([A-Z])/g, '$1 $2');
}

function hhmm(ms: number, withSeconds: boolean): string {
  const iso = new Date(ms).toISOString();
  return withSeconds ? iso.slice(11, 19) : iso.slice(11, 16);
}

function tickLabel(v: number, unit: MetricSeries['unit']): string {
  if (unit === 'percent') return `${Math.round(v)}%`;
  if (unit === 'bytes') {
    const units = ['B', 'K', 'M', 'G', 'T'];
    let x = v;
    let i = 0;
    while (x >= 1024 && i < units.length - 1) {
      x /= 1024;
      i++;
    }
    return `${x < 10 && x !== Math.round(x) ? x.toFixed(1) : Math.round(x)}${units[i]}`;
  }
  const r = Math.abs(v) >= 10 || v === Math.round(v) ? String(Math.round(v)) : v.toFixed(v < 1 ? 2 : 1);
  return unit === 'per-second' ? `${r}/s` : r;
}

/** A round top for the y axis: 1, 2, 5 × a power of ten (percent: 100). */
function niceMax(max: number, unit: MetricSeries['unit']): number {
  if (unit === 'percent') return 100;
  if (!(max > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(max));
  for (const m of [1, 2, 5, 10]) if (m * p >= max) return m * p;
  return 10 * p;
}

/** One entry of the legend: a broker's swatch and name, or the alert's mark (colour null). */
export interface LegendItem {
  x: number;
  /** From the legend's top. */
  y: number;
  name: string;
  colour: Rgb | null;
}

const LEGEND_ROW = LINE_H + 12;
const ALERT_FIRED = 'alert fired';

/**
 * The legend, every entry in it: left to right from the plots' left edge, an
 * entry that would cross the right margin starts a new row (the image grows a
 * row's height for each).
 */
export function legendLayout(entries: readonly { name: string; colour: Rgb | null }[]): { items: LegendItem[]; rows: number } {
  const items: LegendItem[] = [];
  let x = LEFT;
  let row = 0;
  for (const e of entries) {
    const width = e.colour ? 30 + textWidth(e.name, SCALE) : 24 + textWidth(e.name, SCALE);
    if (x > LEFT && x + width > WIDTH - RIGHT) {
      x = LEFT;
      row++;
    }
    items.push({ x, y: 14 + row * LEGEND_ROW, name: e.name, colour: e.colour });
    x += width + 30;
  }
  return { items, rows: row + 1 };
}

/** The legend's entries: one per series drawn (a broker, or a labelled line), then the alert's mark. */
function legendEntries(plotted: readonly MetricSeries[], colours: Map<string, Rgb>, marked: boolean): { name: string; colour: Rgb | null }[] {
  const distinct = [...new Map(plotted.map((x) => [key(x), x])).values()].sort((a, b) => (a.broker ?? Infinity) - (b.broker ?? Infinity));
  const entries: { name: string; colour: Rgb | null }[] = distinct.map((s) => ({ name: legendName(s), colour: colours.get(key(s))! }));
  return marked ? [...entries, { name: ALERT_FIRED, colour: null }] : entries;
}

function drawLegend(r: Raster, top: number, items: readonly LegendItem[]): void {
  for (const item of items) {
    const ly = top + item.y;
    if (item.colour) {
      r.fillRect(item.x, ly + 2, 22, 10, item.colour);
      r.text(item.x + 30, ly, item.name, TEXT, SCALE);
    } else {
      r.dashedVertical(item.x + 10, ly - 2, ly + LINE_H + 2, MARK_COLOUR);
      r.text(item.x + 24, ly, item.name, TEXT, SCALE);
    }
  }
}

interface PanelContext {
  r: Raster;
  input: ChartInput;
  plotted: readonly MetricSeries[];
  colours: Map<string, Rgb>;
  withSeconds: boolean;
}

/** Grid, y ticks (0, half, top) and five time ticks of one panel. */
function drawAxes(c: PanelContext, area: ReturnType<typeof plotArea>, maxV: number, unit: MetricSeries['unit'], yOf: (v: number) => number): void {
  const { r, input } = c;
  const { fromMs, toMs } = input.window;
  const span = Math.max(1, toMs - fromMs);
  for (const frac of [0, 0.5, 1]) {
    const y = Math.round(yOf(maxV * frac));
    r.fillRect(LEFT, y, area.x1 - area.x0, 1, frac === 0 ? AXIS : GRID);
    const label = tickLabel(maxV * frac, unit);
    r.text(LEFT - 10 - textWidth(label, SCALE), y - LINE_H / 2, label, MUTED, SCALE);
  }
  r.fillRect(LEFT, area.top, 1, area.bottom - area.top + 1, AXIS);
  for (let k = 0; k <= 4; k++) {
    const t = fromMs + (span * k) / 4;
    const x = Math.round(area.xOf(t));
    r.fillRect(x, area.bottom + 1, 1, 5, AXIS);
    const label = hhmm(t, c.withSeconds);
    const lx = Math.min(WIDTH - RIGHT - textWidth(label, SCALE), Math.max(LEFT, x - textWidth(label, SCALE) / 2));
    r.text(lx, area.bottom + 9, label, MUTED, SCALE);
  }
}

function drawPanel(c: PanelContext, metric: MetricId, i: number): void {
  const { r, input } = c;
  const { fromMs, toMs, stepMs } = input.window;
  const top = HEADER + i * PANEL_H;
  const area = plotArea(input.window, i);
  const mine = c.plotted.filter((s) => s.metric === metric);
  const unit = mine[0]?.unit ?? METRICS[metric].unit;
  const maxV = niceMax(Math.max(0, ...mine.flatMap((s) => s.points.map(([, v]) => v))), unit);
  const yOf = (v: number) => area.bottom - (Math.min(Math.max(v, 0), maxV) / maxV) * (area.bottom - area.top);
  r.text(LEFT, top + 6, spaced(METRICS[metric].title), TEXT, SCALE);
  drawAxes(c, area, maxV, unit, yOf);
  if (input.markAtMs !== undefined && input.markAtMs >= fromMs && input.markAtMs <= toMs) {
    const x = Math.round(area.xOf(input.markAtMs));
    r.dashedVertical(x, area.top, area.bottom, MARK_COLOUR);
    if (i === 0) {
      const label = input.markLabel ?? `alert ${hhmm(input.markAtMs, c.withSeconds)}`;
      const lx = Math.min(WIDTH - RIGHT - textWidth(label, SCALE), x + 6);
      r.text(lx, top + 6, label, MARK_COLOUR, SCALE);
    }
  }
  // Lines: consecutive points joined unless a gap (no sample for a while) lies between.
  for (const s of mine) {
    const colour = c.colours.get(key(s))!;
    let prev: [number, number] | null = null;
    for (const p of s.points) {
      if (p[0] < fromMs || p[0] > toMs) continue;
      const x = area.xOf(p[0]);
      const y = yOf(p[1]);
      if (prev && p[0] - prev[0] <= 2.5 * stepMs) r.line(area.xOf(prev[0]), yOf(prev[1]), x, y, colour, 3);
      else r.fillRect(x - 1, y - 1, 3, 3, colour);
      prev = p;
    }
  }
}

/** The chart as PNG bytes. Throws only on a programming error; callers still catch (a chart never holds back the findings). */
export function renderChart(input: ChartInput): Buffer {
  const panels = input.metrics.filter((m) => input.series.some((s) => s.metric === m && s.points.length > 0));
  const plotted = input.series.filter((s) => panels.includes(s.metric) && s.points.length > 0);
  const colours = colourFor(plotted);
  const legend = legendLayout(legendEntries(plotted, colours, input.markAtMs !== undefined));
  const legendTop = HEADER + Math.max(1, panels.length) * PANEL_H;
  const height = legendTop + LEGEND + (legend.rows - 1) * LEGEND_ROW;
  const r = new Raster(WIDTH, height);
  const { fromMs, toMs } = input.window;
  r.text(16, 14, input.title, TEXT, SCALE);
  const range = `${hhmm(fromMs, false)}-${hhmm(toMs, false)} UTC`;
  r.text(WIDTH - RIGHT - textWidth(range, SCALE), 14, range, MUTED, SCALE);
  if (panels.length === 0) r.text(LEFT, HEADER + PANEL_H / 2, 'no metric data in this window', MUTED, SCALE);
  const context: PanelContext = { r, input, plotted, colours, withSeconds: Math.max(1, toMs - fromMs) <= 30 * 60_000 };
  panels.forEach((metric, i) => drawPanel(context, metric, i));
  drawLegend(r, legendTop, legend.items);
  return r.toPng();
}
