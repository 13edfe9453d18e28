import type { PyDict } from '@seal/python';
import { BfclApi, type BfclClassDefinition, type BfclMethodTable } from './bfcl-api';

/** BFCL's `MessageAPI` (port in progress). */
export class MessageApi extends BfclApi {
  readonly className = 'MessageAPI' as const;
  protected readonly attributeNames: readonly string[] = [];

  loadScenario(_scenario: PyDict, _longContext: boolean): void {}

  static readonly methods: BfclMethodTable<MessageApi> = {};
}

/** Registry entry for {@link MessageApi}. */
export const messageApiDefinition: BfclClassDefinition = {
  className: 'MessageAPI',
  create: (realm) => new MessageApi(realm),
  methods: MessageApi.methods as BfclMethodTable<never>,
  stateless: false,
  description: '',
  tools: {},
};
