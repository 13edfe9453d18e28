import type { PyDict, PyParameter, PyValue } from '@seal/python';
import type { BfclClassName } from './bfcl-class-names';
import type { BfclRealm } from './bfcl-realm';
import type { BfclToolSpecs } from './tool-spec';

/**
 * One public method of an API class: its Python parameters (for binding with
 * CPython's rules and messages) and its implementation over bound values.
 */
export type BfclMethod<TSelf extends BfclApi = BfclApi> = {
  /** Parameters after `self`, with Python defaults. */
  readonly parameters: readonly PyParameter[];
  /** The implementation; receives the bound arguments in parameter order. */
  readonly call: (self: TSelf, args: PyValue[]) => PyValue;
};

/** A method table: Python method name → method. */
export type BfclMethodTable<TSelf extends BfclApi = BfclApi> = Readonly<
  Record<string, BfclMethod<TSelf>>
>;

/**
 * Base of the eight BFCL API classes. Subclasses mirror the Python classes:
 * public attribute and method names keep their Python (snake_case) spelling,
 * because they are the tool names and the state the checker compares.
 */
export abstract class BfclApi {
  /** The Python class name. */
  abstract readonly className: BfclClassName;
  /**
   * Public attribute names in `vars(instance)` order (the order Python first
   * assigns them). The state checker compares exactly these.
   */
  protected abstract readonly attributeNames: readonly string[];
  /** The realm (Python process) this instance lives in. */
  protected readonly realm: BfclRealm;

  constructor(realm: BfclRealm) {
    this.realm = realm;
  }

  /**
   * `_load_scenario(scenario, long_context)`. `scenario` is the entry's
   * config for this class, shared with every other instance loaded from it
   * (and often frozen): read it, never mutate it, and keep only copies of its
   * containers. {@link BfclRealm.scenarioFields} copies what it returns, as
   * if the whole scenario had been deep-copied first (as BFCL does).
   */
  abstract loadScenario(scenario: PyDict, longContext: boolean): void;

  /** The public attributes as `[name, value]`, in `vars()` order. */
  publicAttributes(): [string, PyValue][] {
    const self = this as unknown as Record<string, PyValue | undefined>;
    return this.attributeNames
      .filter((name) => self[name] !== undefined)
      .map((name) => [name, self[name]!]);
  }
}

/** Constructor and method table of an API class, as the registry holds them. */
export type BfclClassDefinition = {
  /** The Python class name. */
  readonly className: BfclClassName;
  /** Creates an unloaded instance. */
  readonly create: (realm: BfclRealm) => BfclApi;
  /** Public methods by Python name. */
  readonly methods: BfclMethodTable<never>;
  /** BFCL's `STATELESS_CLASSES` skip `_load_scenario` (only MathAPI). */
  readonly stateless: boolean;
  /** Our description of the class (one sentence). */
  readonly description: string;
  /** Our description and argument schema of every public method. */
  readonly tools: BfclToolSpecs;
};
