import type { CodArms } from './cod-arms';
import type { PackPositionCurve, ReportData, Series } from './report-data';

/**
 * A chart of the report, as data: a Chart.js configuration (JSON only; the
 * page's script adds the few callbacks, such as percent ticks, by `format`).
 */
export type ChartSpec = {
  id: string;
  title: string;
  /** A sentence under the title (what the chart shows, where the numbers come from). */
  caption?: string;
  /** `percent`: the value axis is a share in [0, 1]. */
  format?: 'percent' | 'number';
  /** Taller charts for many rows. */
  height?: number;
  config: Record<string, unknown>;
};

const tagColors: Record<string, string> = {
  pass: '#2e7d32',
  correct_abstention: '#26a69a',
  spurious_tool_call: '#ef6c00',
  empty_turn_model_response: '#8d6e63',
  instance_mismatch: '#6a1b9a',
  state_mismatch: '#c62828',
  response_mismatch: '#d81b60',
  checker_error: '#455a64',
  gt_error: '#212121',
  unknown: '#9e9e9e',
};

const categoryColors: Record<string, string> = {
  multi_turn_base: '#1f77b4',
  multi_turn_miss_param: '#2ca02c',
  multi_turn_miss_func: '#ff7f0e',
  multi_turn_long_context: '#9467bd',
};

const palette = [
  '#1f77b4',
  '#d62728',
  '#2ca02c',
  '#ff7f0e',
  '#9467bd',
  '#8c564b',
  '#e377c2',
  '#17becf',
  '#bcbd22',
  '#7f7f7f',
];

function colorFor(
  name: string,
  known: Record<string, string>,
  fallbackIndex: number,
): string {
  return known[name] ?? palette[fallbackIndex % palette.length]!;
}

/** Shortens BFCL category names for legends (`multi_turn_miss_func` → `miss_func`). */
export function categoryLabel(category: string): string {
  return category.replace(/^multi_turn_/, '');
}

function points(
  steps: readonly number[],
  series: Series,
): { x: number; y: number | null }[] {
  return steps.map((step, i) => ({ x: step, y: series[i] ?? null }));
}

function lineDataset(
  label: string,
  color: string,
  data: { x: number; y: number | null }[],
  extra: Record<string, unknown> = {},
) {
  return {
    label,
    data,
    borderColor: color,
    backgroundColor: color,
    borderWidth: 2,
    pointRadius: data.length > 60 ? 0 : 3,
    tension: 0,
    spanGaps: true,
    ...extra,
  };
}

function lineConfig({
  datasets,
  yTitle,
  xTitle = 'training step',
  percent = false,
  stepped = false,
}: {
  datasets: unknown[];
  yTitle: string;
  xTitle?: string;
  percent?: boolean;
  stepped?: boolean;
}): Record<string, unknown> {
  return {
    type: 'line',
    data: { datasets },
    options: {
      animation: false,
      maintainAspectRatio: false,
      interaction: { mode: 'nearest', axis: 'x', intersect: false },
      elements: stepped ? { line: { stepped: true } } : {},
      scales: {
        x: {
          type: 'linear',
          title: { display: true, text: xTitle },
          ticks: { precision: 0 },
        },
        y: {
          title: { display: true, text: yTitle },
          ...(percent ? { min: 0, max: 1 } : {}),
        },
      },
      plugins: { legend: { position: 'bottom', labels: { boxWidth: 12 } } },
    },
  };
}

function stackedBarConfig({
  labels,
  datasets,
  yTitle,
  xTitle,
  horizontal = false,
}: {
  labels: string[];
  datasets: unknown[];
  yTitle: string;
  xTitle: string;
  horizontal?: boolean;
}): Record<string, unknown> {
  const valueAxis = {
    stacked: true,
    title: { display: true, text: yTitle },
    beginAtZero: true,
  };
  const indexAxis = { stacked: true, title: { display: true, text: xTitle } };
  return {
    type: 'bar',
    data: { labels, datasets },
    options: {
      animation: false,
      maintainAspectRatio: false,
      ...(horizontal ? { indexAxis: 'y' } : {}),
      scales: horizontal
        ? { x: valueAxis, y: indexAxis }
        : { x: indexAxis, y: valueAxis },
      plugins: { legend: { position: 'bottom', labels: { boxWidth: 12 } } },
    },
  };
}

