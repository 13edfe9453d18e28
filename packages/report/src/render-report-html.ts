import {
  categoryLabel,
  evaluationLabel,
  reportCharts,
  type ChartSpec,
} from './chart-specs';
import { html, jsonForScript, rawHtml, type RawHtml } from './html';
import type {
  OverlaySummary,
  PackPositionCurve,
  ReportData,
} from './report-data';

/** Options of {@link renderReportHtml}. */
export type RenderReportHtmlOptions = {
  data: ReportData;
  /** The charting library's browser bundle (Chart.js UMD), inlined into the page. */
  chartLibrary: string;
};

const percent = (value: number | null | undefined): string =>
  value === null || value === undefined ? '—' : `${(value * 100).toFixed(1)}%`;

const decimal = (value: number | null | undefined, digits = 3): string =>
  value === null || value === undefined ? '—' : value.toFixed(digits);

/**
 * Shared look of the report and the viewer: system fonts, a light card
 * layout, tables that wrap long text, monospace for model output.
 */
export const baseStyles = `
:root { color-scheme: light; --ink: #1d2733; --muted: #5b6775; --line: #dde3ea; --bg: #f5f7fa; --card: #fff; --accent: #1f5fa8; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "DejaVu Sans", sans-serif; color: var(--ink); background: var(--bg); }
header.top { background: #17324f; color: #fff; padding: 14px 24px; }
header.top h1 { margin: 0; font-size: 20px; font-weight: 600; }
header.top .meta { color: #c9d6e6; font-size: 13px; margin-top: 2px; }
header.top a { color: #fff; }
nav.sections { position: sticky; top: 0; z-index: 2; background: #fff; border-bottom: 1px solid var(--line); padding: 8px 24px; display: flex; gap: 16px; flex-wrap: wrap; }
nav.sections a { color: var(--accent); text-decoration: none; font-weight: 500; }
main { max-width: 1280px; margin: 0 auto; padding: 16px 24px 48px; }
section { margin-top: 24px; }
h2 { font-size: 18px; margin: 0 0 10px; }
h3 { font-size: 15px; margin: 16px 0 6px; }
p.note, .caption { color: var(--muted); }
.caption { font-size: 12.5px; margin: 0 0 6px; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(220px, 1fr)); gap: 12px; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 12px 14px; }
.card .label { color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .03em; }
.card .value { font-size: 22px; font-weight: 600; margin-top: 2px; }
.card .sub { color: var(--muted); font-size: 12.5px; }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(520px, 1fr)); gap: 16px; }
figure.chart { margin: 0; background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 12px 14px; min-width: 0; }
figure.chart figcaption { font-weight: 600; margin-bottom: 2px; }
figure.chart .canvas-box { position: relative; height: 280px; }
figure.chart.wide { grid-column: 1 / -1; }
figure.chart[data-error] .canvas-box::after { content: attr(data-error); color: #b00020; }
table { border-collapse: collapse; background: var(--card); border: 1px solid var(--line); width: 100%; }
th, td { border-bottom: 1px solid var(--line); padding: 5px 8px; text-align: left; vertical-align: top; }
th { background: #eef2f6; font-weight: 600; font-size: 12.5px; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
code, pre, .mono { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, "DejaVu Sans Mono", monospace; font-size: 12.5px; }
pre { white-space: pre-wrap; word-break: break-word; margin: 0; }
details > summary { cursor: pointer; color: var(--accent); }
.tag { display: inline-block; padding: 1px 7px; border-radius: 10px; font-size: 12px; font-weight: 600; color: #fff; background: #607d8b; white-space: nowrap; }
.tag.pass { background: #2e7d32; } .tag.correct_abstention { background: #26a69a; } .tag.spurious_tool_call { background: #ef6c00; }
.tag.empty_turn_model_response { background: #8d6e63; } .tag.instance_mismatch { background: #6a1b9a; } .tag.state_mismatch { background: #c62828; }
.tag.response_mismatch { background: #d81b60; } .tag.checker_error { background: #455a64; } .tag.gt_error { background: #212121; }
.tag.fine { background: #fff; color: #6a1b9a; border: 1px solid #b39ddb; }
.ok { color: #2e7d32; font-weight: 600; } .bad { color: #c62828; font-weight: 600; }
ul.warnings { color: #8a5300; }
.overlay-contents h4 { margin: 0 0 4px; font-size: 13px; }
.overlay-contents .note { margin-bottom: 6px; }
table.overlays ul { margin: 0; padding-left: 16px; }
`;

