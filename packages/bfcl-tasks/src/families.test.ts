import { describe, expect, it } from 'vitest';
import { BfclRealm, BfclSession, bfclClassNames } from '@seal/bfcl';
import { PyDict } from '@seal/python';
import { buildTask, createGeneratorRuntime } from './build-task';
import { generateTasks } from './generate-tasks';
import { taskFamilies } from './families';
import { tradingCompanies } from './families/trading-families';
import { tradingState } from './states';

const inDistribution = taskFamilies.filter(
  (family) => family.pool === 'in-distribution',
);

describe('taskFamilies', () => {
  it('should have unique ids', () => {
    const ids = taskFamilies.map((family) => family.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it.each(bfclClassNames)(
    'should have at least three in-distribution families of %s alone',
    (className) => {
      const own = inDistribution.filter(
        (family) =>
          family.classes.length === 1 && family.classes[0] === className,
      );
      expect(own.length).toBeGreaterThanOrEqual(3);
    },
  );

  it('should have cross-class families in and out of distribution, with disjoint compositions', () => {
    const cross = (pool: string) =>
      taskFamilies
        .filter((family) => family.pool === pool && family.classes.length > 1)
        .map((family) => family.classes.join('+'));
    const inside = cross('in-distribution');
    const outside = cross('out-of-distribution');
    expect(inside.length).toBeGreaterThanOrEqual(3);
    expect(outside.length).toBeGreaterThanOrEqual(3);
    const seen = new Set(
      inDistribution.map((family) => [...family.classes].sort().join('+')),
    );
    for (const family of taskFamilies.filter(
      (item) => item.pool === 'out-of-distribution',
    )) {
      expect(seen.has([...family.classes].sort().join('+'))).toBe(false);
    }
  });

  it('should spread difficulty over easy, medium and hard', () => {
    const counts = new Map<string, number>();
    for (const family of inDistribution)
      counts.set(family.difficulty, (counts.get(family.difficulty) ?? 0) + 1);
    for (const difficulty of ['easy', 'medium', 'hard'])
      expect(counts.get(difficulty) ?? 0).toBeGreaterThanOrEqual(5);
  });

  it('should have a long-context form for every class that holds collections', () => {
    const classes = new Set(
      taskFamilies
        .filter((family) => family.longContext)
        .flatMap((family) => family.classes),
    );
    for (const className of [
      'GorillaFileSystem',
      'MessageAPI',
      'TwitterAPI',
      'TicketAPI',
      'TradingBot',
      'TravelAPI',
    ]) {
      expect(classes.has(className as never), `${className}`).toBe(true);
    }
  });

  it('should give every intent at least three phrasings', () => {
    for (const family of taskFamilies)
      for (const intent of family.intents)
        expect(intent.phrasings.length).toBeGreaterThanOrEqual(3);
  });

  it.each(taskFamilies.map((family) => [family.id, family] as const))(
    '%s should build one to four turns',
    (_id, family) => {
      for (let seed = 0; seed < 12; seed++) {
        const task = buildTask({
          family,
          category: 'multi_turn_base',
          seed,
          split: family.pool === 'in-distribution' ? 'train' : 'test-ood',
        });
        expect(task.turns.length).toBeGreaterThanOrEqual(1);
        expect(task.turns.length).toBeLessThanOrEqual(4);
        expect(task.backend.involvedClasses).toEqual([...family.classes]);
        expect(
          task.turns.every(
            (turn) => turn.length === 1 && turn[0]!.content.length <= 120,
          ),
        ).toBe(true);
      }
    },
  );

  it("should know the company table of TradingBot's get_symbol_by_name", () => {
    const session = new BfclSession({
      realm: new BfclRealm({ data: createGeneratorRuntime() }),
      initialConfig: new PyDict([
        [
          'TradingBot',
          tradingState({
            stocks: [],
            orders: [],
            accountId: 1,
            balance: 1.0,
            bindingCard: 1n,
            authenticated: false,
            marketOpen: false,
            watchList: [],
            seed: 1n,
          }),
        ],
      ]),
      involvedClasses: ['TradingBot'],
      longContext: false,
    });
    for (const [company, symbol] of tradingCompanies) {
      expect(
        session.execute(`get_symbol_by_name(name=${JSON.stringify(company)})`)
          .result,
      ).toBe(`{"symbol": "${symbol}"}`);
    }
  });
});

describe('travel.exchange-named', () => {
  it('should say the currency in words and expect its code, in every variant', () => {
    const family = taskFamilies.find(
      (item) => item.id === 'travel.exchange-named',
    )!;
    // No long-context form: its one read returns a single number.
    const variants = [
      'multi_turn_base',
      'multi_turn_miss_param',
      'multi_turn_miss_func',
    ] as const;
    const tasks = generateTasks({
      seed: 5,
      split: 'train',
      count: 24,
      families: [family.id],
      variants: [...variants],
    });
    expect(new Set(tasks.map((task) => task.category))).toEqual(
      new Set(variants),
    );
    const spoken = family.spokenForms!;
    for (const task of tasks) {
      const said = task.turns
        .flat()
        .map((message) => message.content)
        .join('\n');
      const call = task.groundTruth
        .flat()
        .find((text) => text.startsWith('compute_exchange_rate('))!;
      const code = /target_currency='([A-Z]+)'/.exec(call)![1]!;
      expect({ task: task.id, saysName: said.includes(spoken[code]!) }).toEqual(
        { task: task.id, saysName: true },
      );
      // The code itself is never said: the agent has to map the name to it.
      expect({
        task: task.id,
        saysCode: new RegExp(`\\b${code}\\b`).test(said),
      }).toEqual({ task: task.id, saysCode: false });
    }
  });
});