/** The learning-curve charts: training reward and success, evaluation accuracy, optimizer statistics. */
function learningCharts(data: ReportData): ChartSpec[] {
  const { training } = data;
  const charts: ChartSpec[] = [];
  if (training.steps.length > 0) {
    charts.push({
      id: 'training-reward',
      title: 'Training reward and success per step',
      caption:
        'Share of rollouts with a valid official verdict and mean trajectory reward, on the training interface (equal under a binary reward).',
      format: 'percent',
      config: lineConfig({
        yTitle: 'share of rollouts',
        percent: true,
        datasets: [
          // Drawn wide and under the reward line: under SEAL's binary reward the two coincide.
          lineDataset(
            'success rate',
            '#9ecae1',
            points(training.steps, training.successRate),
            { borderWidth: 6, pointRadius: 0, order: 2 },
          ),
          lineDataset(
            'reward mean',
            '#1f5fa8',
            points(training.steps, training.rewardMean),
            { order: 1 },
          ),
        ],
      }),
    });
  }
  if (data.evaluation.sets.length > 0) {
    charts.push({
      id: 'evaluation-accuracy',
      title: 'Evaluation accuracy per split',
      caption:
        'BFCL official accuracy on the untouched interface (empty overlay), per evaluation set.',
      format: 'percent',
      config: lineConfig({
        yTitle: 'accuracy',
        percent: true,
        datasets: data.evaluation.sets.map((set, i) =>
          lineDataset(
            set.name,
            palette[i % palette.length]!,
            points(set.steps, set.accuracy),
          ),
        ),
      }),
    });
  }
  const validation = data.curriculum?.validation;
  if (validation && validation.steps.length > 0) {
    // One line per stage, broken between stages: the stage timeline on the validation curve.
    const stages = [
      ...new Set(validation.stage.map((stage) => stage ?? 'unknown')),
    ];
    charts.push({
      id: 'curriculum-validation',
      title: 'Curriculum: validation accuracy by stage',
      caption: `Greedy accuracy on the validation split (${validation.tasks ?? '?'} training tasks set aside, never trained on) on the untouched interface, by the curriculum stage the weights were trained in (step 0: before training).`,
      format: 'percent',
      config: lineConfig({
        yTitle: 'validation accuracy',
        percent: true,
        datasets: stages.map((stage, i) =>
          lineDataset(
            stage,
            palette[i % palette.length]!,
            validation.steps.map((step, j) => ({
              x: step,
              y:
                (validation.stage[j] ?? 'unknown') === stage
                  ? (validation.accuracy[j] ?? null)
                  : null,
            })),
            { spanGaps: false },
          ),
        ),
      }),
    });
  }
  if (training.steps.length > 0) {
    charts.push({
      id: 'optimizer',
      title: 'Policy update',
      caption:
        'Mean PPO loss and gradient norm (left axis) and KL to the reference policy (right axis) per step.',
      format: 'number',
      config: {
        ...lineConfig({
          yTitle: 'loss, gradient norm',
          datasets: [
            lineDataset(
              'loss',
              '#1f77b4',
              points(training.steps, training.loss),
            ),
            lineDataset(
              'gradient norm',
              '#2ca02c',
              points(training.steps, training.gradNorm),
            ),
            lineDataset('KL', '#d62728', points(training.steps, training.kl), {
              yAxisID: 'y2',
              borderDash: [6, 4],
            }),
          ],
        }),
        options: {
          animation: false,
          maintainAspectRatio: false,
          interaction: { mode: 'nearest', axis: 'x', intersect: false },
          scales: {
            x: {
              type: 'linear',
              title: { display: true, text: 'training step' },
              ticks: { precision: 0 },
            },
            y: { title: { display: true, text: 'loss, gradient norm' } },
            y2: {
              position: 'right',
              title: { display: true, text: 'KL' },
              grid: { drawOnChartArea: false },
            },
          },
          plugins: { legend: { position: 'bottom', labels: { boxWidth: 12 } } },
        },
      },
    });
    charts.push({
      id: 'step-time',
      title: 'Wall time per step',
      caption:
        'Seconds per training step (rollouts, verification, update, checkpoint).',
      format: 'number',
      config: lineConfig({
        yTitle: 'seconds',
        datasets: [
          lineDataset(
            'step time',
            '#7f7f7f',
            points(training.steps, training.stepSeconds),
          ),
        ],
      }),
    });
  }
  return charts;
}

