/**
 * Runs tasks one at a time, in the order they were handed in. A task that
 * fails rejects its own promise only: the next task still runs.
 */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.tail.then(task, task);
    this.tail = result.catch(() => undefined);
    return result;
  }
}

/**
 * The queue of every WebGPU policy in this process. ORT's WebGPU execution
 * provider keeps one device context per process, shared by the sessions of
 * all worker threads, and its command encoder is not safe across threads: a
 * run's policy and its frozen baseline rolling out at once on an H100 broke
 * Dawn's command encoding ("Command encoding already finished") and crashed
 * the process (reported upstream as microsoft/onnxruntime#32561). So WebGPU
 * policies take turns, request by request; the CPU and CUDA providers run
 * their sessions concurrently as before.
 */
export const webgpuQueue = new SerialQueue();