function chartFigure(chart: ChartSpec, wide = false): RawHtml {
  return html`<figure class="chart${wide ? ' wide' : ''}" data-chart="${chart.id}">
<figcaption>${chart.title}</figcaption>
${chart.caption ? html`<p class="caption">${chart.caption}</p>` : ''}
<div class="canvas-box"${chart.height ? rawHtml(` style="height:${chart.height}px"`) : ''}><canvas id="chart-${chart.id}" role="img" aria-label="${chart.title}"></canvas></div>
</figure>`;
}

function summaryCards(data: ReportData): RawHtml {
  const { training } = data;
  const success = training.successRate.filter(
    (value): value is number => value !== null,
  );
  const window = Math.max(1, Math.min(3, Math.floor(success.length / 3) || 1));
  const mean = (values: number[]) =>
    values.length === 0
      ? null
      : values.reduce((a, b) => a + b, 0) / values.length;
  const cards: RawHtml[] = [];
  // Connect the Dots runs have no step events; their training shows per pack position below.
  if (!(data.packs && training.steps.length === 0)) {
    cards.push(html`<div class="card"><div class="label">Training success</div><div class="value">${percent(mean(success.slice(-window)))}</div>
<div class="sub">${success.length === 0 ? 'no training step yet' : `last ${window} step${window === 1 ? '' : 's'}; first ${window}: ${percent(mean(success.slice(0, window)))}`}</div></div>`);
  }
  for (const set of data.evaluation.sets) {
    const first = set.accuracy[0] ?? null;
    const last = set.accuracy.at(-1) ?? null;
    const best = Math.max(
      ...set.accuracy.filter((value): value is number => value !== null),
    );
    cards.push(html`<div class="card" data-eval-set="${set.name}"><div class="label">Evaluation · ${set.name}</div>
<div class="value">${percent(last)}</div>
<div class="sub">step ${set.steps[0] ?? '—'}: ${percent(first)} → step ${set.steps.at(-1) ?? '—'}; best ${percent(Number.isFinite(best) ? best : null)}</div></div>`);
  }
  // Connect the Dots: success at the first and last position, before and after training.
  const packEvaluations = data.packs?.evaluations ?? [];
  const shown =
    packEvaluations.length <= 1
      ? packEvaluations
      : [packEvaluations[0]!, packEvaluations.at(-1)!];
  for (const evaluation of shown) {
    if (evaluation.positions.length < 2) continue;
    const first = evaluation.positions[0]!;
    const last = evaluation.positions.at(-1)!;
    cards.push(html`<div class="card" data-pack-evaluation="${evaluation.step}"><div class="label">Pack positions · ${evaluationLabel(evaluation.step)}</div>
<div class="value">${percent(first.successRate)} → ${percent(last.successRate)}</div>
<div class="sub">success at position 1 and ${last.position + 1}, ${evaluation.packRuns} pack run${evaluation.packRuns === 1 ? '' : 's'}</div></div>`);
  }
  cards.push(html`<div class="card"><div class="label">Steps</div><div class="value">${data.run.completedSteps}${data.run.configuredSteps === null ? '' : ` / ${data.run.configuredSteps}`}</div>
<div class="sub">${data.overlays.overlays.length} overlay${data.overlays.overlays.length === 1 ? '' : 's'}; ${data.episodes.trainFiles} training and ${data.episodes.evalFiles} evaluation episode files</div></div>`);
  return html`<div class="cards">${cards}</div>`;
}

function categoryTable(data: ReportData): RawHtml {
  const sets = data.evaluation.sets.filter(
    (set) => Object.keys(set.categories).length > 0,
  );
  const totals = data.categories.capabilityTotals;
  if (data.categories.names.length === 0) return html``;
  return html`<h3>By category</h3><table class="categories">
<thead><tr><th>category</th>${sets.map((set) => html`<th class="num">${set.name} first</th><th class="num">${set.name} last</th>`)}
${totals ? html`<th class="num">training rollouts</th><th class="num">training success</th>` : ''}</tr></thead>
<tbody>${data.categories.names.map(
    (category) =>
      html`<tr><td>${categoryLabel(category)}</td>${sets.map(
        (set) =>
          html`<td class="num">${percent(set.categories[category]?.[0])}</td><td class="num">${percent(set.categories[category]?.at(-1))}</td>`,
      )}${totals ? html`<td class="num">${totals[category]?.count ?? 0}</td><td class="num">${percent(totals[category]?.successRate)}</td>` : ''}</tr>`,
  )}</tbody></table>`;
}

