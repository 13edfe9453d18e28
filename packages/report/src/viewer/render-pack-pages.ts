import type { PackRunRecord, PackRunUpdate } from '@seal/spec';
import type { EpisodeFile } from '../episode-files';
import { html, type RawHtml } from '../html';
import type { PackRunFile } from '../pack-run-files';
import {
  describePackRunFile,
  fileAside,
  messageBlock,
  page,
  subtitle,
  type ViewerRunInfo,
} from './render-viewer-pages';

/** Styles of the pack pages (on top of the viewer's). */
const packStyles = html`<style>
.pack-task { background: var(--card); border: 1px solid var(--line); border-radius: 8px; margin: 14px 0; }
.pack-task > header { display: flex; gap: 12px; align-items: center; flex-wrap: wrap; padding: 8px 14px; border-bottom: 1px solid var(--line); background: #f9fbfd; border-radius: 8px 8px 0 0; }
.pack-task > header h3 { margin: 0; }
.pack-task .body { padding: 10px 14px; }
.hints-used { border-left: 4px solid #9467bd; background: #f7f3fb; padding: 6px 10px; margin: 4px 0 10px; }
.hint-update { margin: 0 0 0 28px; padding: 8px 14px; border-left: 4px solid #9467bd; background: #fbf9fd; border-radius: 0 8px 8px 0; }
.hint-update h3 { margin: 0 0 4px; font-size: 14px; }
.hint-update.failed { border-left-color: #c62828; background: #fdf6f6; }
.positions { font-family: ui-monospace, Menlo, Consolas, "DejaVu Sans Mono", monospace; letter-spacing: .1em; }
</style>`;

const sign = (value: number) =>
  `${value >= 0 ? '+' : '−'}${Math.abs(value).toFixed(3)}`;

/** ✓ and ✗ per position, in pack order (`✗✓✓✓`). */
function positionMarks(record: PackRunRecord): string {
  return record.solves.map((solve) => (solve.success ? '✓' : '✗')).join('');
}

/** The list of a pack-run file: one row per pack run. */
export function renderPackFilePage({
  run,
  files,
  packFiles,
  file,
  records,
  warnings,
}: {
  run: ViewerRunInfo;
  files: { file: EpisodeFile; episodes: number }[];
  packFiles: { file: PackRunFile; packRuns: number }[];
  file: PackRunFile;
  records: PackRunRecord[];
  warnings: string[];
}): string {
  const solves = records.flatMap((record) => record.solves);
  const solved = solves.filter((solve) => solve.success).length;
  const updates = records.flatMap((record) => record.updates);
  const body = html`${packStyles}<div class="layout">
${fileAside({ files, packFiles, current: `packs/${file.name}` })}
<div>
${run.hasReport ? html`<p><a href="/report.html">Open the run report</a> (success against pack position)</p>` : ''}
<h2>${describePackRunFile(file)} <span class="note mono">packs/${file.name}</span></h2>
<p class="note">${records.length} pack run${records.length === 1 ? '' : 's'} · ${solved}/${solves.length} tasks solved · ${updates.filter((update) => update.parsed).length}/${updates.length} hint blocks parsed</p>
<table class="pack-runs"><thead><tr><th class="num">#</th><th>pack run</th><th>strategy</th><th>hidden regularity</th><th>solved by position</th><th class="num">task rewards</th><th class="num">hints parsed</th></tr></thead>
<tbody>${records.map(
    (record, index) =>
      html`<tr><td class="num">${index}</td><td><a href="/pack/${encodeURIComponent(file.name)}/${index}">${record.packRunId}</a></td><td>${record.strategy}</td><td>${record.regularity}</td><td class="positions">${positionMarks(record)}</td><td class="num">${record.taskRewards.map((reward) => reward.toFixed(2)).join(' ')}</td><td class="num">${record.updates.filter((update) => update.parsed).length}/${record.updates.length}</td></tr>`,
  )}</tbody></table>
${warnings.length > 0 ? html`<ul class="warnings">${warnings.map((warning) => html`<li>${warning}</li>`)}</ul>` : ''}
</div></div>`;
  return page({
    title: 'SEAL trajectory viewer',
    subtitle: subtitle(run),
    body,
  });
}