/** Per-category charts: evaluation accuracy by category per set, the latest evaluation, training success. */
function categoryCharts(data: ReportData): ChartSpec[] {
  const charts: ChartSpec[] = [];
  for (const set of data.evaluation.sets) {
    const categories = Object.keys(set.categories);
    if (categories.length === 0) continue;
    charts.push({
      id: `evaluation-categories-${set.name}`,
      title: `Evaluation accuracy by category: ${set.name}`,
      format: 'percent',
      config: lineConfig({
        yTitle: 'accuracy',
        percent: true,
        datasets: categories.map((category, i) =>
          lineDataset(
            categoryLabel(category),
            colorFor(category, categoryColors, i),
            points(set.steps, set.categories[category]!),
          ),
        ),
      }),
    });
  }
  const withCategories = data.evaluation.sets.filter(
    (set) => Object.keys(set.categories).length > 0,
  );
  if (withCategories.length > 0) {
    const categories = data.categories.names.filter((category) =>
      withCategories.some((set) => category in set.categories),
    );
    charts.push({
      id: 'evaluation-categories-latest',
      title: 'Latest evaluation by category',
      caption:
        'Accuracy per BFCL category at the last evaluation of each set (hollow: the first evaluation).',
      format: 'percent',
      config: {
        type: 'bar',
        data: {
          labels: categories.map(categoryLabel),
          datasets: withCategories.flatMap((set, i) => {
            const color = palette[i % palette.length]!;
            const at = (index: number) =>
              categories.map(
                (category) => set.categories[category]?.[index] ?? null,
              );
            const last = set.steps.length - 1;
            return [
              ...(last > 0
                ? [
                    {
                      label: `${set.name} @ step ${set.steps[0]}`,
                      data: at(0),
                      backgroundColor: 'rgba(0,0,0,0)',
                      borderColor: color,
                      borderWidth: 2,
                    },
                  ]
                : []),
              {
                label: `${set.name} @ step ${set.steps[last]}`,
                data: at(last),
                backgroundColor: color,
                borderColor: color,
                borderWidth: 2,
              },
            ];
          }),
        },
        options: {
          animation: false,
          maintainAspectRatio: false,
          scales: {
            y: { min: 0, max: 1, title: { display: true, text: 'accuracy' } },
          },
          plugins: { legend: { position: 'bottom', labels: { boxWidth: 12 } } },
        },
      },
    });
  }
  const training = data.categories.training;
  if (training.source === 'diagnosis') {
    charts.push({
      id: 'training-categories',
      title: 'Training success by category',
      caption:
        'Share of training rollouts solved per category and step (episodes re-verified for this report).',
      format: 'percent',
      config: lineConfig({
        yTitle: 'success rate',
        percent: true,
        datasets: Object.keys(training.successRate).map((category, i) =>
          lineDataset(
            categoryLabel(category),
            colorFor(category, categoryColors, i),
            points(training.steps, training.successRate[category]!),
          ),
        ),
      }),
    });
  }
  return charts;
}

