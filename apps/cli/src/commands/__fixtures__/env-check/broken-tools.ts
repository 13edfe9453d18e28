/** An environment whose tools throw or hang (for `seal env check` tests). */
import { fromAiSdkTools } from '@seal/tools';
import { tool } from 'ai';
import * as z from 'zod';

export const environment = fromAiSdkTools(
  {
    record: tool({
      inputSchema: z.object({ value: z.string() }),
      execute: ({ value }, { context }) => {
        (context as string[]).push(value);
        return 'recorded';
      },
    }),
    explode: tool({
      inputSchema: z.object({}),
      execute: (): string => {
        throw new Error('the tool exploded');
      },
    }),
    hang: tool({
      inputSchema: z.object({}),
      execute: () => new Promise<string>(() => undefined),
    }),
  },
  { createState: (): string[] => [], timeoutMs: 300 },
);
