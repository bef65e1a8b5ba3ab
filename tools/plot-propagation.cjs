#!/usr/bin/env node
// `node tools/plot-propagation.cjs <results.json>`: draws the figures of the propagation bench
// (test/bench/propagation-floor.bench.ts, BENCH_OUT=<results.json>) as SVG line charts and renders
// them to docs/propagation-floor.png and docs/cost-growth.png with resvg (offline, system fonts);
// the SVG sources are written beside them (docs/*.svg). With product variants (BENCH_ACK_SPREADS),
// the propagation plot has one product line per variant, and the goal (2× the floor's p99) dashed.
const { readFileSync, writeFileSync } = require('node:fs');
const path = require('node:path');
const { Resvg } = require('@resvg/resvg-js');

const results = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const docs = path.join(__dirname, '..', 'docs');
const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#7f7f7f'];
const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;');

/** One panel: categorical x (evenly spaced), linear or log y, one polyline per series. */
function panel({ x0, y0, w, h, title, xLabel, yLabel, xs, series, log = false }) {
  const values = series.flatMap((s) => s.values).filter((v) => v > 0);
  const lo = log ? 10 ** Math.floor(Math.log10(Math.min(...values))) : 0;
  const hi = log ? 10 ** Math.ceil(Math.log10(Math.max(...values))) : niceMax(Math.max(...values));
  const left = x0 + 70,
    right = x0 + w - 20,
    top = y0 + 40,
    bottom = y0 + h - 50;
  const px = (i) => left + (xs.length === 1 ? (right - left) / 2 : (i * (right - left)) / (xs.length - 1));
  const py = (v) =>
    log
      ? bottom - ((Math.log10(Math.max(v, lo)) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo))) * (bottom - top)
      : bottom - (v / hi) * (bottom - top);
  const out = [`<text x="${x0 + w / 2}" y="${y0 + 22}" text-anchor="middle" font-size="15" font-weight="bold">${esc(title)}</text>`];
  const ticks = log
    ? Array.from({ length: Math.round(Math.log10(hi / lo)) + 1 }, (_, k) => lo * 10 ** k)
    : Array.from({ length: 6 }, (_, k) => (hi * k) / 5);
  for (const t of ticks) {
    out.push(`<line x1="${left}" x2="${right}" y1="${py(t)}" y2="${py(t)}" stroke="#ddd"/>`);
    out.push(`<text x="${left - 6}" y="${py(t) + 4}" text-anchor="end" font-size="11">${fmt(t)}</text>`);
  }
  xs.forEach((x, i) => out.push(`<text x="${px(i)}" y="${bottom + 16}" text-anchor="middle" font-size="11">${esc(x)}</text>`));
  out.push(
    `<line x1="${left}" x2="${left}" y1="${top}" y2="${bottom}" stroke="#333"/><line x1="${left}" x2="${right}" y1="${bottom}" y2="${bottom}" stroke="#333"/>`,
  );
  out.push(`<text x="${(left + right) / 2}" y="${bottom + 36}" text-anchor="middle" font-size="12">${esc(xLabel)}</text>`);
  out.push(
    `<text transform="translate(${x0 + 16},${(top + bottom) / 2}) rotate(-90)" text-anchor="middle" font-size="12">${esc(yLabel)}</text>`,
  );
  series.forEach((s, k) => {
    const color = COLORS[k % COLORS.length];
    const pts = s.values.map((v, i) => `${px(i)},${py(v)}`).join(' ');
    out.push(`<polyline points="${pts}" fill="none" stroke="${color}" stroke-width="2.5" ${s.dashed ? 'stroke-dasharray="6,4"' : ''}/>`);
    s.values.forEach((v, i) => out.push(`<circle cx="${px(i)}" cy="${py(v)}" r="3.5" fill="${color}"/>`));
    out.push(`<rect x="${left + 10}" y="${top + 4 + k * 17}" width="14" height="4" fill="${color}"/>`);
    out.push(`<text x="${left + 30}" y="${top + 10 + k * 17}" font-size="11">${esc(s.name)}</text>`);
  });
  return out.join('\n');
}

function niceMax(v) {
  const p = 10 ** Math.floor(Math.log10(v || 1));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}
function fmt(v) {
  if (v >= 1e6) return `${+(v / 1e6).toFixed(1)}M`;
  if (v >= 1e3) return `${+(v / 1e3).toFixed(1)}k`;
  return `${+v.toFixed(1)}`;
}

