import type { PyDict } from '@seal/python';
import { BfclApi, type BfclClassDefinition, type BfclMethodTable } from './bfcl-api';

/** BFCL's `MathAPI` (port in progress). */
export class MathApi extends BfclApi {
  readonly className = 'MathAPI' as const;
  protected readonly attributeNames: readonly string[] = [];

  loadScenario(_scenario: PyDict, _longContext: boolean): void {}

  static readonly methods: BfclMethodTable<MathApi> = {};
}

/** Registry entry for {@link MathApi}. */
export const mathApiDefinition: BfclClassDefinition = {
  className: 'MathAPI',
  create: (realm) => new MathApi(realm),
  methods: MathApi.methods as BfclMethodTable<never>,
  stateless: true,
  description: '',
  tools: {},
};
