import type { PyDict } from '@seal/python';
import { BfclApi, type BfclClassDefinition, type BfclMethodTable } from './bfcl-api';

/** BFCL's `VehicleControlAPI` (port in progress). */
export class VehicleControlApi extends BfclApi {
  readonly className = 'VehicleControlAPI' as const;
  protected readonly attributeNames: readonly string[] = [];

  loadScenario(_scenario: PyDict, _longContext: boolean): void {}

  static readonly methods: BfclMethodTable<VehicleControlApi> = {};
}

/** Registry entry for {@link VehicleControlApi}. */
export const vehicleControlApiDefinition: BfclClassDefinition = {
  className: 'VehicleControlAPI',
  create: (realm) => new VehicleControlApi(realm),
  methods: VehicleControlApi.methods as BfclMethodTable<never>,
  stateless: false,
  description: '',
  tools: {},
};
