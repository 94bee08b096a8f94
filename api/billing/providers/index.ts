import type { Config } from '../../config.ts';
import { simulator } from './simulator.ts';
import type { MobileMoneyProvider } from './types.ts';

export type { MobileMoneyProvider, PaymentRequest, PaymentStatus } from './types.ts';

/** The providers by name (`MOBILE_MONEY_PROVIDER`). */
const PROVIDERS: Record<string, MobileMoneyProvider> = { simulator };

/** The provider of a charge: the one named when it was asked (a charge is always polled where it was sent). */
export function providerNamed(name: string): MobileMoneyProvider {
  const provider = PROVIDERS[name];
  if (!provider) throw new Error(`unknown mobile-money provider ${name}`);
  return provider;
}

/** The provider new charges go to. */
export function providerFor(config: Pick<Config, 'MOBILE_MONEY_PROVIDER'>): MobileMoneyProvider {
  return providerNamed(config.MOBILE_MONEY_PROVIDER);
}
