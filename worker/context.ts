import type { Logger } from 'pino';
import type { Config } from '../api/config.ts';
import type { Mailer } from './mailer.ts';

/** What tasks are built with. */
export interface WorkerContext {
  config: Config;
  appKey: string;
  /** The schema owner's connection string, for tasks that need postgres.js (the API's queries). */
  ownerUrl: string;
  mailer: Mailer;
  log: Logger;
  /** Aborted at the shutdown's deadline: calls to other companies still waiting are cut, so that their jobs end before the pools do. */
  cut?: AbortSignal;
}
