/**
 * Runs the cataloged schedules on a timer, as EventBridge rules do in AWS (with an
 * EventBridge-shaped scheduled event). A run that is still going when the next is due is
 * skipped rather than overlapped.
 */
import { randomUUID } from 'node:crypto';
import { type ScheduleDef, schedules } from '../../shared/catalog/functions';
import { SERVICE_ACCOUNT } from './customer-account/account';
import { invoke } from './lambda';

export class LocalScheduler {
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly running = new Set<string>();

  constructor(
    private readonly prefix: string,
    /** Local override of every rate, so transitional states resolve quickly in development. */
    private readonly intervalMs: (def: ScheduleDef) => number,
    private readonly onError: (name: string, error: unknown) => void,
  ) {}

  start(): void {
    for (const def of schedules as readonly ScheduleDef[]) {
      const run = () => void this.runOnce(def);
      this.timers.push(setInterval(run, this.intervalMs(def)));
      setImmediate(run);
    }
  }

  async runOnce(def: ScheduleDef): Promise<void> {
    if (this.running.has(def.name)) return;
    this.running.add(def.name);
    try {
      await invoke(
        {
          handler: def.handler,
          name: `${this.prefix}-${def.name}`,
          timeoutSeconds: def.timeoutSeconds,
          access: def,
        },
        {
          version: '0',
          id: randomUUID(),
          'detail-type': 'Scheduled Event',
          source: 'aws.events',
          account: SERVICE_ACCOUNT,
          time: new Date().toISOString(),
          region: 'us-east-1',
          resources: [],
          detail: {},
        },
      );
    } catch (error) {
      this.onError(def.name, error);
    } finally {
      this.running.delete(def.name);
    }
  }

  stop(): void {
    for (const timer of this.timers) clearInterval(timer);
  }
}
