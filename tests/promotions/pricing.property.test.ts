import assert from 'node:assert/strict';
import fc from 'fast-check';
import t from 'tap';
import { registerShop } from '../support/fixtures.ts';
import { startService } from '../support/service.ts';
import { createCategory, createProduct, createPromotion, deletePromotion, priced, productWithVariants, setShop, type PreviewItem } from './promotion-fixtures.ts';

const api = await startService(t);

/**
 * Random promotions against random baskets at random instants, each preview checked against a model
 * of the pricing rule written from the comments of db/migrations/0005_promotions.sql (the kinds) and
 * db/functions/promotions/promotion_discounts.sql (the rule). Fixed seed so
 * CI is reproducible; FC_SEED replays another run, FC_RUNS changes how many.
 */
const SEED = Number(process.env.FC_SEED ?? 20_240_613);
const RUNS = Number(process.env.FC_RUNS ?? 30);

/** The shop's zone: +05:30 all year, so local days and hours differ from UTC by a non-whole hour. */
const ZONE_OFFSET_MS = 330 * 60_000;
/** A Monday; instants and promotion bounds fall within the two weeks after it. */
const BASE_MS = Date.parse('2025-06-02T00:00:00Z');
const HOUR_MS = 3_600_000;

const owner = await registerShop(api);
await setShop(api, owner, { timezone: 'Asia/Kolkata' });
const categories = [await createCategory(api, owner.token), await createCategory(api, owner.token)];
const plain = [
  await createProduct(api, owner.token, { price_xaf: 1230, category_id: categories[0].id }),
  await createProduct(api, owner.token, { price_xaf: 999, category_id: categories[0].id }),
  await createProduct(api, owner.token, { price_xaf: 15_000, category_id: categories[1].id }),
  await createProduct(api, owner.token, { price_xaf: 450 }),
];
const sized = await productWithVariants(api, owner.token, { M: 2500, L: 2750 }, { price_xaf: 2400, category_id: categories[1].id });

/** What a basket line can name: a product alone, or a product with one of its variants. */
interface Sku {
  productId: string;
  variantId: string | null;
  categoryId: string | null;
  price: number;
}
const skus: Sku[] = [
  ...plain.map((p) => ({ productId: p.id, variantId: null, categoryId: p.category_id, price: p.price_xaf })),
  { productId: sized.product.id, variantId: null, categoryId: categories[1].id, price: 2400 },
  ...Object.values(sized.variants).map((v: any) => ({ productId: sized.product.id, variantId: v.id, categoryId: categories[1].id, price: v.price_xaf })),
];
const productIds = [...plain.map((p) => p.id), sized.product.id];
const categoryIds = categories.map((c) => c.id);
const variantIds = Object.values(sized.variants).map((v: any) => v.id as string);

// Generators

type Kind = 'percent' | 'amount_xaf' | 'price_xaf' | 'buy_x_get_y';

interface PromotionSpec {
  kind: Kind;
  value: number;
  product_ids: string[];
  category_ids: string[];
  variant_ids: string[];
  min_quantity: number;
  min_total_xaf: number;
  starts_at: string | null;
  ends_at: string | null;
  days_of_week: number[] | null;
  starts_time: string | null;
  ends_time: string | null;
  active: boolean;
  deleted: boolean;
}