function tagTable(data: ReportData): RawHtml {
  const totals = data.tags.totals;
  if (!totals) return html``;
  const names = data.tags.names.filter((tag) => tag in totals);
  return html`<h3>Tag totals (capability state)</h3><table class="tags">
<thead><tr><th>tag</th><th class="num">turns</th><th class="num">success rate of their trajectories</th><th class="num">reward mean</th><th class="num">ρ now</th></tr></thead>
<tbody>${names.map(
    (
      tag,
    ) => html`<tr><td><span class="tag ${tag}">${tag}</span></td><td class="num">${totals[tag]!.count}</td>
<td class="num">${percent(totals[tag]!.successRate)}</td><td class="num">${decimal(totals[tag]!.rewardMean)}</td><td class="num">${decimal(data.rho.latest?.[tag])}</td></tr>`,
  )}</tbody></table>`;
}

/** Environment Tuning's stage timeline: each stage's training steps and what ended it. */
function curriculumTable(data: ReportData): RawHtml {
  const curriculum = data.curriculum;
  if (!curriculum || curriculum.stages.length === 0) return html``;
  const last = curriculum.stages.length - 1;
  return html`<h3 id="curriculum">Curriculum stages</h3><table class="curriculum">
<thead><tr><th>stage</th><th>training steps</th><th>ended by</th><th class="num">validation when it ended</th></tr></thead>
<tbody>${curriculum.stages.map((stage, i) => {
    const steps =
      stage.toStep === null
        ? 'reached after the last step'
        : stage.fromStep === stage.toStep
          ? `${stage.fromStep}`
          : `${stage.fromStep}–${stage.toStep}`;
    const ended =
      stage.endedBy === 'plateau'
        ? `validation plateau after step ${stage.toStep}`
        : stage.endedBy === 'budget'
          ? `step budget, after step ${stage.toStep}`
          : i === last
            ? 'in force at the end of the run'
            : '—';
    return html`<tr data-stage="${stage.name}"><td>${i + 1} · ${stage.name}</td><td>${steps}</td><td>${ended}</td><td class="num">${percent(stage.endValidation)}</td></tr>`;
  })}</tbody></table>`;
}

/** Success (and reward) per pack position, one row per pack-run file. */
function positionTable({
  curves,
  label,
}: {
  curves: readonly PackPositionCurve[];
  label: (curve: PackPositionCurve) => string;
}): RawHtml {
  const positions = Math.max(
    0,
    ...curves.map((curve) => curve.positions.length),
  );
  return html`<table class="pack-positions">
<thead><tr><th></th><th class="num">pack runs</th>${Array.from({ length: positions }, (_, i) => html`<th class="num">position ${i + 1}</th>`)}<th class="num">last − first</th></tr></thead>
<tbody>${curves.map((curve) => {
    const first = curve.positions[0];
    const last = curve.positions.at(-1);
    const gain =
      first && last && curve.positions.length > 1
        ? last.successRate - first.successRate
        : null;
    return html`<tr data-pack-file="${curve.file}"><td>${label(curve)} <span class="note mono">${curve.file}</span></td><td class="num">${curve.packRuns}</td>${Array.from(
      { length: positions },
      (_, i) => {
        const entry = curve.positions[i];
        return html`<td class="num">${entry && entry.runs > 0 ? html`${percent(entry.successRate)}<br><span class="note">${decimal(entry.rewardMean, 2)}</span>` : '—'}</td>`;
      },
    )}<td class="num">${gain === null ? '—' : `${gain >= 0 ? '+' : '−'}${(Math.abs(gain) * 100).toFixed(1)} points`}</td></tr>`;
  })}</tbody></table>`;
}

