import {
  isEmptyOverlay,
  type ChatMessage,
  type EnvironmentEpisodeRecord,
  type InterfaceOverlay,
  type TurnDiagnosis,
} from '@seal/spec';
import { categoryLabel } from '../chart-specs';
import type { EpisodeAssessment } from '../episode-assessment';
import type { EpisodeFile } from '../episode-files';
import type { PackRunFile } from '../pack-run-files';
import { html, rawHtml, type RawHtml } from '../html';
import {
  baseStyles,
  renderOverlayContents,
  stepRanges,
} from '../render-report-html';
import { conversationTurns, type ConversationStep } from './conversation-turns';

const viewerStyles = `
.layout { display: grid; grid-template-columns: 220px minmax(0, 1fr); gap: 20px; }
main a { color: var(--accent); }
table.episodes td:nth-child(2) { word-break: break-all; }
aside.files { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 8px 0; align-self: start; position: sticky; top: 12px; max-height: calc(100vh - 24px); overflow: auto; }
aside.files h3 { margin: 4px 14px 6px; }
aside.files a { display: flex; justify-content: space-between; padding: 3px 14px; color: var(--ink); text-decoration: none; }
aside.files a:hover { background: #eef2f6; }
aside.files a.current { background: #dbe7f5; font-weight: 600; }
aside.files .count { color: var(--muted); font-variant-numeric: tabular-nums; }
.filters { margin: 8px 0 12px; display: flex; gap: 8px; flex-wrap: wrap; align-items: center; }
.filters a { padding: 2px 10px; border: 1px solid var(--line); border-radius: 12px; background: #fff; color: var(--accent); text-decoration: none; }
.filters a.current { background: var(--accent); color: #fff; border-color: var(--accent); }
table.episodes a { color: var(--accent); }
.breadcrumb { margin-bottom: 10px; } .breadcrumb a { color: var(--accent); }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 3px 14px; background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 10px 14px; margin: 0; }
dl.facts dt { color: var(--muted); } dl.facts dd { margin: 0; word-break: break-all; }
.verdict { margin: 12px 0; padding: 10px 14px; border-radius: 8px; border: 1px solid var(--line); background: var(--card); }
.verdict.success { border-left: 5px solid #2e7d32; } .verdict.failure { border-left: 5px solid #c62828; } .verdict.unknown { border-left: 5px solid #9e9e9e; }
.turn { background: var(--card); border: 1px solid var(--line); border-radius: 8px; margin: 14px 0; }
.turn > header { display: flex; gap: 10px; align-items: center; flex-wrap: wrap; padding: 8px 14px; border-bottom: 1px solid var(--line); background: #f9fbfd; border-radius: 8px 8px 0 0; }
.turn > header h3 { margin: 0; }
.turn .body { padding: 10px 14px; }
.message { border-left: 3px solid #b0bec5; padding: 4px 10px; margin: 8px 0; background: #fbfcfd; }
.message .role { font-size: 11.5px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); font-weight: 600; }
.message.user { border-color: #1f77b4; } .message.assistant { border-color: #ff7f0e; background: #fffaf3; }
.message.observation { border-color: #2ca02c; background: #f6fbf6; } .message.system { border-color: #607d8b; }
table.calls { margin: 6px 0; } table.calls td { font-family: ui-monospace, Menlo, Consolas, "DejaVu Sans Mono", monospace; font-size: 12.5px; }
.status-ok { color: #2e7d32; } .status-raised, .status-rejected { color: #c62828; }
.problem { color: #b00020; }
.truth { margin-top: 8px; }
section.overlay { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 10px 14px; margin-top: 18px; }
section.overlay h2 { margin-top: 0; }
nav.pager { display: flex; justify-content: space-between; margin: 16px 0; } nav.pager a { color: var(--accent); }
`;

/**
 * Wraps a viewer page in the shared document shell.
 * @internal
 */
