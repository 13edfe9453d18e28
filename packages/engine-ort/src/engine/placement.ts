import { parseJsonWithSchema, SealError } from '@seal/spec';
import * as z from 'zod';
import type { ExecutionProvider } from './device';

/** Where one node of an optimised graph ran, read from ORT's profile of a run. */
export type NodePlacement = {
  /** The node's name in the optimised graph. */
  node: string;
  /** Its operator type (after ORT's fusions, e.g. `FusedMatMul`). */
  op: string;
  /** ORT's execution provider name, e.g. `CPUExecutionProvider`, `WebGpuExecutionProvider`. */
  provider: string;
  /** Element type and shape of each output. */
  outputs: Array<{ type: string; shape: number[] }>;
};

/** The placement of one graph family, recorded on its first session. */
export type GraphPlacement = {
  /** The graph family (`grad-ppo`, `score`, `prefill`, `extend`, `decode`, `optimizer`). */
  family: string;
  /** The session's cache key (family and shape bucket) whose first run was profiled. */
  key: string;
  /** The execution provider the session was created for. */
  device: ExecutionProvider;
  /** Every node that ran, in execution order (a node run twice is listed once). */
  nodes: NodePlacement[];
};

// ORT's profile is a Chrome trace: one `Node` event per kernel run, named
// `<node>_kernel_time`, with the provider and output shapes in `args`.
const profileEventSchema = z.object({
  cat: z.string().nullish(),
  name: z.string().nullish(),
  args: z
    .object({
      op_name: z.string().nullish(),
      provider: z.string().nullish(),
      output_type_shape: z
        .array(z.record(z.string(), z.array(z.number())))
        .nullish(),
    })
    .nullish(),
});
const profileSchema = z.array(profileEventSchema);

/** Reads the node placements from the text of an ORT profile file. */
export function readPlacementProfile(text: string): NodePlacement[] {
  const events = parseJsonWithSchema({
    text,
    schema: profileSchema,
    source: 'ORT profile',
  });
  const seen = new Set<string>();
  const nodes: NodePlacement[] = [];
  for (const event of events) {
    if (
      event.cat !== 'Node' ||
      !event.name?.endsWith('_kernel_time') ||
      !event.args?.provider
    )
      continue;
    const node = event.name.slice(0, -'_kernel_time'.length);
    if (seen.has(node)) continue;
    seen.add(node);
    nodes.push({
      node,
      op: event.args.op_name ?? '?',
      provider: event.args.provider,
      outputs: (event.args.output_type_shape ?? []).flatMap((output) =>
        Object.entries(output).map(([type, shape]) => ({ type, shape })),
      ),
    });
  }
  return nodes;
}

/** ORT's provider name for each device. */
export const providerNames: Record<ExecutionProvider, string> = {
  cpu: 'CPUExecutionProvider',
  webgpu: 'WebGpuExecutionProvider',
  cuda: 'CUDAExecutionProvider',
};

/**
 * Largest floating-point output a node may produce on the CPU while the graph
 * runs on a GPU: ORT keeps small shape computations on the CPU on purpose
 * (`GetCpuPreferredNodes`); anything that makes a real activation is a
 * fallback that costs two device copies and a sync.
 */
export const offDeviceElementLimit = 64;

const floatTypes = new Set(['float', 'float16', 'double', 'bfloat16']);

/**
 * The nodes of a GPU graph that fell back to the CPU on the hot path: those on
 * another provider than the device's whose floating-point output has more
 * than {@link offDeviceElementLimit} elements. Empty for CPU graphs.
 */
export function offDeviceNodes(placement: GraphPlacement): NodePlacement[] {
  if (placement.device === 'cpu') return [];
  const expected = providerNames[placement.device];
  return placement.nodes.filter(
    (node) =>
      node.provider !== expected &&
      node.outputs.some(
        (output) =>
          floatTypes.has(output.type) &&
          output.shape.reduce((product, n) => product * n, 1) >
            offDeviceElementLimit,
      ),
  );
}

/** Nodes per provider of one graph, most first. */
export function countByProvider(
  placement: GraphPlacement,
): Array<[provider: string, nodes: number]> {
  const counts = new Map<string, number>();
  for (const node of placement.nodes)
    counts.set(node.provider, (counts.get(node.provider) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1]);
}

/**
 * A markdown table: one row per graph with its node count per provider and
 * the hot-path nodes that ran off the device (op and node name).
 */
export function formatPlacementTable(
  placements: readonly GraphPlacement[],
): string {
  const lines = [
    '| graph | device | nodes | by provider | off the device (hot path) |',
    '|---|---|---|---|---|',
  ];
  for (const placement of placements) {
    const off = offDeviceNodes(placement);
    lines.push(
      `| ${placement.key} | ${placement.device} | ${placement.nodes.length} | ${countByProvider(
        placement,
      )
        .map(
          ([provider, n]) =>
            `${provider.replace('ExecutionProvider', '')} ${n}`,
        )
        .join(
          ', ',
        )} | ${off.length === 0 ? 'none' : off.map((node) => `${node.op} (${node.node})`).join(', ')} |`,
    );
  }
  return lines.join('\n');
}

/** Throws `BACKEND_UNAVAILABLE` when a hot-path node of any graph ran off its device. */
export function assertOnDevice(placements: readonly GraphPlacement[]): void {
  const failures = placements.flatMap((placement) =>
    offDeviceNodes(placement).map(
      (node) =>
        `${placement.family}: ${node.op} ${node.node} on ${node.provider}`,
    ),
  );
  if (failures.length > 0) {
    throw new SealError({
      code: 'BACKEND_UNAVAILABLE',
      message: `${failures.length} hot-path node(s) fell back to the CPU: ${failures.slice(0, 8).join('; ')}${failures.length > 8 ? '; …' : ''}`,
      details: { failures },
    });
  }
}