/** Connect the Dots: the position curves and what became of the hint blocks. */
function packSection({
  data,
  charts,
}: {
  data: ReportData;
  charts: ChartSpec[];
}): RawHtml {
  const packs = data.packs;
  if (!packs) return html``;
  const { hints } = packs;
  const failures = Object.entries(hints.failures).sort((a, b) => b[1] - a[1]);
  return html`<section id="packs"><h2>Pack positions (Connect the Dots)</h2>
${charts.length > 0 ? html`<div class="charts">${charts.map((chart) => chartFigure(chart))}</div>` : ''}
${packs.evaluations.length > 0 ? html`<h3>Evaluations: success (and mean reward) per position</h3>${positionTable({ curves: packs.evaluations, label: (curve) => evaluationLabel(curve.step) })}` : html`<p class="note">No evaluation on packs has been recorded yet.</p>`}
${packs.training.length > 0 ? html`<details><summary>Training pack runs: success per position at each of ${packs.training.length} step${packs.training.length === 1 ? '' : 's'}</summary>${positionTable({ curves: packs.training, label: (curve) => `step ${curve.step}` })}</details>` : ''}
<h3>Hint updates</h3>
<p class="hint-summary">${hints.updates === 0 ? 'No update-context episode was recorded (packs of one task?).' : `${hints.parsed} of ${hints.updates} update-context responses wrote a usable hint block (${percent(hints.parsed / hints.updates)})${hints.meanLength === null ? '' : `, ${Math.round(hints.meanLength)} characters on average`}.`}
${failures.length > 0 ? html` The others were penalised and parsed as “no hint available”: ${failures.map(([reason, count]) => `${count} ${reason}`).join(', ')}.` : ''}
${hints.updates > 0 ? ' The viewer (seal view) shows every pack run with its hints between the tasks.' : ''}</p>
</section>`;
}

/** The gap monitor's rollbacks: when the policy fell behind the frozen warm start and what was restored. */
function rollbackTable(data: ReportData): RawHtml {
  if (data.rollbacks.length === 0) return html``;
  return html`<h3 id="rollbacks">Gap-monitor rollbacks</h3><table class="rollbacks">
<thead><tr><th>after step</th><th class="num">window gain over the warm start</th><th>weights restored to</th><th class="num">learning rate from then</th></tr></thead>
<tbody>${data.rollbacks.map(
    (rollback) =>
      html`<tr><td>${rollback.step}</td><td class="num">${(rollback.windowGain * 100).toFixed(1)} points</td><td>${rollback.toStep === 0 ? 'the starting weights' : `step ${rollback.toStep}`}</td><td class="num">${rollback.learningRate.toExponential(2)}</td></tr>`,
  )}</tbody></table>`;
}

/** `1–3, 6, 8–9` for steps 1, 2, 3, 6, 8, 9 (sorted input). */
export function stepRanges(steps: readonly number[]): string {
  const ranges: string[] = [];
  let start = steps[0];
  let previous = steps[0];
  for (const step of [...steps.slice(1), undefined]) {
    if (step !== undefined && previous !== undefined && step === previous + 1) {
      previous = step;
      continue;
    }
    if (start !== undefined)
      ranges.push(start === previous ? `${start}` : `${start}–${previous}`);
    start = step;
    previous = step;
  }
  return ranges.join(', ');
}

