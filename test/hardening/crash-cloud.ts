/**
 * A local cloud of a crash test's own: started durable (tables and queues in its state
 * directory, as `npm start` keeps them), SIGKILLed as a crash would, and started again on the
 * same state. Every process it started is stopped by `stopAll`.
 */
import { expect } from 'vitest';
import { type RunningCloud, startCloudProcess } from '../support/local-cloud-process';
import { type Reply, request } from './support';

export interface CrashableCloud {
  /** The cloud running now (a new one after each restart). */
  readonly current: RunningCloud;
  /** SIGKILLs the cloud's own process, checks it is gone, and starts it again on its state. */
  crashAndRestart(): Promise<void>;
  /** A request to the running cloud's gateway with its admin key. */
  call(method: string, path: string, body?: unknown): Promise<Reply>;
  /** SIGTERM to every cloud started, one after another. */
  stopAll(): Promise<void>;
}

export async function startCrashableCloud(env: Record<string, string>): Promise<CrashableCloud> {
  const started: RunningCloud[] = [];
  const launch = async (stateDir?: string): Promise<RunningCloud> => {
    const cloud = await startCloudProcess({ env, durable: true, ...(stateDir ? { stateDir } : {}) });
    started.push(cloud);
    return cloud;
  };
  let current = await launch();
  return {
    get current() {
      return current;
    },
    async crashAndRestart() {
      process.kill(current.endpoints.pid, 'SIGKILL');
      await current.kill();
      await expect(fetch(`${current.endpoints.gateway}/health`)).rejects.toThrow();
      current = await launch(current.stateDir);
    },
    call: (method, path, body) =>
      request(current.endpoints.gateway, method, path, {
        key: current.adminApiKey,
        ...(body === undefined ? {} : { body }),
      }),
    async stopAll() {
      for (const cloud of started) await cloud.stop();
    },
  };
}
