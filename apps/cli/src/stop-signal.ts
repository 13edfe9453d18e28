/**
 * Waits for SIGINT or SIGTERM so that a server can finish what is in flight
 * before it closes. bin.ts exits at once on SIGINT; its listeners are set
 * aside while waiting and put back afterwards, so a second Ctrl-C while the
 * server closes gets the immediate exit back.
 */
export async function waitForStopSignal(): Promise<NodeJS.Signals> {
  const previous = process.listeners('SIGINT');
  process.removeAllListeners('SIGINT');
  const handlers: Partial<Record<NodeJS.Signals, () => void>> = {};
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    for (const name of ['SIGINT', 'SIGTERM'] as const) {
      handlers[name] = () => resolve(name);
      process.once(name, handlers[name]);
    }
  });
  for (const [name, handler] of Object.entries(handlers))
    process.off(name, handler);
  for (const listener of previous)
    process.on('SIGINT', listener as NodeJS.SignalsListener);
  return signal;
}