/** The update-context episode between two tasks: what it wrote and how that parsed. */
function updateBlock({
  update,
  advantage,
}: {
  update: PackRunUpdate;
  advantage: number | undefined;
}): RawHtml {
  const outcome = update.parsed
    ? 'parsed'
    : update.failure === 'context-limit'
      ? 'not generated: the update prompt did not fit the model'
      : `unusable (${update.failure ?? 'unknown'}): parsed as no hint`;
  return html`<section class="hint-update${update.parsed ? '' : ' failed'}" data-update="${update.afterPosition}">
<h3>Hint update after task ${update.afterPosition + 1}</h3>
<p class="note">${outcome} · reward ${update.reward.toFixed(2)}${advantage === undefined ? '' : ` · advantage ${sign(advantage)}`} · ${update.responseTokens} tokens${update.trailingText ? ' · text after the end line was ignored' : ''}</p>
<div class="hints-used"><div class="role note">new context</div><pre>${update.hints}</pre></div>
${update.response.length > 0 ? html`<details><summary>Raw response (${update.response.length} characters)</summary><pre>${update.response}</pre></details>` : ''}
</section>`;
}

/**
 * One pack run: its tasks in order, each with the hints it was solved with,
 * the conversation and the outcome, and between them the update-context
 * episode that rewrote the hints.
 */
export function renderPackRunPage({
  run,
  file,
  index,
  count,
  record,
}: {
  run: ViewerRunInfo;
  file: PackRunFile;
  index: number;
  count: number;
  record: PackRunRecord;
}): string {
  const link = (target: number) =>
    `/pack/${encodeURIComponent(file.name)}/${target}`;
  const facts: [string, string][] = [
    ['pack run', record.packRunId],
    [
      'pack',
      `${record.packId} (seed ${record.packSeed}, taskset ${record.tasksetId})`,
    ],
    ['strategy', record.strategy],
    ['environment', record.environmentId],
    ['hidden regularity', `${record.regularity} (never shown to the model)`],
    [
      'mode',
      `${record.mode}${record.policyStep === null ? '' : ` · after ${record.policyStep} optimizer step${record.policyStep === 1 ? '' : 's'}`}`,
    ],
    [
      'task rewards',
      record.taskRewards.map((reward) => reward.toFixed(3)).join(', '),
    ],
    [
      'hint rewards',
      record.hintRewards.length === 0
        ? '—'
        : record.hintRewards.map((reward) => reward.toFixed(2)).join(', '),
    ],
  ];
  const tasks = record.solves.map((solve, position) => {
    const [system, ...rest] = solve.messages;
    const advantage = record.advantages?.solve[position];
    const update = record.updates.find(
      (candidate) => candidate.afterPosition === position,
    );
    const updateIndex =
      update === undefined ? -1 : record.updates.indexOf(update);
    return html`<section class="pack-task" data-position="${position}">
<header><h3>Task ${position + 1}</h3><span class="mono">${solve.taskId}</span>
<strong class="${solve.success ? 'ok' : 'bad'}">${solve.success ? 'solved' : 'not solved'}</strong>
<span>reward ${solve.reward.toFixed(3)}${advantage === undefined ? '' : ` · advantage ${sign(advantage)}`} · ${solve.stepsUsed}/${solve.maxSteps} steps${solve.endReason === 'context-limit' ? ' · ended at the context limit' : ''}</span></header>
<div class="body">
<div class="hints-used"><div class="role note">solved with</div><pre>${solve.hints}</pre></div>
${system ? html`<details><summary>System prompt with the hint section (${system.content.length} characters)</summary>${messageBlock(system)}</details>` : ''}
${rest.map((message) => messageBlock(message, message.role === 'assistant' ? 'assistant' : 'observation'))}
<p class="note">Feedback: ${solve.feedback}</p>
</div></section>
${update ? updateBlock({ update, advantage: updateIndex < 0 ? undefined : record.advantages?.update[updateIndex] }) : ''}`;
  });
  const body = html`${packStyles}<div class="breadcrumb"><a href="/">Run</a> › <a href="/?packs=${encodeURIComponent(file.name)}">${describePackRunFile(file)}</a> › pack run ${index} (of 0–${count - 1})</div>
<dl class="facts">${facts.map(([name, value]) => html`<dt>${name}</dt><dd>${value}</dd>`)}</dl>
${tasks}
<nav class="pager"><span>${index > 0 ? html`<a href="${link(index - 1)}">← previous pack run</a>` : ''}</span><span>${index < count - 1 ? html`<a href="${link(index + 1)}">next pack run →</a>` : ''}</span></nav>`;
  return page({
    title: `Pack run ${record.packRunId}`,
    subtitle: subtitle(run),
    body,
  });
}
