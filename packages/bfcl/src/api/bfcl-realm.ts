import { PyDict, pyDeepCopy, type PyValue } from '@seal/python';
import type { BfclClassName } from './bfcl-class-names';

/**
 * Values the API classes read from BFCL's data directory at run time (never
 * committed here): each class's `DEFAULT_STATE` and the long-context padding
 * constants.
 */
export type BfclRuntimeData = {
  /** `default_states.json`: class name → attribute → default value. */
  defaultStates: PyDict;
  /** `long_context_constants.json`: constant name → value. */
  longContext: PyDict;
};

/**
 * The process-global state of BFCL's Python modules. BFCL keeps some mutable
 * objects at module level: `TwitterAPI.post_tweet`'s default `[]` lists are
 * shared by every call that omits them, and long-context
 * `get_outside_temperature_from_google` mutates a module dict. One realm
 * stands for one Python process: the verifier runs a case's model and
 * ground-truth instances in one realm (as BFCL's checker does), and every
 * episode gets its own, so concurrent episodes never share state.
 */
export class BfclRealm {
  readonly data: BfclRuntimeData;
  /** The clock behind `datetime.now()`/`today()` in the classes. */
  readonly now: () => Date;
  /** Created by the first {@link BfclRealm.global} (most realms never hold one). */
  private globals: Map<string, PyValue> | undefined;

  constructor({ data, now }: { data: BfclRuntimeData; now?: () => Date }) {
    this.data = data;
    this.now = now ?? (() => new Date());
  }

  /** A module-level object, created on first use and shared within this realm. */
  global<T extends PyValue>(key: string, create: () => T): T {
    const globals = (this.globals ??= new Map());
    let value = globals.get(key);
    if (value === undefined) {
      value = create();
      globals.set(key, value);
    }
    return value as T;
  }

  /** A fresh deep copy of a class's `DEFAULT_STATE`. */
  defaultState(className: BfclClassName): PyDict {
    const state = this.data.defaultStates.get(className);
    return state instanceof PyDict ? pyDeepCopy(state) : new PyDict();
  }

  /**
   * Reads the fields of a `_load_scenario(scenario)` the way the classes do,
   * `scenario.get(key, DEFAULT_STATE_COPY[key])`, copying only the values
   * actually used. BFCL deep-copies the whole scenario and the whole
   * `DEFAULT_STATE` first; copying one value at a time is the same (the
   * scenario's copies share one `deepcopy` memo, so values shared between
   * fields stay shared; `DEFAULT_STATE`'s values share no objects), and the
   * fields a class never reads, or rebuilds, are not copied at all.
   */
  scenarioFields({
    className,
    scenario,
  }: {
    className: BfclClassName;
    scenario: PyDict;
  }): BfclScenarioFields {
    const state = this.data.defaultStates.get(className);
    return new BfclScenarioFields(
      scenario,
      state instanceof PyDict ? state : new PyDict(),
    );
  }

  /** A long-context constant by its Python name (shared, do not mutate). */
  longContextConstant(name: string): PyValue {
    const value = this.data.longContext.get(name);
    if (value === undefined) {
      throw new Error(`long_context_constants.json has no constant ${name}`);
    }
    return value;
  }
}

/** See {@link BfclRealm.scenarioFields}. */
export class BfclScenarioFields {
  private readonly scenario: PyDict;
  private readonly defaults: PyDict;
  /** `deepcopy`'s memo for the scenario's values, created by the first copy of a container. */
  private memo: Map<unknown, unknown> | undefined;

  constructor(scenario: PyDict, defaults: PyDict) {
    this.scenario = scenario;
    this.defaults = defaults;
  }

  /** `scenario.get(key, DEFAULT_STATE_COPY[defaultKey])`, a copy; `None` when neither has it. */
  get(key: string, defaultKey: string = key): PyValue {
    const value = this.scenario.get(key);
    if (value !== undefined) return this.copy(value);
    return this.defaultValue(defaultKey) ?? null;
  }

  /**
   * {@link BfclScenarioFields.get}, deferred: the value as the scenario (or
   * `DEFAULT_STATE`) holds it, shared and read-only, and the function that
   * makes the copy `get` would have made. For a large field that most
   * instances only read: it is copied on the first write. (Until then the
   * copy's memo stays, so the copy still shares what it shares with the
   * other fields' copies.)
   */
  getShared(
    key: string,
    defaultKey: string = key,
  ): { shared: PyValue; copy: () => PyValue } {
    const value = this.scenario.get(key);
    if (value !== undefined)
      return { shared: value, copy: () => this.copy(value) };
    return {
      shared: this.defaults.get(defaultKey) ?? null,
      copy: () => this.defaultValue(defaultKey) ?? null,
    };
  }

  /** A value read from the scenario, copied as part of one deep copy of the whole scenario. */
  copy(value: PyValue): PyValue {
    if (value === null || typeof value !== 'object') return value;
    return pyDeepCopy(value, (this.memo ??= new Map()));
  }

  /** A deep copy of `DEFAULT_STATE[key]`, or `undefined` when there is none. */
  defaultValue(key: string): PyValue | undefined {
    const value = this.defaults.get(key);
    return value === undefined ? undefined : pyDeepCopy(value);
  }
}
