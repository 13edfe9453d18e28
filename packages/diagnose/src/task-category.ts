/** The BFCL v3 multi-turn category prefixes, in SEAL's order. */
export const bfclCategoryPrefixes = [
  'multi_turn_base',
  'multi_turn_miss_func',
  'multi_turn_miss_param',
  'multi_turn_long_context',
] as const;

/**
 * SEAL's `infer_task_category` for BFCL ids: the id's BFCL prefix
 * (`multi_turn_miss_param_12` → `multi_turn_miss_param`); for any other id,
 * the text before its last `_` (the id itself without one); `_none` for an
 * empty id. An explicit category always wins over this inference.
 */
export function inferTaskCategory(taskId: string | null | undefined): string {
  const id = taskId ?? '';
  if (id === '') return '_none';
  for (const prefix of bfclCategoryPrefixes) {
    if (id === prefix || id.startsWith(`${prefix}_`)) return prefix;
  }
  const cut = id.lastIndexOf('_');
  return cut >= 0 ? id.slice(0, cut) : id;
}