function render(file, width, height, panels, note, caption = note) {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="DejaVu Sans">
<rect width="100%" height="100%" fill="white"/>
${panels.join('\n')}
<text x="${width / 2}" y="${height - 8}" text-anchor="middle" font-size="11" fill="#555">${esc(caption)}</text>
</svg>`;
  writeFileSync(path.join(docs, file.replace(/\.png$/, '.svg')), svg);
  const png = new Resvg(svg, { font: { loadSystemFonts: true, defaultFontFamily: 'DejaVu Sans' } }).render().asPng();
  writeFileSync(path.join(docs, file), png);
  process.stdout.write(`wrote docs/${file} (${png.length} bytes)\n`);
}

// `note` in the results (e.g. when two runs' parts were merged) replaces the one-run caption.
const note =
  results.note ??
  `one run, ${results.machine.node}, 2 shared cores, load average ${results.machine.loadavg.split(' ')[0]} → ${results.loadavgAfter.split(' ')[0]} (other sessions running): ratios count, not absolutes`;
const byN = results.byNodes;
/** The product runs of one N: its variants (BENCH_ACK_SPREADS), or the one run of older results. */
const variantsOf = (r) => r.variants ?? [r];
const variantName = (r, k) => {
  const v = variantsOf(r)[k];
  return r.variants ? `, nodes' ackSpreadMs ${v.ackSpreadMs ?? 'default'}` : '';
};
const ns = Object.keys(byN);
render(
  'propagation-floor.png',
  900,
  480,
  [
    panel({
      x0: 0,
      y0: 0,
      w: 900,
      h: 460,
      title: 'Change → the last of N nodes serves it, against the floor (PUBLISH + one GET per node)',
      xLabel: 'nodes (spread over 4 OS processes)',
      yLabel: 'ms (log scale)',
      xs: ns,
      log: true,
      series: [
        ...variantsOf(byN[ns[0]]).map((_, k) => ({
          name: `product p99${variantName(byN[ns[0]], k)}`,
          values: ns.map((n) => variantsOf(byN[n])[k].product.p99),
        })),
        { name: 'floor p99', values: ns.map((n) => byN[n].floor.p99) },
        { name: 'goal: 2 × floor p99', values: ns.map((n) => 2 * byN[n].floor.p99), dashed: true },
        ...variantsOf(byN[ns[0]]).map((_, k) => ({
          name: `product p50${variantName(byN[ns[0]], k)}`,
          values: ns.map((n) => variantsOf(byN[n])[k].product.p50),
          dashed: true,
        })),
      ],
    }),
  ],
  note,
);

const byM = results.byManifests;
const ms = Object.keys(byM);
render(
  'cost-growth.png',
  1200,
  900,
  [
    panel({
      x0: 0,
      y0: 0,
      w: 600,
      h: 430,
      title: 'Control-plane CPU per change, as nodes grow',
      xLabel: 'nodes',
      yLabel: 'CPU ms per change',
      xs: ns,
      series: [{ name: 'control plane (utime+stime)', values: ns.map((n) => byN[n].cpuMsPerChange) }],
    }),
    panel({
      x0: 600,
      y0: 0,
      w: 600,
      h: 430,
      title: 'Redis memory, as nodes grow',
      xLabel: 'nodes',
      yLabel: 'used_memory MB',
      xs: ns,
      series: [{ name: 'Redis used_memory', values: ns.map((n) => byN[n].redisUsedMemory / 1e6) }],
    }),
    panel({
      x0: 0,
      y0: 440,
      w: 600,
      h: 430,
      title: 'One agent growing: propagation and CPU',
      xLabel: 'manifests',
      yLabel: 'ms (log scale)',
      xs: ms,
      log: true,
      series: [
        { name: `propagation p50 (${results.growthNodes ?? 5} nodes)`, values: ms.map((m) => byM[m].propagationP50) },
        { name: 'control-plane CPU ms per change', values: ms.map((m) => byM[m].cpuMsPerChange) },
      ],
    }),
    panel({
      x0: 600,
      y0: 440,
      w: 600,
      h: 430,
      title: 'Bytes a node receives per change',
      xLabel: 'manifests',
      yLabel: 'bytes (log scale)',
      xs: ms,
      log: true,
      series: [
        { name: 'full bundle', values: ms.map((m) => byM[m].fullBytes) },
        { name: 'delta', values: ms.map((m) => byM[m].deltaBytes) },
        { name: 'Redis used_memory', values: ms.map((m) => byM[m].redisUsedMemory), dashed: true },
      ],
    }),
  ],
  note,
);