/** Per-tag charts: SEAL tag counts per training step and per evaluation, totals, category × tag. */
function tagCharts(data: ReportData): ChartSpec[] {
  const charts: ChartSpec[] = [];
  const { tags } = data;
  // Tags that never occur in a chart would only lengthen its legend.
  const present = (datasets: { data: Series }[]) =>
    datasets.filter((dataset) =>
      dataset.data.some((count) => (count ?? 0) > 0),
    );
  const tagDataset = (tag: string, i: number, counts: Series) => ({
    label: tag,
    data: counts,
    backgroundColor: colorFor(tag, tagColors, i),
  });
  if (tags.training.steps.length > 0 && tags.names.length > 0) {
    charts.push({
      id: 'training-tags',
      title: 'SEAL failure tags per training step',
      caption:
        'One tag per ground-truth turn of every rollout (events.jsonl tagCounts).',
      format: 'number',
      config: stackedBarConfig({
        labels: tags.training.steps.map(String),
        xTitle: 'training step',
        yTitle: 'turns',
        datasets: present(
          tags.names.map((tag, i) =>
            tagDataset(tag, i, tags.training.counts[tag] ?? []),
          ),
        ),
      }),
    });
  }
  for (const set of data.evaluation.sets) {
    const names = Object.keys(set.tagCounts);
    if (names.length === 0) continue;
    charts.push({
      id: `evaluation-tags-${set.name}`,
      title: `SEAL failure tags per evaluation: ${set.name}`,
      format: 'number',
      config: stackedBarConfig({
        labels: set.steps.map(String),
        xTitle: 'training step of the evaluation',
        yTitle: 'turns',
        datasets: present(
          names.map((tag) =>
            tagDataset(tag, tags.names.indexOf(tag), set.tagCounts[tag]!),
          ),
        ),
      }),
    });
  }
  if (tags.totals) {
    const totals = tags.totals;
    const names = tags.names.filter((tag) => tag in totals);
    charts.push({
      id: 'tag-totals',
      title: 'Training tag totals',
      caption:
        'All-time occurrences per tag in the capability state (capability_state.json).',
      format: 'number',
      config: {
        type: 'bar',
        data: {
          labels: names,
          datasets: [
            {
              label: 'turns',
              data: names.map((tag) => totals[tag]!.count),
              backgroundColor: names.map((tag, i) =>
                colorFor(tag, tagColors, i),
              ),
            },
          ],
        },
        options: {
          animation: false,
          maintainAspectRatio: false,
          indexAxis: 'y',
          scales: {
            x: { beginAtZero: true, title: { display: true, text: 'turns' } },
          },
          plugins: { legend: { display: false } },
        },
      },
    });
  }
  if (tags.categoryTotals && Object.keys(tags.categoryTotals).length > 0) {
    const totals = tags.categoryTotals;
    const categories = data.categories.names.filter(
      (category) => category in totals,
    );
    charts.push({
      id: 'category-tags',
      title: 'Training tags by category',
      caption:
        'All-time occurrences per category and tag in the capability state.',
      format: 'number',
      config: stackedBarConfig({
        labels: categories.map(categoryLabel),
        xTitle: 'category',
        yTitle: 'turns',
        horizontal: true,
        datasets: present(
          tags.names.map((tag, i) =>
            tagDataset(
              tag,
              i,
              categories.map((category) => totals[category]?.[tag] ?? 0),
            ),
          ),
        ),
      }),
    });
  }
  return charts;
}

/** The overlay timeline: which overlay was in force at which step. */
function overlayCharts(data: ReportData): ChartSpec[] {
  const { overlays, segments } = data.overlays;
  if (segments.length === 0) return [];
  const label = (index: number) =>
    `#${index} ${overlays[index - 1]!.hash.slice(0, 8)}`;
  return [
    {
      id: 'overlay-timeline',
      title: 'Interface overlay in force per training step',
      caption:
        'Each bar spans the steps an overlay (by content hash) shaped the training interface; evaluation always uses the empty overlay.',
      format: 'number',
      height: Math.max(160, 70 + 34 * overlays.length),
      config: {
        type: 'bar',
        data: {
          labels: overlays.map((overlay) => label(overlay.index)),
          datasets: overlays.map((overlay, i) => ({
            label: label(overlay.index),
            data: segments
              .filter((segment) => segment.overlay === overlay.index)
              .map((segment) => ({
                y: label(overlay.index),
                x: [segment.fromStep - 0.5, segment.toStep + 0.5],
              })),
            backgroundColor: palette[i % palette.length],
            borderSkipped: false,
            barPercentage: 0.9,
            categoryPercentage: 0.9,
          })),
        },
        options: {
          animation: false,
          maintainAspectRatio: false,
          indexAxis: 'y',
          grouped: false,
          scales: {
            x: {
              type: 'linear',
              min: data.overlays.segments[0]!.fromStep - 0.5,
              max: data.overlays.segments.at(-1)!.toStep + 0.5,
              title: { display: true, text: 'training step' },
              ticks: { precision: 0 },
            },
            y: { title: { display: true, text: 'overlay' } },
          },
          plugins: { legend: { display: false } },
        },
      },
    },
  ];
}

