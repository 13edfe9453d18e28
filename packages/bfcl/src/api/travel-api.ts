import type { PyDict } from '@seal/python';
import { BfclApi, type BfclClassDefinition, type BfclMethodTable } from './bfcl-api';

/** BFCL's `TravelAPI` (port in progress). */
export class TravelApi extends BfclApi {
  readonly className = 'TravelAPI' as const;
  protected readonly attributeNames: readonly string[] = [];

  loadScenario(_scenario: PyDict, _longContext: boolean): void {}

  static readonly methods: BfclMethodTable<TravelApi> = {};
}

/** Registry entry for {@link TravelApi}. */
export const travelApiDefinition: BfclClassDefinition = {
  className: 'TravelAPI',
  create: (realm) => new TravelApi(realm),
  methods: TravelApi.methods as BfclMethodTable<never>,
  stateless: false,
  description: '',
  tools: {},
};