export function page({
  title,
  subtitle,
  body,
}: {
  title: string;
  subtitle?: string;
  body: RawHtml;
}): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style>${rawHtml(baseStyles + viewerStyles)}</style>
</head>
<body>
<header class="top"><h1>${title}</h1>${subtitle ? html`<div class="meta">${subtitle}</div>` : ''}</header>
<main>${body}</main>
</body>
</html>
`.value;
}

/** The run-level facts every viewer page shows in its header. */
export type ViewerRunInfo = {
  directory: string;
  runId?: string | null;
  method?: string | null;
  hasReport: boolean;
};

/** How an episode file is named in lists (`step 3 · training`, `step 4 · eval test-id`). */
export function describeEpisodeFile(file: EpisodeFile): string {
  return file.kind === 'train'
    ? `step ${file.step} · training`
    : `step ${file.step} · eval ${file.set}`;
}

/** @internal */
export function subtitle(run: ViewerRunInfo): string {
  return [
    run.runId ?? undefined,
    run.method ? `method ${run.method}` : undefined,
    run.directory,
  ]
    .filter(Boolean)
    .join(' · ');
}

const percent = (value: number) => `${(value * 100).toFixed(1)}%`;

function tagBadge(tag: string, fine = false): RawHtml {
  return html`<span class="tag ${fine ? 'fine' : tag}">${fine ? `+${tag}` : tag}</span>`;
}

function outcomeCell(assessment: EpisodeAssessment): RawHtml {
  if (assessment.type === 'unavailable')
    return html`<td class="num">—</td><td class="num">—</td><td><span class="note">unavailable</span></td>`;
  const { diagnosis } = assessment;
  return html`<td class="num">${diagnosis.reward.toFixed(2)}</td><td class="num ${diagnosis.success ? 'ok' : 'bad'}">${diagnosis.success ? '✓' : '✗'}</td><td>${tagBadge(diagnosis.dominantTag)}</td>`;
}

/** How a pack-run file is named in lists (`step 3 · training packs`, `step 0 · eval packs`). */
export function describePackRunFile(file: PackRunFile): string {
  return file.kind === 'train'
    ? `step ${file.step} · training packs`
    : `step ${file.step} · eval packs${file.step === 0 ? ' (before training)' : ''}`;
}

/**
 * The left column: episode files, then Connect the Dots pack-run files.
 * @internal
 */
export function fileAside({
  files,
  packFiles,
  current,
}: {
  files: { file: EpisodeFile; episodes: number }[];
  packFiles: { file: PackRunFile; packRuns: number }[];
  current?: string;
}): RawHtml {
  const episodeLinks = files.map(
    ({ file: entry, episodes }) =>
      html`<a href="/?file=${encodeURIComponent(entry.name)}" class="${entry.name === current ? 'current' : ''}"><span>${describeEpisodeFile(entry)}</span><span class="count">${episodes}</span></a>`,
  );
  const packLinks = packFiles.map(
    ({ file: entry, packRuns }) =>
      html`<a href="/?packs=${encodeURIComponent(entry.name)}" class="${`packs/${entry.name}` === current ? 'current' : ''}"><span>${describePackRunFile(entry)}</span><span class="count">${packRuns}</span></a>`,
  );
  return html`<aside class="files">${files.length > 0 || packFiles.length === 0 ? html`<h3>Episode files</h3>${files.length === 0 ? html`<p class="note" style="padding: 0 14px">No episodes recorded.</p>` : episodeLinks}` : ''}
${packFiles.length > 0 ? html`<h3>Pack runs</h3>${packLinks}` : ''}</aside>`;
}

/** The index page: episode files on the left, the chosen file's episodes on the right. */
export function renderIndexPage({
  run,
  files,
  file,
  records,
  assessments,
  category,
  warnings,
  packFiles = [],
}: {
  run: ViewerRunInfo;
  files: { file: EpisodeFile; episodes: number }[];
  /** Connect the Dots pack-run files, listed under the episode files. */
  packFiles?: { file: PackRunFile; packRuns: number }[];
  file?: EpisodeFile;
  records: EnvironmentEpisodeRecord[];
  assessments: EpisodeAssessment[];
  category?: string;
  warnings: string[];
}): string {
  const categories = [
    ...new Set(records.map((record) => record.category)),
  ].sort();
  const rows = records
    .map((record, index) => ({
      record,
      index,
      assessment: assessments[index]!,
    }))
    .filter(
      ({ record }) => category === undefined || record.category === category,
    );
  const diagnosed = rows.filter(
    ({ assessment }) => assessment.type === 'diagnosed',
  );
  const solved = diagnosed.filter(
    ({ assessment }) =>
      assessment.type === 'diagnosed' && assessment.diagnosis.success,
  ).length;
  const base = file ? `/?file=${encodeURIComponent(file.name)}` : '/';
  const body = html`<div class="layout">
