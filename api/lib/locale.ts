import type { Context } from 'hono';
import type { AppEnv, Caller } from '../env.ts';

export type Locale = 'fr' | 'en';

/**
 * The first of French and English an `Accept-Language` header asks for, by q-value, then by order
 * (`fr-CM`, `fr-FR` are French; `en-US` is English); undefined when it names neither.
 */
export function acceptedLocale(header: string | undefined): Locale | undefined {
  let best: { locale: Locale; q: number } | undefined;
  for (const range of (header ?? '').split(',')) {
    const [tag = '', ...params] = range.trim().split(';');
    const language = tag.trim().toLowerCase().split('-')[0];
    if (language !== 'fr' && language !== 'en') continue;
    const qParam = params.map((p) => p.trim()).find((p) => p.toLowerCase().startsWith('q='));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    if (!(q > 0)) continue;
    if (!best || q > best.q) best = { locale: language, q };
  }
  return best?.locale;
}

/** The language the request asks for: its `Accept-Language`, else English. */
export function requestLocale(c: Context<AppEnv>): Locale {
  return acceptedLocale(c.req.header('accept-language')) ?? 'en';
}

/**
 * The language of an answer: the authenticated user's `locale`, else the request's. Errors raised
 * before authentication have no user: they follow the request.
 */
export function callerLocale(c: Context<AppEnv>): Locale {
  const caller = c.get('caller') as Caller | undefined;
  return caller?.locale ?? requestLocale(c);
}