const subset = (ids: string[]) => fc.subarray(ids);
const hhmm = (minutes: number) => `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
const instant = (hours: number) => new Date(BASE_MS + hours * HOUR_MS).toISOString();
/** Null three times in four, so that most promotions are live most of the time and compete. */
const sometimes = <T>(arbitrary: fc.Arbitrary<T>) => fc.oneof({ weight: 3, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: arbitrary });

const valueOf: Record<Kind, fc.Arbitrary<number>> = {
  percent: fc.integer({ min: 1, max: 10_000 }).map((cents) => cents / 100),
  amount_xaf: fc.integer({ min: 1, max: 3000 }),
  price_xaf: fc.integer({ min: 0, max: 20_000 }),
  buy_x_get_y: fc.integer({ min: 1, max: 3 }),
};

const promotionSpec: fc.Arbitrary<PromotionSpec> = fc
  .constantFrom<Kind>('percent', 'amount_xaf', 'price_xaf', 'buy_x_get_y')
  .chain((kind) =>
    fc.record({
      kind: fc.constant(kind),
      value: valueOf[kind],
      product_ids: subset(productIds),
      category_ids: subset(categoryIds),
      variant_ids: subset(variantIds),
      min_quantity:
        kind === 'buy_x_get_y'
          ? fc.integer({ min: 1, max: 4 })
          : fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 5000 }).map((m) => m / 1000) }),
      min_total_xaf: fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 60_000 }) }),
      window: sometimes(fc.tuple(fc.option(fc.integer({ min: 0, max: 336 })), fc.integer({ min: 1, max: 336 }))),
      days_of_week: sometimes(fc.uniqueArray(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 6 })),
      hours: sometimes(fc.tuple(fc.integer({ min: 0, max: 1439 }), fc.integer({ min: 1, max: 1439 }))),
      active: fc.oneof({ weight: 6, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
      deleted: fc.oneof({ weight: 6, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    }),
  )
  .map(({ window, hours, ...spec }) => {
    // Only a percent may cover the whole sale: the other kinds name at least one product.
    const targeted = spec.product_ids.length + spec.category_ids.length + spec.variant_ids.length > 0;
    const product_ids = targeted || spec.kind === 'percent' ? spec.product_ids : [productIds[0]!];
    const [start, length] = window ?? [null, 0];
    return {
      ...spec,
      product_ids,
      starts_at: window && start !== null ? instant(start) : null,
      ends_at: window ? instant((start ?? 0) + length) : null,
      starts_time: hours ? hhmm(hours[0]) : null,
      ends_time: hours ? hhmm((hours[0] + hours[1]) % 1440) : null,
    };
  });

const line = fc.record({
  sku: fc.nat(skus.length - 1),
  milli: fc.integer({ min: 1, max: 20_000 }),
  price: sometimes(fc.integer({ min: 0, max: 50_000 })),
  discount: sometimes(fc.integer({ min: 0, max: 30_000 })),
});

// The model

/** round(numerator / denominator) half away from zero, for numerator >= 0, in exact integers. */
const roundDiv = (numerator: number, denominator: number) => Math.floor((2 * numerator + denominator) / (2 * denominator));

/** promotion_line_discount: never more than the net, never negative. */
function lineDiscount(p: PromotionSpec, milli: number, unitPrice: number, net: number): number {
  let discount: number;
  if (p.kind === 'percent') discount = roundDiv(net * Math.round(p.value * 100), 10_000);
  else if (p.kind === 'amount_xaf') discount = roundDiv(milli * p.value, 1000);
  else if (p.kind === 'price_xaf') discount = roundDiv(milli * unitPrice, 1000) - roundDiv(milli * p.value, 1000);
  else discount = Math.floor(milli / ((p.min_quantity + p.value) * 1000)) * p.value * unitPrice;
  return Math.max(0, Math.min(net, discount));
}

/** Live at `atMs`: active, not deleted, within its dates, on one of its days and within its hours, in the shop's time. */
function live(p: PromotionSpec, atMs: number): boolean {
  if (!p.active || p.deleted) return false;
  if (p.starts_at !== null && Date.parse(p.starts_at) > atMs) return false;
  if (p.ends_at !== null && atMs >= Date.parse(p.ends_at)) return false;
  const local = new Date(atMs + ZONE_OFFSET_MS);
  if (p.days_of_week !== null && !p.days_of_week.includes(local.getUTCDay() || 7)) return false;
  if (p.starts_time !== null && p.ends_time !== null) {
    const ms = (local.getUTCHours() * 60 + local.getUTCMinutes()) * 60_000 + local.getUTCSeconds() * 1000 + local.getUTCMilliseconds();
    const [start, end] = [p.starts_time, p.ends_time].map((time) => (Number(time.slice(0, 2)) * 60 + Number(time.slice(3))) * 60_000) as [number, number];
    const inside = start <= end ? ms >= start && ms < end : ms >= start || ms < end;
    if (!inside) return false;
  }
  return true;
}

function covers(p: PromotionSpec, sku: Sku, milli: number): boolean {
  const wholeSale = p.product_ids.length + p.category_ids.length + p.variant_ids.length === 0;
  const named =
    wholeSale ||
    p.product_ids.includes(sku.productId) ||
    (sku.categoryId !== null && p.category_ids.includes(sku.categoryId)) ||
    (sku.variantId !== null && p.variant_ids.includes(sku.variantId));
  return named && (p.kind === 'buy_x_get_y' || milli >= Math.round(p.min_quantity * 1000));
}

// The property

t.test('the pricing rule: the single best live promotion per line, never stacked, never a negative total, totals that add up', async (t) => {
  let applied = 0;
  let contested = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.array(promotionSpec, { minLength: 1, maxLength: 5 }),
      fc.array(line, { minLength: 1, maxLength: 5 }),
      fc.integer({ min: 0, max: 14 * 24 * 3600 - 1 }),
      async (specs, lines, seconds) => {
        await api.ownerSql`delete from promotions where shop_id = ${owner.shop.id}`;
        const ids: string[] = [];
        for (const spec of specs) {
          const { deleted: _deleted, ...body } = spec;
          const created = await createPromotion(api, owner.token, body);
          ids.push(created.id);
          if (spec.deleted) assert.equal((await deletePromotion(api, owner.token, created.id)).status, 204);
        }
        const atMs = BASE_MS + seconds * 1000;
        const items: PreviewItem[] = lines.map((l) => ({
          product_id: skus[l.sku]!.productId,
          variant_id: skus[l.sku]!.variantId,
          quantity: l.milli / 1000,
          unit_price_xaf: l.price,
          discount_xaf: l.discount,
        }));
        const data = await priced(api, owner.token, items, new Date(atMs).toISOString());

        const model = lines.map((l) => {
          const sku = skus[l.sku]!;
          const unitPrice = l.price ?? sku.price;
          const gross = roundDiv(l.milli * unitPrice, 1000);
          const manual = Math.min(l.discount ?? 0, gross);
          return { sku, milli: l.milli, unitPrice, gross, manual, net: gross - manual };
        });
        const basketNet = model.reduce((sum, m) => sum + m.net, 0);
        assert.equal(data.items.length, lines.length, 'one answer per line');
        model.forEach((m, index) => {
          const answer = data.items[index];
          const candidates = specs
            .map((spec, order) => ({ id: ids[order]!, order, discount: lineDiscount(spec, m.milli, m.unitPrice, m.net), spec }))
            .filter(({ spec }) => live(spec, atMs) && spec.min_total_xaf <= basketNet && covers(spec, m.sku, m.milli))
            .filter((c) => c.discount > 0);
          const best = Math.max(0, ...candidates.map((c) => c.discount));
          const winner = candidates.find((c) => c.discount === best) ?? null;
          const label = `line ${index} at ${new Date(atMs).toISOString()}`;
          assert.equal(answer.index, index, `${label}: index`);
          assert.equal(answer.unit_price_xaf, m.unitPrice, `${label}: unit price`);
          assert.equal(answer.gross_xaf, m.gross, `${label}: gross`);
          assert.equal(answer.discount_xaf, m.manual, `${label}: manual discount`);
          assert.equal(answer.promotion_discount_xaf, best, `${label}: the largest discount of the ${candidates.length} applicable promotions`);
          assert.equal(answer.promotion_id, winner?.id ?? null, `${label}: the oldest of the best`);
          if (answer.promotion_id !== null) {
            const order = ids.indexOf(answer.promotion_id);
            assert.equal(lineDiscount(specs[order]!, m.milli, m.unitPrice, m.net), answer.promotion_discount_xaf, `${label}: exactly one promotion's discount`);
          }
          assert.equal(answer.total_xaf, m.gross - m.manual - best, `${label}: total`);
          assert.ok(answer.total_xaf >= 0, `${label}: never negative`);
          if (winner) applied++;
          if (candidates.length > 1) contested++;
        });
        const sum = (key: string) => data.items.reduce((total: number, item: any) => total + item[key], 0);
        assert.equal(data.subtotal_xaf, sum('gross_xaf'), 'subtotal');
        assert.equal(data.total_xaf, sum('total_xaf'), 'total');
        assert.equal(data.discount_xaf, data.subtotal_xaf - data.total_xaf, 'discount');
        assert.equal(data.discount_xaf, sum('discount_xaf') + sum('promotion_discount_xaf'), 'discount: manual and promotions');
      },
    ),
    { seed: SEED, numRuns: RUNS },
  );
  t.ok(applied > 0, `some lines got a promotion (${applied})`);
  t.ok(contested > 0, `some lines had several promotions to choose from (${contested})`);
});
