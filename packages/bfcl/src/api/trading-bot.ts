import type { PyDict } from '@seal/python';
import { BfclApi, type BfclClassDefinition, type BfclMethodTable } from './bfcl-api';

/** BFCL's `TradingBot` (port in progress). */
export class TradingBot extends BfclApi {
  readonly className = 'TradingBot' as const;
  protected readonly attributeNames: readonly string[] = [];

  loadScenario(_scenario: PyDict, _longContext: boolean): void {}

  static readonly methods: BfclMethodTable<TradingBot> = {};
}

/** Registry entry for {@link TradingBot}. */
export const tradingBotDefinition: BfclClassDefinition = {
  className: 'TradingBot',
  create: (realm) => new TradingBot(realm),
  methods: TradingBot.methods as BfclMethodTable<never>,
  stateless: false,
  description: '',
  tools: {},
};
