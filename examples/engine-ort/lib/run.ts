import { toSealError } from '../../../packages/spec/src/index';

/**
 * Runs an example's main function and prints a structured error
 * (`{ code, message, details }`) instead of a stack trace when it fails.
 */
export function run(main: () => Promise<void>): void {
  main().catch((error: unknown) => {
    console.error(JSON.stringify(toSealError(error).toJSON(), null, 2));
    process.exitCode = 1;
  });
}
