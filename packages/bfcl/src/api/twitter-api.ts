import type { PyDict } from '@seal/python';
import { BfclApi, type BfclClassDefinition, type BfclMethodTable } from './bfcl-api';

/** BFCL's `TwitterAPI` (port in progress). */
export class TwitterApi extends BfclApi {
  readonly className = 'TwitterAPI' as const;
  protected readonly attributeNames: readonly string[] = [];

  loadScenario(_scenario: PyDict, _longContext: boolean): void {}

  static readonly methods: BfclMethodTable<TwitterApi> = {};
}

/** Registry entry for {@link TwitterApi}. */
export const twitterApiDefinition: BfclClassDefinition = {
  className: 'TwitterAPI',
  create: (realm) => new TwitterApi(realm),
  methods: TwitterApi.methods as BfclMethodTable<never>,
  stateless: false,
  description: '',
  tools: {},
};