${fileAside({ files, packFiles, ...(file ? { current: file.name } : {}) })}
<div>
${run.hasReport ? html`<p><a href="/report.html">Open the run report</a></p>` : ''}
${
  file
    ? html`<h2>${describeEpisodeFile(file)} <span class="note mono">${file.name}</span></h2>
<p class="note">${rows.length} episode${rows.length === 1 ? '' : 's'}${diagnosed.length > 0 ? ` · ${solved}/${diagnosed.length} solved (${percent(solved / diagnosed.length)})` : ''}</p>
<div class="filters">Category: <a href="${base}" class="${category === undefined ? 'current' : ''}">all</a>${categories.map(
        (name) =>
          html`<a href="${base}&amp;category=${encodeURIComponent(name)}" class="${name === category ? 'current' : ''}">${categoryLabel(name)}</a>`,
      )}</div>
<table class="episodes"><thead><tr><th class="num">#</th><th>task</th><th>category</th><th class="num">reward</th><th class="num">solved</th><th>dominant tag</th><th class="num">turns</th><th class="num">model calls</th><th>end</th></tr></thead>
<tbody>${rows.map(
        ({ record, index, assessment }) =>
          html`<tr><td class="num">${index}</td><td><a href="/episode/${encodeURIComponent(file.name)}/${index}">${record.taskId}</a></td><td>${categoryLabel(record.category)}</td>${outcomeCell(assessment)}<td class="num">${record.turns.length}</td><td class="num">${record.modelCalls}</td><td>${record.endReason}</td></tr>`,
      )}</tbody></table>`
    : html`<p class="note">Choose an episode file.</p>`
}
${warnings.length > 0 ? html`<ul class="warnings">${warnings.map((warning) => html`<li>${warning}</li>`)}</ul>` : ''}
</div></div>`;
  return page({
    title: 'SEAL trajectory viewer',
    subtitle: subtitle(run),
    body,
  });
}

/**
 * One chat message as text (never markup).
 * @internal
 */
export function messageBlock(
  message: ChatMessage,
  kind: string = message.role,
): RawHtml {
  return html`<div class="message ${kind}"><div class="role">${kind === 'observation' ? `environment (${message.role})` : message.role}${message.name ? ` · ${message.name}` : ''}</div><pre>${message.content}</pre>${
    message.toolCalls && message.toolCalls.length > 0
      ? html`<pre>${message.toolCalls.map((call) => call.callText).join('\n')}</pre>`
      : ''
  }</div>`;
}

function stepBlock(
  step: ConversationStep,
  diagnosis: TurnDiagnosis | undefined,
): RawHtml {
  const errors =
    diagnosis?.toolErrors.filter((error) => error.step === step.step) ?? [];
  return html`<div class="step" data-step="${step.step}">