/** The ρ history: A-Patch tag weights per step. */
function rhoCharts(data: ReportData): ChartSpec[] {
  const tags = Object.keys(data.rho.weights);
  if (tags.length === 0) return [];
  return [
    {
      id: 'rho',
      title: 'A-Patch tag weights ρ per step',
      caption:
        'The weight each SEAL tag contributes to a trajectory’s advantage scale (closed-loop EMA update).',
      format: 'number',
      config: lineConfig({
        yTitle: 'ρ',
        stepped: true,
        datasets: tags.map((tag, i) =>
          lineDataset(
            tag,
            colorFor(tag, tagColors, i),
            points(data.rho.steps, data.rho.weights[tag]!),
          ),
        ),
      }),
    },
  ];
}

/** How an evaluation is named in legends (`before training`, `after step 12`). */
export function evaluationLabel(step: number): string {
  return step === 0 ? 'before training' : `after step ${step}`;
}

/**
 * Connect the Dots: reward and success against the position in the pack, one
 * line per evaluation (a curve that rises with the position is the CoD
 * signature, spec B7), and the training reward at each position per step.
 */
function packCharts(data: ReportData): ChartSpec[] {
  const packs = data.packs;
  if (!packs) return [];
  const charts: ChartSpec[] = [];
  // Positions are shown from 1, as in the paper (pos_k).
  const curve = (
    positions: PackPositionCurve['positions'],
    key: 'successRate' | 'rewardMean',
  ) =>
    positions.map((entry) => ({
      x: entry.position + 1,
      y: entry.runs === 0 ? null : entry[key],
    }));
  if (packs.evaluations.length > 0) {
    for (const [key, id, title, yTitle] of [
      [
        'successRate',
        'pack-position-success',
        'Success against pack position, per evaluation',
        'success rate',
      ],
      [
        'rewardMean',
        'pack-position-reward',
        'Reward against pack position, per evaluation',
        'task reward',
      ],
    ] as const) {
      charts.push({
        id,
        title,
        caption: `Each evaluation solves packs of related tasks in order, rewriting its hints between them (${packs.evaluations[0]!.packRuns} pack runs of ${packs.evaluations[0]!.positions.length}). A curve that rises with the position is the Connect the Dots signature: later tasks profit from what the agent wrote down.`,
        format: key === 'successRate' ? 'percent' : 'number',
        config: lineConfig({
          xTitle: 'position in the pack',
          yTitle,
          // Task rewards lie in [0, 1] too: the same bounds, numeric ticks.
          percent: true,
          datasets: packs.evaluations.map((evaluation, i) =>
            lineDataset(
              `${evaluationLabel(evaluation.step)}${evaluation.strategies.some((strategy) => strategy !== 'cod') ? ` (${evaluation.strategies.join(', ')})` : ''}`,
              palette[i % palette.length]!,
              curve(evaluation.positions, key),
            ),
          ),
        }),
      });
    }
  }
  if (packs.arms !== null) charts.push(...armCharts(packs.arms));
  if (packs.training.length > 0) {
    const positions = Math.max(
      ...packs.training.map((step) => step.positions.length),
    );
    charts.push({
      id: 'pack-training-reward',
      title: 'Training reward at each pack position per step',
      caption:
        'Mean task reward of the training pack runs (G runs per pack) at each position, per step: the paper’s reward_pos_k.',
      format: 'number',
      config: lineConfig({
        yTitle: 'task reward',
        percent: true,
        datasets: Array.from({ length: positions }, (_, position) =>
          lineDataset(
            `position ${position + 1}`,
            palette[position % palette.length]!,
            packs.training.map((step) => {
              const entry = step.positions[position];
              return {
                x: step.step,
                y:
                  entry === undefined || entry.runs === 0
                    ? null
                    : entry.rewardMean,
              };
            }),
          ),
        ),
      }),
    });
  }
  return charts;
}

