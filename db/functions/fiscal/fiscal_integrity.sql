-- GET /fiscal/integrity (CONTRACT section 13): checks the calling shop's chain between two days of its
-- time zone (either may be null: from the first entry, to the last), in a few set-based statements:
-- - each entry's content is recomputed from the business rows as they are now (fiscal_content.sql):
--   the record gone is `record_missing`; another text, another amount, or a record that names another
--   entry is `content_changed`;
-- - each hash is recomputed from the entry's previous_hash and content, and each previous_hash compared
--   with the hash of the entry before (entry 1: empty): `hash_mismatch`;
-- - a position with no entry (a gap, or the chain shorter than the counter says) and a record with no
--   entry of its own are `missing_entry` (named by the record that lost it, when one did).
-- Each link is checked on its own, so a range needs nothing before it. Answers {"ok", "checked",
-- "first", "last", "broken"} (at most 1000 broken entries listed, broken_count says how many).
-- JIT off: the work is in the content functions, which JIT does not compile; compiling the statement
-- cost about 0.9 s a check at any size.
create or replace function fiscal_integrity(p_from date default null, p_to date default null) returns jsonb
  language plpgsql stable
  set jit = off
  as $$
declare
  shop shops;
  chain_length bigint;
  range_from timestamptz;
  range_to timestamptz;
  first_no bigint;
  last_no bigint;
  checked bigint;
  broken jsonb;
  broken_count bigint;
begin
  select * into shop from shops where id = app_shop_id();
  chain_length := coalesce((select c.chain_no from receipt_counters c where c.shop_id = shop.id), 0);
  range_from := p_from::timestamp at time zone shop.timezone;
  range_to := (p_to + 1)::timestamp at time zone shop.timezone;
  select min(e.chain_no), max(e.chain_no), count(*) into first_no, last_no, checked
    from fiscal_entries e
   where e.shop_id = shop.id and (range_from is null or e.recorded_at >= range_from) and (range_to is null or e.recorded_at < range_to);

  with entries as (
    select e.*, lag(e.chain_no) over (order by e.chain_no) as prior_no, lag(e.hash) over (order by e.chain_no) as prior_hash
      from fiscal_entries e
     where e.shop_id = shop.id and e.chain_no between first_no - 1 and last_no
  ), judged as (
    select e.chain_no, e.kind, e.ref_id,
           case
             when found.content is null then 'record_missing'
             when found.content <> e.content or found.amount_xaf <> e.amount_xaf or found.chain_no is distinct from e.chain_no then 'content_changed'
             when fiscal_hash(e.previous_hash, e.content) <> e.hash
               or (e.chain_no = 1 and e.previous_hash <> '')
               or (e.prior_no = e.chain_no - 1 and e.previous_hash <> e.prior_hash) then 'hash_mismatch'
           end as reason
      from entries e
      left join lateral (
        select fiscal_sale_content(s) as content, s.total_xaf as amount_xaf, s.chain_no
          from sales s where e.kind = 'sale' and s.id = e.ref_id
        union all
        select fiscal_void_content(s), -s.total_xaf, s.void_chain_no
          from sales s where e.kind = 'void' and s.id = e.ref_id and s.voided_at is not null
        union all
        select fiscal_refund_content(r), -r.total_xaf, r.chain_no
          from refunds r where e.kind = 'refund' and r.id = e.ref_id
        union all
        select fiscal_z_content(z), 0, z.chain_no
          from z_reports z where e.kind = 'z' and z.id = e.ref_id
        union all
        select fiscal_closing_content(c), 0, c.chain_no
          from fiscal_closings c where e.kind = 'closing' and c.shop_id = e.shop_id and c.id = e.ref_id
      ) found on true
     where e.chain_no >= first_no
  ), gaps as (
    -- Inside the range, and before it or after it when the range starts at the chain's start or ends at its end.
    select g.chain_no from entries e, generate_series(e.prior_no + 1, e.chain_no - 1) as g (chain_no)
     where e.chain_no >= first_no and e.prior_no < e.chain_no - 1
    union all
    select g.chain_no from generate_series(1, coalesce(first_no, (select min(x.chain_no) from fiscal_entries x where x.shop_id = shop.id), chain_length + 1) - 1) as g (chain_no) where p_from is null
    union all
    select g.chain_no from generate_series(coalesce(last_no, chain_length) + 1, chain_length) as g (chain_no) where p_to is null and last_no is not null
  ), orphans as (
    -- Records of the range whose entry is not where they say.
    select s.chain_no, 'sale' as kind, s.id as ref_id from sales s
     where s.shop_id = shop.id and (range_from is null or s.recorded_at >= range_from) and (range_to is null or s.recorded_at < range_to)
       and not exists (select 1 from fiscal_entries x where x.shop_id = s.shop_id and x.chain_no = s.chain_no and x.kind = 'sale' and x.ref_id = s.id)
    union all
    select s.void_chain_no, 'void', s.id from sales s
     where s.shop_id = shop.id and s.voided_at is not null
       and (range_from is null or s.voided_at >= range_from) and (range_to is null or s.voided_at < range_to)
       and not exists (select 1 from fiscal_entries x where x.shop_id = s.shop_id and x.chain_no = s.void_chain_no and x.kind = 'void' and x.ref_id = s.id)
    union all
    select r.chain_no, 'refund', r.id from refunds r
     where r.shop_id = shop.id and (range_from is null or r.created_at >= range_from) and (range_to is null or r.created_at < range_to)
       and not exists (select 1 from fiscal_entries x where x.shop_id = r.shop_id and x.chain_no = r.chain_no and x.kind = 'refund' and x.ref_id = r.id)
    union all
    select z.chain_no, 'z', z.id from z_reports z
     where z.shop_id = shop.id and (range_from is null or z.sealed_at >= range_from) and (range_to is null or z.sealed_at < range_to)
       and not exists (select 1 from fiscal_entries x where x.shop_id = z.shop_id and x.chain_no = z.chain_no and x.kind = 'z' and x.ref_id = z.id)
  ), missing as (
    select coalesce(g.chain_no, o.chain_no) as chain_no, o.kind, o.ref_id, 'missing_entry' as reason
      from gaps g full join orphans o on o.chain_no = g.chain_no
  ), found_broken as (
    select chain_no, kind, ref_id, reason from judged where reason is not null
    union all
    select chain_no, kind, ref_id, reason from missing
  )
  select coalesce(jsonb_agg(jsonb_build_object('chain_no', b.chain_no, 'kind', b.kind, 'ref_id', b.ref_id, 'reason', b.reason)
                            order by b.chain_no nulls last, b.kind, b.ref_id) filter (where b.position <= 1000), '[]'),
         count(*)
    into broken, broken_count
    from (select f.*, row_number() over (order by f.chain_no nulls last, f.kind, f.ref_id) as position from found_broken f) b;

  return jsonb_build_object(
    'ok', broken_count = 0,
    'checked', checked,
    'first', (select jsonb_build_object('chain_no', e.chain_no, 'hash', e.hash) from fiscal_entries e where e.shop_id = shop.id and e.chain_no = first_no),
    'last', (select jsonb_build_object('chain_no', e.chain_no, 'hash', e.hash) from fiscal_entries e where e.shop_id = shop.id and e.chain_no = last_no),
    'broken', broken,
    'broken_count', broken_count);
end $$;
