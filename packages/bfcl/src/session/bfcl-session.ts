import {
  PyDict,
  PyException,
  bindArguments,
  parseCallString,
  pyRepr,
  pyStr,
  tryPyJsonDumps,
  type ParsedCall,
  type PySignature,
  type PyValue,
} from '@seal/python';
import { attachedStr } from '../api/api-helpers';
import type { BfclApi, BfclMethod, BfclMethodTable } from '../api/bfcl-api';
import type { BfclClassName } from '../api/bfcl-class-names';
import type { BfclRealm } from '../api/bfcl-realm';
import { bfclClassRegistry } from '../api/registry';
import { comparableState } from '../state/comparable-state';

/** BFCL's executor refuses these names before evaluating anything. */
export const bfclBlockedNames: readonly string[] = [
  'kill',
  'exit',
  'quit',
  'remove',
  'unlink',
  'popen',
  'Popen',
  'run',
];

/** How a call string fared. */
export type BfclExecutionStatus =
  /** The method returned; `result` is its rendered value. */
  | 'ok'
  /** Python would have raised; `result` is `Error during execution: <str(e)>`. */
  | 'raised'
  /**
   * Our safe parser refused the text (an expression that BFCL would `eval`);
   * nothing ran, and `result` explains why in the same `Error during
   * execution: ...` form.
   */
  | 'rejected';

/** The outcome of executing one call string. */
export type BfclExecution = {
  /** The call text as given. */
  call: string;
  /** The result string, byte for byte what BFCL's executor produces. */
  result: string;
  /** See {@link BfclExecutionStatus}. */
  status: BfclExecutionStatus;
  /** The parsed call, when the text parsed. */
  parsed?: ParsedCall;
  /** The class whose method ran, when one did. */
  className?: BfclClassName;
  /** The error the result signals: a raised exception's text, or a returned `error` field. */
  error?: string;
};

/** Options of {@link BfclSession}. */
export type BfclSessionOptions = {
  /** The realm (Python process) the instances live in. */
  realm: BfclRealm;
  /**
   * `initial_config`: class name → scenario. Only read, and it must not
   * change while the session lives (data loaded by this package is frozen):
   * each instance copies the parts it keeps, some on their first write (BFCL
   * deep-copies the whole scenario first).
   */
  initialConfig: PyDict;
  /** `involved_classes`, in entry order. */
  involvedClasses: readonly BfclClassName[];
  /** Load with BFCL's long-context padding. */
  longContext: boolean;
};

const errorPrefix = 'Error during execution: ';

/**
 * One set of API instances for one entry, with BFCL's executor semantics:
 * calls are routed by method name to the instance that owns it, results are
 * rendered as BFCL renders them, and failures become result strings instead
 * of exceptions. Call text is parsed, never evaluated.
 */
export class BfclSession {
  /** The instances, by class name, in `involved_classes` order. */
  readonly instances: ReadonlyMap<BfclClassName, BfclApi>;
  /** Method name → its class's index into `instances` and its method, shared by every session with the same classes. */
  private readonly routes: ReadonlyMap<string, Route>;
  /** The instances, in `instances` order. */
  private readonly slots: BfclApi[] = [];

  constructor({
    realm,
    initialConfig,
    involvedClasses,
    longContext,
  }: BfclSessionOptions) {
    const instances = new Map<BfclClassName, BfclApi>();
    for (const className of involvedClasses) {
      if (instances.has(className)) continue;
      const definition = bfclClassRegistry[className];
      const instance = definition.create(realm);
      if (!definition.stateless) {
        const config = initialConfig.get(className);
        instance.loadScenario(
          config instanceof PyDict ? config : new PyDict(),
          longContext,
        );
      }
      instances.set(className, instance);
      this.slots.push(instance);
    }
    this.instances = instances;
    this.routes = routeTable([...instances.keys()]);
  }

  /** Names of the public methods this session can run (the available tools). */
  methodNames(): string[] {
    return [...this.routes.keys()];
  }

  /** True when `name` is a public method of an involved class. */
  hasMethod(name: string): boolean {
    return this.routes.has(name);
  }

  /** Executes one call string, as BFCL's `execute_multi_turn_func_call` does for one item. */
  execute(call: string): BfclExecution {
    const blocked = blockedName(call);
    if (blocked !== undefined) {
      const error = `Function call ${blocked} is not allowed.`;
      return {
        call,
        status: 'raised',
        result: `${errorPrefix}${error}`,
        error,
      };
    }
    const parsed = parseCallString(call);
    if (!parsed.success) {
      const { kind, message } = parsed.error;
      const status =
        kind === 'syntax' || kind === 'name' ? 'raised' : 'rejected';
      return {
        call,
        status,
        result: `${errorPrefix}${message}`,
        error: message,
      };
    }
    return this.run(parsed.value, call);
  }

  /** Executes an already parsed call. */
  executeParsed(call: ParsedCall): BfclExecution {
    return this.run(call, `${call.name}(...)`);
  }

