import type { PyDict } from '@seal/python';
import { BfclApi, type BfclClassDefinition, type BfclMethodTable } from './bfcl-api';

/** BFCL's `GorillaFileSystem` (port in progress). */
export class GorillaFileSystem extends BfclApi {
  readonly className = 'GorillaFileSystem' as const;
  protected readonly attributeNames: readonly string[] = [];

  loadScenario(_scenario: PyDict, _longContext: boolean): void {}

  static readonly methods: BfclMethodTable<GorillaFileSystem> = {};
}

/** Registry entry for {@link GorillaFileSystem}. */
export const gorillaFileSystemDefinition: BfclClassDefinition = {
  className: 'GorillaFileSystem',
  create: (realm) => new GorillaFileSystem(realm),
  methods: GorillaFileSystem.methods as BfclMethodTable<never>,
  stateless: false,
  description: '',
  tools: {},
};
