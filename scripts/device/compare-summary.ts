/**
 * `compare-summary --logs DIR`: the table of `run-gpu-bench.sh compare`
 * (decision engine-013) from the logs of its stages: decode tokens/s at batch
 * 1, 8 and 64 with the GroupQueryAttention decode (`bench-gqa.log`), the
 * Where decode (`bench-where.log`), HF `generate` in fp32 and bf16
 * (`torch.json`) and, when it ran, the CUDA EP (`cuda.log`); training
 * tokens/s beside PyTorch eager. A missing log leaves its columns at –.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

type BenchRow = {
  train: number;
  prefill: number;
  decode: Record<string, number>;
};

type TorchResult = {
  config: string;
  precision: string;
  train_tokens_per_second: number;
  decode_tokens_per_second?: Record<string, number>;
  decode_tokens_per_second_b64?: number;
};

const batches = ['1', '8', '64'];

/** The rows of a `bench engine` table in a log, by config (the last table wins). */
export function parseBenchTable(text: string): Map<string, BenchRow> {
  const rows = new Map<string, BenchRow>();
  for (const line of text.split('\n')) {
    if (!/^\| \d+m \|/.test(line)) continue;
    const cells = line.split('|').map((cell) => cell.trim());
    const number = (cell: string | undefined) =>
      cell === undefined || cell === '–' ? Number.NaN : Number(cell);
    rows.set(cells[1]!, {
      train: number(cells[3]),
      prefill: number(cells[8]),
      decode: {
        '1': number(cells[9]),
        '8': number(cells[10]),
        '64': number(cells[11]),
      },
    });
  }
  return rows;
}

function read(path: string): string {
  return existsSync(path) ? readFileSync(path, 'utf8') : '';
}

function format(value: number | undefined, digits = 0): string {
  return value === undefined || !Number.isFinite(value)
    ? '–'
    : value.toFixed(digits);
}

function ratio(a: number | undefined, b: number | undefined): string {
  return a === undefined || b === undefined || !(b > 0) || !Number.isFinite(a)
    ? '–'
    : `${(a / b).toFixed(2)}×`;
}

function option(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  return index < 0 ? undefined : process.argv[index + 1];
}

const logs = option('logs') ?? '.';
const gqa = parseBenchTable(read(join(logs, 'bench-gqa.log')));
const where = parseBenchTable(read(join(logs, 'bench-where.log')));
const cuda = parseBenchTable(read(join(logs, 'cuda.log')));
let torch: TorchResult[] = [];
try {
  torch = JSON.parse(read(join(logs, 'torch.json')) || '[]') as TorchResult[];
} catch (error) {
  console.log(`torch.json unreadable: ${String(error)}`);
}
const hf = (config: string, precision: string, batch: string) => {
  const result = torch.find(
    (t) => t.config === config && t.precision === precision,
  );
  return (
    result?.decode_tokens_per_second?.[batch] ??
    (batch === '64' ? result?.decode_tokens_per_second_b64 : undefined)
  );
};
const hfTrain = (config: string, precision: string) =>
  torch.find((t) => t.config === config && t.precision === precision)
    ?.train_tokens_per_second;
const configs = [
  ...new Set([
    ...gqa.keys(),
    ...where.keys(),
    ...cuda.keys(),
    ...torch.map((t) => t.config),
  ]),
];

console.log('\n## decode tokens/s (greedy; 32-token prompts)\n');
console.log(
  '| config | batch | ORT gqa | ORT where | gqa/where | HF fp32 | HF bf16 | gqa/HF fp32 | ORT cuda | cuda/HF fp32 |',
);
console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const config of configs) {
  for (const batch of batches) {
    const g = gqa.get(config)?.decode[batch];
    const w = where.get(config)?.decode[batch];
    const c = cuda.get(config)?.decode[batch];
    const fp32 = hf(config, 'fp32', batch);
    console.log(
      `| ${config} | ${batch} | ${format(g)} | ${format(w)} | ${ratio(g, w)} | ${format(fp32)} | ${format(hf(config, 'bf16', batch))} | ${ratio(g, fp32)} | ${format(c)} | ${ratio(c, fp32)} |`,
    );
  }
}
console.log('\n## training tokens/s (8 × 256, AdamW)\n');
console.log(
  '| config | ORT (gqa run) | ORT cuda | torch fp32 | torch bf16 | ORT/fp32 | cuda/fp32 |',
);
console.log('|---|---:|---:|---:|---:|---:|---:|');
for (const config of configs) {
  const g = gqa.get(config)?.train;
  const c = cuda.get(config)?.train;
  const fp32 = hfTrain(config, 'fp32');
  console.log(
    `| ${config} | ${format(g)} | ${format(c)} | ${format(fp32)} | ${format(hfTrain(config, 'bf16'))} | ${ratio(g, fp32)} | ${ratio(c, fp32)} |`,
  );
}
// Lines worth reading beside the table: fallbacks, placement, parity outcomes.
const notes = ['parity.log', 'bench-gqa.log', 'bench-where.log', 'cuda.log']
  .flatMap((file) =>
    read(join(logs, file))
      .split('\n')
      .filter((line) =>
        /FAIL|could not bind|not in place|fell back|every hot-path|unavailable|not available|cuda skipped/i.test(
          line,
        ),
      )
      .map((line) => `${file}: ${line.trim()}`),
  )
  .slice(0, 40);
if (notes.length > 0) console.log(`\n${notes.join('\n')}`);