const armColors: Record<string, string> = {
  before: '#7f7f7f',
  cod: '#d62728',
  'one-by-one': '#1f77b4',
};

const armLabels: Record<string, string> = {
  before: 'before training',
  cod: 'after CoD',
  'one-by-one': 'after one-by-one GRPO',
};

/** `#rrggbb` at opacity `alpha` (the interval bands). */
function translucent(color: string, alpha: number): string {
  const value = Number.parseInt(color.slice(1), 16);
  return `rgba(${(value >> 16) & 255}, ${(value >> 8) & 255}, ${value & 255}, ${alpha})`;
}

const signed = (value: number) =>
  `${value >= 0 ? '+' : '−'}${Math.abs(100 * value).toFixed(1)}`;

/**
 * Connect the Dots, a comparison of arms (`cod-arms.json`): success against
 * the pack position for the warm start, after CoD and after one-by-one
 * GRPO, each a line with its 95% interval as a band, for the CoD loop and
 * (when measured) the Ralph loop.
 */
function armCharts(arms: CodArms): ChartSpec[] {
  const loops = [
    ['cod', 'CoD loop', arms.cod] as const,
    ...(arms.ralph === undefined
      ? []
      : [['ralph', 'Ralph loop', arms.ralph] as const]),
  ];
  return loops.map(([id, name, loop]) => {
    const datasets = loop.arms.flatMap((arm, i) => {
      const color = armColors[arm.model] ?? palette[i % palette.length]!;
      const label = armLabels[arm.model] ?? arm.model;
      const at = (key: 'mean' | 'low' | 'high') =>
        arm.curve.map((entry) => ({ x: entry.position, y: entry[key] }));
      return [
        lineDataset(label, color, at('mean')),
        // The band: the low edge, then the high edge filled down to it.
        lineDataset(`${label}, 95% interval`, color, at('low'), {
          borderWidth: 0,
          pointRadius: 0,
          backgroundColor: translucent(color, 0.15),
        }),
        lineDataset(`${label}, 95% interval (high)`, color, at('high'), {
          borderWidth: 0,
          pointRadius: 0,
          backgroundColor: translucent(color, 0.15),
          fill: '-1',
        }),
      ];
    });
    const deltas = loop.arms
      .map(
        (arm) =>
          `${armLabels[arm.model] ?? arm.model} ${signed(arm.delta.mean)} [${signed(arm.delta.low)}, ${signed(arm.delta.high)}]`,
      )
      .join('; ');
    return {
      id: `pack-position-arms-${id}`,
      title: `Success against pack position, three arms (${name})`,
      caption: `${name}: ${loop.arms[0]!.packs} packs, rows of seeds ${arms.seeds.join(', ')} (the warm start: one evaluation); bands are ${arms.intervals}. Δ(position 4 − position 1), points: ${deltas}. ${arms.command} (${arms.date.slice(0, 10)}).`,
      format: 'percent',
      config: lineConfig({
        xTitle: 'position in the pack',
        yTitle: 'success rate',
        percent: true,
        datasets,
      }),
    };
  });
}

/** Every chart of the report, by section. */
export function reportCharts(
  data: ReportData,
): Record<
  'packs' | 'learning' | 'categories' | 'tags' | 'overlays' | 'rho',
  ChartSpec[]
> {
  return {
    packs: packCharts(data),
    learning: learningCharts(data),
    categories: categoryCharts(data),
    tags: tagCharts(data),
    overlays: overlayCharts(data),
    rho: rhoCharts(data),
  };
}