  private run(call: ParsedCall, text: string): BfclExecution {
    // A dotted name never routes (the executor evaluates it as an attribute).
    const route = call.name.includes('.')
      ? undefined
      : this.routes.get(call.name);
    if (route === undefined) {
      const error = `name '${call.name.split('.')[0]!}' is not defined`;
      return {
        call: text,
        parsed: call,
        status: 'raised',
        result: `${errorPrefix}${error}`,
        error,
      };
    }
    try {
      const args = bindArguments({
        signature: route.signature,
        args: call.args,
        kwargs: call.kwargs,
      });
      const value = route.method.call(this.slots[route.slot]!, args);
      const error = softErrorText(value);
      const execution: BfclExecution = {
        call: text,
        parsed: call,
        className: route.className,
        status: 'ok',
        result: renderResult(value),
      };
      if (error !== undefined) execution.error = error;
      return execution;
    } catch (thrown) {
      const error = exceptionText(thrown);
      return {
        call: text,
        parsed: call,
        className: route.className,
        status: 'raised',
        result: `${errorPrefix}${error}`,
        error,
      };
    }
  }

  /** The comparable state of every instance (golden-file convention). */
  comparableState(): PyDict {
    const state = new PyDict();
    for (const [className, instance] of this.instances)
      state.set(className, comparableState(instance));
    return state;
  }
}

/** Where a method name leads: its class's position among a session's instances, the method, its signature. */
type Route = {
  readonly slot: number;
  readonly className: BfclClassName;
  readonly method: BfclMethod<BfclApi>;
  /** For {@link bindArguments}. */
  readonly signature: PySignature;
};

const routeTables = new Map<string, ReadonlyMap<string, Route>>();

/**
 * Method name → route to the position of its class in `classNames` (a later
 * class wins, as BFCL's name mapping does; no name is shared in practice).
 * Built once per combination of classes.
 */
function routeTable(
  classNames: readonly BfclClassName[],
): ReadonlyMap<string, Route> {
  const key = classNames.join(',');
  let table = routeTables.get(key);
  if (table === undefined) {
    const routes = new Map<string, Route>();
    classNames.forEach((className, slot) => {
      const methods = bfclClassRegistry[className]
        .methods as BfclMethodTable<BfclApi>;
      for (const [name, method] of Object.entries(methods)) {
        const signature = {
          qualname: `${className}.${name}`,
          parameters: method.parameters,
        };
        routes.set(name, { slot, className, method, signature });
      }
    });
    table = routes;
    routeTables.set(key, table);
  }
  return table;
}

const errorKey = /error/i;

/**
 * The error a returned value signals, by BFCL's conventions: a dict field
 * whose name contains `error` (`{"error": "..."}`), or such a dict or an
 * `Error: ...` string as the first item of a returned list.
 */
export function softErrorText(value: PyValue): string | undefined {
  if (value instanceof PyDict) {
    // Keys first: a value is looked up only for an error key (rare), so no
    // `[key, value]` pair is made per entry.
    for (const key of value.keys()) {
      // `/error/i` is `.toLowerCase().includes('error')` without a copy of the key.
      if (typeof key !== 'string' || !errorKey.test(key)) continue;
      const item = value.get(key)!;
      if (item !== null && item !== false && item !== '')
        return typeof item === 'string' ? item : pyStr(item);
    }
    return undefined;
  }
  if (Array.isArray(value) && value.length > 0) {
    const first = value[0]!;
    if (typeof first === 'string')
      return /^error\b/i.test(first) ? first : undefined;
    return softErrorText(first);
  }
  return undefined;
}

/**
 * BFCL's block-list test on the text before the first `(` (its second
 * dotted part, when dotted). Only that head is scanned, in place (call
 * texts can be long), and it is sliced only when short enough to be a
 * blocked name.
 */
function blockedName(call: string): string | undefined {
  let end = call.indexOf('(');
  if (end < 0) end = call.length;
  let start = 0;
  let dotted = false;
  for (let i = 0; i < end; i++) {
    if (call.charCodeAt(i) !== 0x2e) continue;
    if (dotted) {
      end = i;
      break;
    }
    dotted = true;
    start = i + 1;
  }
  if (end - start > longestBlockedName) return undefined;
  const head = call.slice(start, end);
  return bfclBlockedNames.includes(head) ? head : undefined;
}

const longestBlockedName = Math.max(
  ...bfclBlockedNames.map((name) => name.length),
);

/** BFCL's rendering: `str` as is, `dict` through `json.dumps` (else `str()`), the rest `str()`. */
export function renderResult(value: PyValue): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return attachedStr(value) ?? pyStr(value);
  if (value instanceof PyDict) return tryPyJsonDumps(value) ?? pyStr(value);
  return pyStr(value);
}

function exceptionText(error: unknown): string {
  if (PyException.isInstance(error)) return error.message;
  // A JS error here is a bug in a port; report it like Python would report a
  // crash, and never let it escape the episode.
  if (error instanceof RangeError) return 'maximum recursion depth exceeded';
  if (error instanceof Error) return error.message;
  return pyRepr(String(error));
}
