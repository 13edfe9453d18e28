/** ε in GRPO's normalisation (verl's default). */
export const grpoEpsilon = 1e-6;

/**
 * GRPO's outcome advantages (SEAL §5.2): within each group (all rollouts of
 * one task), A_j = (r_j − mean) / (std + ε) with the unbiased (Bessel)
 * standard deviation. A group of one gets mean 0 and std 1, as in verl. A
 * group whose rewards are all equal gets zeros.
 */
export function grpoAdvantages({
  rewards,
  groups,
  epsilon = grpoEpsilon,
  normalizeByStd = true,
}: {
  /** One reward per trajectory. */
  rewards: readonly number[];
  /** The group key of each trajectory (e.g. the task id). */
  groups: readonly string[];
  epsilon?: number;
  /** Divide by the std (`norm_adv_by_std_in_grpo`); default true. */
  normalizeByStd?: boolean;
}): number[] {
  if (rewards.length !== groups.length) {
    throw new RangeError(
      `rewards (${rewards.length}) and groups (${groups.length}) differ in length`,
    );
  }
  const members = new Map<string, number[]>();
  groups.forEach((group, index) => {
    const list = members.get(group) ?? [];
    list.push(index);
    members.set(group, list);
  });
  const advantages = new Array<number>(rewards.length).fill(0);
  for (const indices of members.values()) {
    const values = indices.map((i) => rewards[i]!);
    let mean = 0;
    let std = 1;
    if (values.length > 1) {
      mean = values.reduce((a, b) => a + b, 0) / values.length;
      const variance =
        values.reduce((sum, v) => sum + (v - mean) ** 2, 0) /
        (values.length - 1);
      std = Math.sqrt(variance);
    }
    for (const i of indices) {
      advantages[i] = normalizeByStd
        ? (rewards[i]! - mean) / (std + epsilon)
        : rewards[i]! - mean;
    }
  }
  return advantages;
}

/**
 * Groups that carry no gradient: their rewards all agree (zero variance), and
 * with `turnRewards` (turn-level credit) so does each turn's verdict over the
 * group's rollouts that reached it, so every advantage is zero. Dynamic
 * sampling leaves them out. A group of one has no variance.
 */
export function zeroVarianceGroups({
  rewards,
  groups,
  turnRewards,
}: {
  rewards: readonly number[];
  groups: readonly string[];
  /** Per rollout, one verdict per turn: a group whose turns differ is kept. */
  turnRewards?: readonly (readonly number[])[];
}): Set<string> {
  const members = new Map<string, number[]>();
  groups.forEach((group, index) => {
    const list = members.get(group);
    if (list) list.push(index);
    else members.set(group, [index]);
  });
  const agree = (values: readonly number[]): boolean =>
    values.every((value) => value === values[0]);
  const flat = new Set<string>();
  for (const [group, indices] of members) {
    if (!agree(indices.map((i) => rewards[i]!))) continue;
    if (turnRewards) {
      const turns = Math.max(0, ...indices.map((i) => turnRewards[i]!.length));
      let turnsAgree = true;
      for (let turn = 0; turn < turns && turnsAgree; turn++) {
        const present = indices.filter((i) => turn < turnRewards[i]!.length);
        turnsAgree = agree(present.map((i) => turnRewards[i]![turn]!));
      }
      if (!turnsAgree) continue;
    }
    flat.add(group);
  }
  return flat;
}

/**
 * Turn-level GRPO advantages: within each group, for each turn index, the
 * turn rewards normalised as {@link grpoAdvantages} normalises episode
 * rewards, over the group's rollouts that have that turn. A turn whose
 * rewards all agree gets zeros. Returns, per rollout, one advantage per turn.
 */
export function turnAdvantages({
  turnRewards,
  groups,
  epsilon = grpoEpsilon,
}: {
  /** Per rollout, one reward per turn. */
  turnRewards: readonly (readonly number[])[];
  /** The group key of each rollout. */
  groups: readonly string[];
  epsilon?: number;
}): number[][] {
  if (turnRewards.length !== groups.length) {
    throw new RangeError(
      `turnRewards (${turnRewards.length}) and groups (${groups.length}) differ in length`,
    );
  }
  const result = turnRewards.map((turns) => turns.map(() => 0));
  const members = new Map<string, number[]>();
  groups.forEach((group, index) =>
    members.set(group, [...(members.get(group) ?? []), index]),
  );
  for (const indices of members.values()) {
    const turns = Math.max(0, ...indices.map((i) => turnRewards[i]!.length));
    for (let turn = 0; turn < turns; turn++) {
      const present = indices.filter((i) => turn < turnRewards[i]!.length);
      if (present.length < 2) continue;
      const rewards = present.map((i) => turnRewards[i]![turn]!);
      const advantages = grpoAdvantages({
        rewards,
        groups: present.map(() => 'turn'),
        epsilon,
      });
      present.forEach((i, k) => {
        result[i]![turn] = advantages[k]!;
      });
    }
  }
  return result;
}