${step.message ? messageBlock(step.message) : html`<div class="message assistant"><div class="role">assistant</div><pre>${step.record.text}</pre></div>`}
${step.parseError ? html`<p class="problem">Parse error: ${step.parseError}</p>` : ''}
${
  step.calls.length > 0
    ? html`<table class="calls"><thead><tr><th>call</th><th>result</th><th>status</th></tr></thead><tbody>${step.calls.map(
        (call) =>
          call.type === 'executed'
            ? html`<tr class="call"><td>${call.callText}</td><td><pre>${call.result}</pre></td><td class="status-${call.error && call.status === 'ok' ? 'raised' : call.status}">${call.error && call.status === 'ok' ? 'error result' : call.status}${call.error ? html`<br><span class="problem">${call.error}</span>` : ''}</td></tr>`
            : html`<tr class="call"><td>${call.name ?? '(unparsed call)'}</td><td><pre>${call.message}</pre></td><td class="status-rejected">refused: ${call.reason}</td></tr>`,
      )}</tbody></table>`
    : ''
}
${errors.length > 0 ? html`<p class="note">Tool errors: ${errors.map((error) => `${error.name}${error.argumentError ? ' (argument)' : ''}${error.recovered ? ' (recovered)' : ''}`).join(', ')}</p>` : ''}
${step.observations.length > 0 ? html`<details><summary>What the model saw back (${step.observations.length} message${step.observations.length === 1 ? '' : 's'})</summary>${step.observations.map((message) => messageBlock(message, 'observation'))}</details>` : ''}
</div>`;
}

function verdictBlock(assessment: EpisodeAssessment): RawHtml {
  if (assessment.type === 'unavailable') {
    return html`<div class="verdict unknown" data-verdict="unavailable"><strong>Verdict not available.</strong> ${assessment.reason}</div>`;
  }
  const { diagnosis } = assessment;
  const trajectory = diagnosis.trajectory as Record<string, unknown>;
  return html`<div class="verdict ${diagnosis.success ? 'success' : 'failure'}" data-verdict="${diagnosis.success ? 'success' : 'failure'}">
<strong class="${diagnosis.success ? 'ok' : 'bad'}">${diagnosis.success ? 'Solved' : 'Not solved'}</strong> · reward ${diagnosis.reward.toFixed(2)} · dominant tag ${tagBadge(diagnosis.dominantTag)} · verifier <span class="mono">${diagnosis.verifierId}</span>
${diagnosis.warnings.length > 0 ? html`<ul class="warnings">${diagnosis.warnings.map((warning) => html`<li>${warning.type === 'other' ? warning.message : JSON.stringify(warning)}</li>`)}</ul>` : ''}
<details><summary>Trajectory diagnostics</summary><pre>${JSON.stringify(trajectory, null, 2)}</pre></details>
</div>`;
}

function overlayBlock({
  record,
  overlay,
  overlaySteps,
}: {
  record: EnvironmentEpisodeRecord;
  overlay?: InterfaceOverlay;
  overlaySteps: number[];
}): RawHtml {
  if (record.mode === 'eval') {
    return html`<p>Evaluation episode: the untouched interface (empty overlay <span class="mono">${record.overlayHash}</span>).</p>`;
  }
  if (!overlay)
    return html`<p class="note">Overlay <span class="mono">${record.overlayHash}</span> is not in overlays.jsonl.</p>`;
  if (isEmptyOverlay(overlay))
    return html`<p>The empty overlay <span class="mono">${record.overlayHash}</span>: this method does not adapt the interface.</p>`;
  return html`<p>Overlay <span class="mono">${record.overlayHash}</span>, in force at step${overlaySteps.length === 1 ? '' : 's'} ${stepRanges(overlaySteps)}.</p>
${renderOverlayContents({
  systemNotes: overlay.systemNotes,
  toolPatches: Object.entries(overlay.toolPatches).map(([tool, patch]) => ({
    tool,
    ...(patch.description === undefined
      ? {}
      : { description: patch.description }),
    parameters: patch.parameters,
    hide: patch.hide,
  })),
  parseErrorHints: overlay.parseErrorHints,
  errorHints: overlay.errorHints,
  errorRewrites: overlay.errorRewrites,
  categories: overlay.categories,
})}
<details><summary>Raw overlay JSON</summary><pre>${JSON.stringify(overlay, null, 2)}</pre></details>`;
}

/** One episode: facts, verdict, each turn with its tag, messages, calls and results, and the overlay in force. */
export function renderEpisodePage({
  run,
  file,
  index,
  count,
  record,
  assessment,
  overlay,
  overlaySteps,
}: {
  run: ViewerRunInfo;
  file: EpisodeFile;
  index: number;
  count: number;
  record: EnvironmentEpisodeRecord;
  assessment: EpisodeAssessment;
  overlay?: InterfaceOverlay;
  overlaySteps: number[];
}): string {
  const conversation = conversationTurns(record);
  const diagnosis =
    assessment.type === 'diagnosed' ? assessment.diagnosis : undefined;
  const truth =
    assessment.type === 'diagnosed' ? assessment.groundTruth : undefined;
  const turnNumbers = [
    ...new Set([
      ...conversation.turns.map((turn) => turn.turn),
      ...(diagnosis?.turns.map((turn) => turn.turn) ?? []),
    ]),
  ].sort((a, b) => a - b);
  const link = (target: number) =>
    `/episode/${encodeURIComponent(file.name)}/${target}`;
  const turns = turnNumbers.map((number) => {
    const turn = conversation.turns.find(
      (candidate) => candidate.turn === number,
    );
    const tags = diagnosis?.turns.find(
      (candidate) => candidate.turn === number,
    );
    const expected = truth?.[number];
    return html`<section class="turn" data-turn="${number}">
