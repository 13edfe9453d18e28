/**
 * Runs an example's main function and prints a structured error
 * (`{ code, message, details }`, as `SealError.toJSON()` gives) instead of a
 * stack trace when it fails.
 */
export function run(main: () => Promise<void>): void {
  main().catch((error: unknown) => {
    const record = error as {
      code?: unknown;
      message?: unknown;
      details?: unknown;
      toJSON?: () => unknown;
    };
    const printable =
      typeof record.toJSON === 'function'
        ? record.toJSON()
        : {
            code: record.code ?? 'INTERNAL',
            message: String(record.message ?? error),
            details: record.details ?? {},
          };
    console.error(JSON.stringify(printable, null, 2));
    process.exitCode = 1;
  });
}