/** The contents of one overlay, readable (also used by the viewer). */
export function renderOverlayContents(
  overlay: Omit<OverlaySummary, 'index' | 'steps' | 'changes' | 'hash'>,
): RawHtml {
  const cued = overlay.toolPatches.filter(
    (patch) => Object.keys(patch.parameters).length > 0 || patch.description,
  );
  const hidden = overlay.toolPatches.flatMap((patch) =>
    patch.hide.map((name) => `${patch.tool}.${name}`),
  );
  return html`<div class="overlay-contents">
${overlay.systemNotes.length > 0 ? html`<h4>System-prompt notes</h4>${overlay.systemNotes.map((note) => html`<div class="note"><span class="mono">${note.source}</span><pre>${note.text}</pre></div>`)}` : html`<p class="note">No system-prompt notes.</p>`}
${
  cued.length > 0
    ? html`<details><summary>Schema cues on ${cued.length} tool${cued.length === 1 ? '' : 's'}${hidden.length > 0 ? ` (${hidden.length} parameters hidden)` : ''}</summary>
<table><thead><tr><th>tool</th><th>cue</th></tr></thead><tbody>${cued.map(
        (patch) =>
          html`<tr><td class="mono">${patch.tool}</td><td class="mono">${[
            ...(patch.description ? [`description: ${patch.description}`] : []),
            ...Object.entries(patch.parameters).map(
              ([name, text]) => `${name}:${text}`,
            ),
            ...patch.hide.map((name) => `hidden: ${name}`),
          ].join('; ')}</td></tr>`,
      )}</tbody></table></details>`
    : ''
}
${
  overlay.errorHints.length > 0
    ? html`<details><summary>${overlay.errorHints.length} error hint${overlay.errorHints.length === 1 ? '' : 's'}: ${overlay.errorHints.map((hint) => hint.id).join(', ')}</summary>
<table><tbody>${overlay.errorHints.map((hint) => html`<tr><td class="mono">${hint.id}</td><td><pre>${hint.hint}</pre></td></tr>`)}</tbody></table></details>`
    : ''
}
${
  overlay.parseErrorHints.length > 0
    ? html`<details><summary>${overlay.parseErrorHints.length} parse-error hint${overlay.parseErrorHints.length === 1 ? '' : 's'}</summary>
${overlay.parseErrorHints.map((hint) => html`<pre>${hint}</pre>`)}</details>`
    : ''
}
${
  overlay.errorRewrites.length > 0
    ? html`<details><summary>${overlay.errorRewrites.length} error rewrite${overlay.errorRewrites.length === 1 ? '' : 's'}</summary>
<table><tbody>${overlay.errorRewrites.map((rewrite) => html`<tr><td class="mono">${rewrite.id}</td><td><pre>${rewrite.replacement}</pre></td></tr>`)}</tbody></table></details>`
    : ''
}
${overlay.categories.length > 0 ? html`<p>Applies to: ${overlay.categories.map(categoryLabel).join(', ')}</p>` : ''}
</div>`;
}

function overlayTable(data: ReportData): RawHtml {
  const { overlays } = data.overlays;
  if (overlays.length === 0)
    return html`<p class="note">No overlays.jsonl: the run recorded no training interface.</p>`;
  return html`<table class="overlays">
<thead><tr><th>overlay</th><th>steps in force</th><th>changes from the overlay before</th><th>contents</th></tr></thead>
<tbody>${overlays.map(
    (
      overlay,
    ) => html`<tr id="overlay-${overlay.index}"><td class="mono">#${overlay.index}<br>${overlay.hash}</td><td>${stepRanges(overlay.steps)}</td>
<td>${overlay.changes.length === 0 ? html`<span class="note">${overlay.index === 1 ? 'first overlay' : 'none'}</span>` : html`<ul>${overlay.changes.map((change) => html`<li><pre>${change}</pre></li>`)}</ul>`}</td>
<td>${renderOverlayContents(overlay)}</td></tr>`,
  )}</tbody></table>`;
}

/** Client-side: builds each chart from its spec, with percent ticks where asked, and records the outcome. */
const chartBootstrap = `
(function () {
  var specs = JSON.parse(document.getElementById('seal-chart-specs').textContent);
  var rendered = 0, failed = [];
  var pct = function (value) { return Math.round(value * 1000) / 10 + '%'; };
  specs.forEach(function (spec) {
    var figure = document.querySelector('figure[data-chart="' + spec.id + '"]');
    var canvas = document.getElementById('chart-' + spec.id);
    try {
      var config = spec.config;
      if (spec.format === 'percent') {
        var y = (config.options.scales = config.options.scales || {}).y = config.options.scales.y || {};
        (y.ticks = y.ticks || {}).callback = pct;
        config.options.plugins = config.options.plugins || {};
        config.options.plugins.tooltip = { callbacks: { label: function (item) { return item.dataset.label + ': ' + pct(item.parsed.y); } } };
      }
      new Chart(canvas, config);
      figure.setAttribute('data-rendered', 'true');
      rendered++;
    } catch (error) {
      figure.setAttribute('data-error', String(error && error.message || error));
      failed.push(spec.id);
    }
  });
  document.body.setAttribute('data-charts-rendered', String(rendered));
  document.body.setAttribute('data-charts-failed', failed.join(' '));
})();
`;

