import { example } from '../lib/examples.ts';

/**
 * The examples of the OpenAPI document for the fiscal chain: Boutique Awa (Africa/Douala) in November 2026.
 * The entry is receipt 2 of api/reports/examples.ts, a bag of rice at 4,300 paid with 5,000 in cash; its
 * `hash` is the real SHA-256 of its `previous_hash` followed by its `content`, as a client recomputes it.
 */

export const FISCAL_ENTRY = example({
  chain_no: 2,
  kind: 'sale',
  ref_id: 'af5399d2-d4fb-4ca5-b689-6bfd9c9ed59b',
  occurred_at: '2026-11-21T09:14:32.139Z',
  recorded_at: '2026-11-21T09:14:32.162Z',
  amount_xaf: 4300,
  previous_hash: '41038cfb89d8c14f95671f92f77fa016cfd3e24c40b93c8ca31fb4f5483c9b3d',
  hash: '5a91f58a194caa0229279bc2d014e8f5325288a6dd1abe8563805c130d590415',
  content:
    '{"cashier_id":"bd4ff92b-52e9-4a8d-a6cd-c248e0551b2b","created_at":"2026-11-21T09:14:32.139Z",' +
    '"lines":[{"discount_xaf":0,"item_id":"52e91395-3b7b-40b6-bc80-e88c47c19a6a","name":"Riz parfumé 5 kg",' +
    '"quantity":"1","total_xaf":4300,"unit_price_xaf":4300,"vat_rate":"19.25","vat_xaf":694}],' +
    '"payments":[{"amount_xaf":5000,"kind":"payment","method":"cash"},{"amount_xaf":-700,"kind":"change","method":"cash"}],' +
    '"receipt_no":2,"sale_id":"af5399d2-d4fb-4ca5-b689-6bfd9c9ed59b","totals":{"change_xaf":700,"credit_xaf":0,"discount_xaf":0,"paid_xaf":5000,' +
    '"subtotal_xaf":4300,"total_xaf":4300,"vat_xaf":694},"vat":[{"base_xaf":3606,"rate":"19.25","vat_xaf":694}]}',
});

export const FISCAL_INTEGRITY = example({
  ok: false,
  checked: 412,
  first: { chain_no: 1, hash: 'a7937b64b8caa58f03721bb6bacf5c78cb235febe0e70b1b84cd99541461a08e' },
  last: { chain_no: 412, hash: '17d1118cf12458637c47d2e4f622479ff81f49b48891815de22e69b8ed23fe2c' },
  broken: [{ chain_no: 2, kind: 'sale', ref_id: 'af5399d2-d4fb-4ca5-b689-6bfd9c9ed59b', reason: 'content_changed' }],
  broken_count: 1,
});

export const FISCAL_CLOSING = example({
  id: '0b6f3f7e-5d0c-4f57-9a77-3f1f2f3c9a41',
  period: 'month',
  starts_on: '2026-11-01',
  ends_on: '2026-11-30',
  total_xaf: 3_486_250,
  cumulative_total_xaf: 11_902_400,
  first_chain_no: 1089,
  last_chain_no: 1500,
  chain_no: 1501,
  hash: 'eb44bc548c09af0ddadf26d69ae0cb45f5aceb0a25f45b10d4b7b50f2613c64a',
  sealed_at: '2026-11-30T23:10:03.418Z',
});

export const ARCHIVE_PUBLIC_KEY = example({ public_key: 'RCmTBlAEqh5MSPTdAVgZTAI0m8xmTNluQA6iaZGKjVE=' });

export const ARCHIVE_SIGNATURE = 'AHPsJm1PtK2/PRBKpxT58RAy/Yq22IKfxAtSyG9khdeSjMLr1GRvP+PzdL4R2QW/S+J1+obziJ2CqffcXkHdMg==';
