-- The certification outbox's door (CONTRACT section 14, migration 0038): each sale, void and refund
-- appended to the chain of a shop whose certification is on gets its outbox row in the same
-- transaction, and the shop's delivery job is woken. A shop without certification pays one probe of
-- its settings row per record.

-- Wakes the shop's delivery job (worker/tasks/fiscal__certify.ts): one job per shop (its key), in a
-- queue of its own so that a shop's records go one at a time. A job already waiting keeps its time
-- (the authority is down and the job backs off: new sales do not bring it forward) unless `p_now`
-- (the owner asked for a retry). Once per transaction: a pushed backlog of 500 sales wakes it once.
create or replace function fiscal_certification_wake(p_now boolean default false) returns void
  language plpgsql volatile security definer
  set search_path = pg_catalog, public
  set plan_cache_mode = auto
  as $$
declare
  shop uuid := app_shop_id();
begin
  if shop is null or (not p_now and current_setting('app.fiscal_woken', true) = shop::text) then
    return;
  end if;
  perform set_config('app.fiscal_woken', shop::text, true);
  perform graphile_worker.add_job('fiscal__certify', json_build_object('shop_id', shop),
                                  queue_name := 'fiscal:' || shop, job_key := 'fiscal_certify:' || shop,
                                  job_key_mode := case when p_now then 'replace' else 'preserve_run_at' end);
end $$;

create or replace function fiscal_certification_queue() returns trigger
  language plpgsql volatile
  as $$
declare
  chosen text;
begin
  select s.provider into chosen from fiscal_certification_settings s
   where s.shop_id = new.shop_id and s.enabled and s.from_chain_no <= new.chain_no;
  if found then
    insert into fiscal_certifications (shop_id, chain_no, kind, ref_id, provider)
    values (new.shop_id, new.chain_no, new.kind, new.ref_id, chosen);
    perform fiscal_certification_wake();
  end if;
  return null;
end $$;

create or replace trigger fiscal_entries_certify after insert on fiscal_entries
  for each row when (new.kind in ('sale', 'void', 'refund')) execute function fiscal_certification_queue();

-- A record's certification as the API answers it (sales, refunds, sync pull); null when the record
-- is not certified (certification off, or made before it was on). A credit note (a void, a refund)
-- names the authority number of the sale it corrects. PL/pgSQL so that its plan is kept for the
-- session (a SQL function with subqueries is parsed and planned at every call: tests/sales/plans.test.ts).
create or replace function fiscal_certification_json(p_shop_id uuid, p_ref_id uuid, p_kind text) returns jsonb
  language plpgsql stable
  as $$
begin
  return (select jsonb_build_object(
           'status', c.status, 'authority_no', c.authority_no, 'signature', c.signature, 'qr', c.qr,
           'certified_at', iso_time(c.certified_at), 'error', c.error, 'error_message', c.error_detail,
           'original_authority_no', case when c.kind <> 'sale' then (
             select o.authority_no from fiscal_certifications o
              where o.shop_id = c.shop_id and o.kind = 'sale'
                and o.ref_id = case when c.kind = 'void' then c.ref_id else (select r.sale_id from refunds r where r.shop_id = c.shop_id and r.id = c.ref_id) end) end)
    from fiscal_certifications c
   where c.shop_id = p_shop_id and c.ref_id = p_ref_id and c.kind = p_kind);
end $$;