/**
 * Renders the report page: one self-contained HTML document (charting library,
 * data and styles inline; no request leaves the page, and its
 * Content-Security-Policy forbids any). Run data only ever reaches the page
 * escaped: as text in the markup, or as JSON that scripts read.
 */
export function renderReportHtml({
  data,
  chartLibrary,
}: RenderReportHtmlOptions): string {
  const charts = reportCharts(data);
  const all = [
    ...charts.packs,
    ...charts.learning,
    ...charts.categories,
    ...charts.tags,
    ...charts.overlays,
    ...charts.rho,
  ];
  const title = `SEAL run report: ${data.run.runId ?? data.run.directory}`;
  const training = data.categories.training;
  // The bundle must not close its own script element; Chart.js never contains
  // this text, but a future version could.
  const library = chartLibrary
    .replace(/<\/(script)/gi, '<\\/$1')
    .replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n');
  const page = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:">
<title>${title}</title>
<style>${rawHtml(baseStyles)}</style>
</head>
<body>
<header class="top"><h1>${title}</h1>
<div class="meta">method ${data.run.method ?? '—'} · seed ${data.run.seed ?? '—'} · ${data.run.completedSteps} training step${data.run.completedSteps === 1 ? '' : 's'} · ${data.run.directory} · made ${data.generatedAt}</div></header>
<nav class="sections">${data.packs ? html`<a href="#packs">Pack positions</a>` : ''}<a href="#learning">Learning curves</a><a href="#categories">Categories</a><a href="#tags">Tags</a><a href="#overlays">Overlays</a><a href="#rho">ρ history</a><a href="#config">Config</a>${data.warnings.length > 0 ? html`<a href="#warnings">Warnings (${data.warnings.length})</a>` : ''}</nav>
<main>
<section id="summary">${summaryCards(data)}</section>
${packSection({ data, charts: charts.packs })}
<section id="learning"><h2>Learning curves</h2>
${charts.learning.length > 0 ? html`<div class="charts">${charts.learning.map((chart) => chartFigure(chart))}</div>` : data.packs ? html`<p class="note">Connect the Dots records its training steps and evaluations as pack runs: see <a href="#packs">Pack positions</a>.</p>` : html`<p class="note">No training step or evaluation has been recorded yet.</p>`}
${curriculumTable(data)}
${rollbackTable(data)}</section>
<section id="categories"><h2>Categories</h2>
${training.source === 'absent' ? html`<p class="note">Training success by category is not shown: ${training.reason}.</p>` : ''}
<div class="charts">${charts.categories.map((chart) => chartFigure(chart))}</div>
${categoryTable(data)}</section>
<section id="tags"><h2>SEAL failure tags</h2>
${charts.tags.length > 0 ? html`<div class="charts">${charts.tags.map((chart) => chartFigure(chart))}</div>` : html`<p class="note">No tags have been recorded yet.</p>`}
${tagTable(data)}</section>
<section id="overlays"><h2>Interface overlays</h2>
<div class="charts">${charts.overlays.map((chart) => chartFigure(chart, true))}</div>
${overlayTable(data)}</section>
<section id="rho"><h2>ρ history (A-Patch reweighting)</h2>
${charts.rho.length > 0 ? html`<div class="charts">${charts.rho.map((chart) => chartFigure(chart, true))}</div>` : html`<p class="note">No tag weights were recorded.</p>`}</section>
<section id="config"><h2>Config</h2><details><summary>config.json</summary><pre>${JSON.stringify(data.run.config, null, 2)}</pre></details>
${data.episodes.unavailable > 0 ? html`<p class="note">${data.episodes.unavailable} training episode${data.episodes.unavailable === 1 ? '' : 's'} could not be re-verified: ${data.episodes.unavailableReasons.join('; ')}</p>` : ''}</section>
${data.warnings.length > 0 ? html`<section id="warnings"><h2>Warnings</h2><ul class="warnings">${data.warnings.map((warning) => html`<li>${warning}</li>`)}</ul></section>` : ''}
</main>
<script type="application/json" id="seal-report-data">${rawHtml(jsonForScript(data))}</script>
<script type="application/json" id="seal-chart-specs">${rawHtml(jsonForScript(all))}</script>
<script>${rawHtml(library)}</script>
<script>${rawHtml(chartBootstrap)}</script>
</body>
</html>
`;
  return page.value;
}
