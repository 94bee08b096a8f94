import type { Logger } from 'pino';
import type { Config } from '../api/config.ts';
import type { Mailer } from './mailer.ts';

/** What tasks are built with. */
export interface WorkerContext {
  config: Config;
  appKey: string;
  mailer: Mailer;
  log: Logger;
}
