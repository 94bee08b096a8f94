import type { Config } from '../../config.ts';
import { mtnMomo } from './mtn-momo.ts';
import { pawaPay } from './pawapay.ts';
import { simulator } from './simulator.ts';
import type { ChargeMethod, MobileMoneyProvider, ProviderName } from './types.ts';

export type { ChargeMethod, FailureReason, MobileMoneyProvider, PaymentRequest, PaymentStatus, PayerCheck, ProviderName, RequestOutcome } from './types.ts';

/** The providers of one configuration, built once per process (a connector keeps its access token). */
const built = new WeakMap<Config, Record<ProviderName, MobileMoneyProvider>>();

function providersOf(config: Config): Record<ProviderName, MobileMoneyProvider> {
  let providers = built.get(config);
  if (!providers) {
    providers = { simulator, mtn_momo: mtnMomo(config), pawapay: pawaPay(config) };
    built.set(config, providers);
  }
  return providers;
}

export const isProviderName = (name: string): name is ProviderName => name === 'simulator' || name === 'mtn_momo' || name === 'pawapay';

/** The provider a charge was sent to: it is always asked there, whatever the configuration says now. */
export function providerNamed(config: Config, name: string): MobileMoneyProvider {
  if (!isProviderName(name)) throw new Error(`unknown mobile-money provider ${name}`);
  return providersOf(config)[name];
}

/** The provider of `method`: its own (MOBILE_MONEY_PROVIDER_<METHOD>), else MOBILE_MONEY_PROVIDER. */
export function providerNameFor(config: Config, method: ChargeMethod): ProviderName {
  return (method === 'carrier1_momo' ? config.MOBILE_MONEY_PROVIDER_CARRIER1_MOMO : config.MOBILE_MONEY_PROVIDER_CARRIER2_MONEY) ?? config.MOBILE_MONEY_PROVIDER;
}

/** The provider a new charge of `method` goes to. */
export function providerFor(config: Config, method: ChargeMethod): MobileMoneyProvider {
  return providersOf(config)[providerNameFor(config, method)];
}
