import type { Config } from '../../config.ts';
import { emecef } from './emecef.ts';
import { fne } from './fne.ts';
import { simulator } from './simulator.ts';
import type { FiscalProvider, FiscalProviderName } from './types.ts';

export type * from './types.ts';

/** The connectors of one configuration, built once per process. */
const built = new WeakMap<Config, Record<FiscalProviderName, FiscalProvider>>();

/** The connector a record was queued for: it is always delivered there, whatever the configuration says now. */
export function fiscalProvider(config: Config, name: FiscalProviderName): FiscalProvider {
  let providers = built.get(config);
  if (!providers) {
    providers = { simulator, emecef: emecef(config), fne: fne(config) };
    built.set(config, providers);
  }
  return providers[name];
}
