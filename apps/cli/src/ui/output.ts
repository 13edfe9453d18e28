/**
 * Terminal output of the CLI: plain lines on stdout, progress on stderr (only
 * when stderr is a TTY, so logs and pipes stay clean), and a `--json` mode
 * where commands print one JSON document instead of text.
 */
export type Output = {
  /** Whether `--json` was requested. */
  readonly json: boolean;
  /** Whether progress is drawn as a live bar (stderr is a TTY and not `--json`). */
  readonly interactive: boolean;
  /** A line of human-readable output (suppressed in JSON mode). */
  line(text?: string): void;
  /** The command's machine-readable result (printed only in JSON mode). */
  result(value: unknown): void;
  /** A progress tracker for `total` units of work. */
  progress(label: string, total: number): Progress;
};

/** A progress bar on stderr. */
export type Progress = {
  tick(by?: number, note?: string): void;
  done(): void;
};

/** Creates the output for one command invocation. */
export function createOutput({
  json,
  stdout = process.stdout,
  stderr = process.stderr,
}: {
  json: boolean;
  stdout?: NodeJS.WritableStream;
  stderr?: NodeJS.WriteStream | NodeJS.WritableStream;
}): Output {
  const interactive = 'isTTY' in stderr && stderr.isTTY === true && !json;
  return {
    json,
    interactive,
    line(text = '') {
      if (!json) stdout.write(`${text}\n`);
    },
    result(value) {
      if (json) stdout.write(`${JSON.stringify(value, null, 2)}\n`);
    },
    progress(label, total) {
      let count = 0;
      let lastDraw = 0;
      const started = Date.now();
      let lastDecile = 0;
      const draw = (note = '') => {
        if (!interactive) {
          // Logs and pipes: one plain line per tenth of the work.
          const decile = total > 0 ? Math.floor((10 * count) / total) : 0;
          if (json || count === 0 || decile === lastDecile) return;
          lastDecile = decile;
          stderr.write(
            `${label} ${count}/${total} (${Math.round((100 * count) / Math.max(1, total))}%) ${((Date.now() - started) / 1000).toFixed(0)}s${note ? ` ${note}` : ''}\n`,
          );
          return;
        }
        const width = 28;
        const fraction = total > 0 ? Math.min(1, count / total) : 1;
        const filled = Math.round(fraction * width);
        const elapsed = (Date.now() - started) / 1000;
        const eta = count > 0 ? (elapsed / count) * (total - count) : 0;
        stderr.write(
          `\r${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${count}/${total} ${elapsed.toFixed(0)}s${
            count > 0 && count < total ? ` eta ${eta.toFixed(0)}s` : ''
          }${note ? ` ${note}` : ''}\u001b[K`,
        );
      };
      draw();
      return {
        tick(by = 1, note) {
          count += by;
          const now = Date.now();
          if (now - lastDraw > 100 || count >= total) {
            lastDraw = now;
            draw(note);
          }
        },
        done() {
          if (interactive) stderr.write('\r\u001b[K');
        },
      };
    },
  };
}
