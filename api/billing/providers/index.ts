import type { Config } from '../../config.ts';
import { mtnMomo } from './mtn-momo.ts';
import { simulator } from './simulator.ts';
import type { MobileMoneyProvider, PaymentStatus } from './types.ts';

export type { MobileMoneyProvider, PaymentRequest, PaymentStatus } from './types.ts';

export type ProviderName = Config['MOBILE_MONEY_PROVIDER'];

/** The providers of one configuration, built once (the MoMo connector keeps its access token). */
const built = new WeakMap<Config, Record<ProviderName, MobileMoneyProvider>>();

function providersOf(config: Config): Record<ProviderName, MobileMoneyProvider> {
  let providers = built.get(config);
  if (!providers) {
    providers = { simulator, mtn_momo: mtnMomo(config) };
    built.set(config, providers);
  }
  return providers;
}

/** The provider a charge was sent to: it is always polled there. */
export function providerNamed(config: Config, name: string): MobileMoneyProvider {
  const provider = providersOf(config)[name as ProviderName];
  if (!provider) throw new Error(`unknown mobile-money provider ${name}`);
  return provider;
}

/** The provider a new charge of `method` goes to: the method's own (MOBILE_MONEY_PROVIDER_<METHOD>), else MOBILE_MONEY_PROVIDER. */
export function providerFor(config: Config, method: 'carrier1_momo' | 'carrier2_money'): MobileMoneyProvider {
  const name = (method === 'carrier1_momo' ? config.MOBILE_MONEY_PROVIDER_CARRIER1_MOMO : config.MOBILE_MONEY_PROVIDER_CARRIER2_MONEY) ?? config.MOBILE_MONEY_PROVIDER;
  return providersOf(config)[name];
}

/** A charge as stored, as much of it as its provider needs. */
export interface StoredCharge {
  id: string;
  reference: string;
  provider: string;
  amount_xaf: string | number;
  phone: string;
  method: 'carrier1_momo' | 'carrier2_money';
}

/** How a stored charge stands at the provider it was sent to; throws when that provider cannot be asked. */
export function chargeStatus(config: Config, charge: StoredCharge): Promise<PaymentStatus> {
  return providerNamed(config, charge.provider).paymentStatus({
    reference: charge.reference,
    chargeId: charge.id,
    amountXaf: Number(charge.amount_xaf),
    phone: charge.phone,
    method: charge.method,
  });
}