<header><h3>Turn ${number}</h3>${tags ? html`${tagBadge(tags.tag)} ${tags.fineTags.map((tag) => tagBadge(tag, true))}${tags.reached ? '' : html` <span class="note">not reached</span>`}` : html`<span class="note">no tag</span>`}
${turn && turn.revealedTools.length > 0 ? html`<span class="note">revealed: ${turn.revealedTools.join(', ')}</span>` : ''}</header>
<div class="body">
${turn ? turn.question.map((message) => messageBlock(message)) : html`<p class="note">The episode ended before this turn.</p>`}
${turn ? turn.steps.map((step) => stepBlock(step, tags)) : ''}
${expected ? html`<details class="truth"><summary>Ground truth (${expected.length} call${expected.length === 1 ? '' : 's'})</summary><pre>${expected.length === 0 ? '(no call: the model should ask or decline)' : expected.join('\n')}</pre></details>` : ''}
</div></section>`;
  });
  const facts: [string, string][] = [
    ['episode', record.episodeId],
    ['task', record.taskId],
    ['category', record.category],
    ['mode', record.mode],
    ['protocol', record.protocol],
    [
      'end',
      `${record.endReason} after ${record.modelCalls} model call${record.modelCalls === 1 ? '' : 's'}`,
    ],
    ...(record.stamps?.policyStep === undefined
      ? []
      : [
          ['policy step', String(record.stamps.policyStep)] as [string, string],
        ]),
    ['overlay', record.overlayHash],
  ];
  const body = html`<div class="breadcrumb"><a href="/">Run</a> › <a href="/?file=${encodeURIComponent(file.name)}">${describeEpisodeFile(file)}</a> › episode ${index} (of 0–${count - 1})</div>
<dl class="facts">${facts.map(([name, value]) => html`<dt>${name}</dt><dd>${value}</dd>`)}</dl>
${verdictBlock(assessment)}
${conversation.system ? html`<details><summary>System prompt (${conversation.system.content.length} characters)</summary>${messageBlock(conversation.system)}</details>` : ''}
${turns}
${conversation.trailing.length > 0 ? html`<h3>Messages after the last step</h3>${conversation.trailing.map((message) => messageBlock(message))}` : ''}
<section class="overlay"><h2>Interface overlay in force</h2>${overlayBlock({ record, ...(overlay ? { overlay } : {}), overlaySteps })}</section>
<nav class="pager"><span>${index > 0 ? html`<a href="${link(index - 1)}">← previous episode</a>` : ''}</span><span>${index < count - 1 ? html`<a href="${link(index + 1)}">next episode →</a>` : ''}</span></nav>`;
  return page({
    title: `Episode ${record.taskId}`,
    subtitle: subtitle(run),
    body,
  });
}

/** A plain error page (404, 405, 500) with a way back. */
export function renderErrorPage({
  run,
  status,
  message,
}: {
  run: ViewerRunInfo;
  status: number;
  message: string;
}): string {
  return page({
    title: status === 404 ? 'Not found' : `Error ${status}`,
    subtitle: subtitle(run),
    body: html`<p class="problem" data-status="${status}">${message}</p><p><a href="/">Back to the episode list</a></p>`,
  });
}
