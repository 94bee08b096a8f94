-- Customers, their credit accounts (debts, settlements and their allocation), loyalty cards, the
-- points ledger and the tier ladder. Customers and tiers are pulled by the tills (txid, deleted_at).

create table customers (
  id uuid primary key default gen_random_uuid(),
  shop_id uuid not null default app_shop_id() references shops (id),
  name text not null check (char_length(name) between 1 and 160),
  search_name text not null default '',
  phone text check (char_length(phone) <= 40),
  email text check (char_length(email) <= 160),
  note text check (char_length(note) <= 255),
  credit_ceiling_xaf bigint not null default 0 check (credit_ceiling_xaf >= 0),
  -- Maintained by customer_charge / customer_settle: what the customer owes now.
  balance_xaf bigint not null default 0 check (balance_xaf >= 0),
  -- Maintained by loyalty_post: the sum of the customer's points ledger.
  points bigint not null default 0 check (points >= 0),
  card_no text check (char_length(card_no) between 1 and 60),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  deleted_at timestamptz,
  txid xid8 not null default pg_current_xact_id()
);
create unique index customers_card_key on customers (shop_id, card_no) where deleted_at is null and card_no is not null;
create index customers_list_idx on customers (shop_id, name, id) where deleted_at is null;
create index customers_phone_idx on customers (shop_id, phone) where deleted_at is null;
create index customers_search_idx on customers using gin (search_name gin_trgm_ops) where deleted_at is null;
create index customers_sync_idx on customers (shop_id, txid, id);
create trigger customers_touch before update on customers for each row execute function touch_updated_at();
create trigger customers_stamp before update on customers for each row execute function stamp_txid();
alter table customers enable row level security;
create policy customers_tenant on customers using (shop_id = app_shop_id()) with check (shop_id = app_shop_id());

create trigger customers_search_name before insert or update of name on customers
  for each row execute function set_search_name();

-- Customers of the caller's shop matching q (as typed): accent-free name containing it, phone
-- starting with it, or exactly its card number. A SECURITY DEFINER function for the same reason as
-- products_matching_name: under row-level security LIKE cannot use the indexes.
create function customers_matching(p_text text)
  returns table (id uuid)
  language sql stable security definer
  set search_path = pg_catalog, public
  as $$
    select c.id from customers c
     where c.shop_id = app_shop_id() and c.deleted_at is null
       and (c.search_name like '%' || search_text(like_escape(p_text)) || '%'
            or c.phone like like_escape(p_text) || '%'
            or c.card_no = p_text)
$$;

-- What a customer owes, one row per credit sale (or other charge), settled oldest first.
create table customer_debts (
  id uuid primary key default gen_random_uuid(),
  shop_id uuid not null default app_shop_id() references shops (id),
  customer_id uuid not null references customers (id),
  source_type text not null check (char_length(source_type) between 1 and 40),
  source_id uuid,
  -- 0 once a void or a refund to the account has cancelled it all.
  amount_xaf bigint not null check (amount_xaf >= 0),
  settled_xaf bigint not null default 0 check (settled_xaf >= 0),
  occurred_at timestamptz not null default now(),
  created_at timestamptz not null default now(),
  check (settled_xaf <= amount_xaf)
);
create index customer_debts_open_idx on customer_debts (customer_id, occurred_at, id) where settled_xaf < amount_xaf;
create index customer_debts_source_idx on customer_debts (shop_id, source_type, source_id);
alter table customer_debts enable row level security;
create policy customer_debts_tenant on customer_debts using (shop_id = app_shop_id()) with check (shop_id = app_shop_id());

create table customer_payments (
  id uuid primary key default gen_random_uuid(),
  shop_id uuid not null default app_shop_id() references shops (id),
  customer_id uuid not null references customers (id),
  amount_xaf bigint not null check (amount_xaf > 0),
  method text not null check (method in ('cash', 'carrier1_momo', 'carrier2_money', 'card', 'bank')),
  note text check (char_length(note) <= 255),
  user_id uuid references users (id) default app_user_id(),
  created_at timestamptz not null default now()
);
create index customer_payments_customer_idx on customer_payments (customer_id, created_at desc, id desc);
alter table customer_payments enable row level security;
create policy customer_payments_tenant on customer_payments using (shop_id = app_shop_id()) with check (shop_id = app_shop_id());
revoke update, delete on customer_payments from pos_app;

create table customer_payment_allocations (
  id bigint generated always as identity primary key,
  shop_id uuid not null default app_shop_id() references shops (id),
  payment_id uuid not null references customer_payments (id),
  debt_id uuid not null references customer_debts (id),
  amount_xaf bigint not null check (amount_xaf > 0)
);
create index customer_payment_allocations_payment_idx on customer_payment_allocations (payment_id);
alter table customer_payment_allocations enable row level security;
create policy customer_payment_allocations_tenant on customer_payment_allocations using (shop_id = app_shop_id()) with check (shop_id = app_shop_id());
revoke update, delete on customer_payment_allocations from pos_app;

-- The treasury account a payment method lands in (SYSCOHADA): cash 571, card and bank 521,
-- mobile money 585.
create function treasury_account(p_method text) returns text
  language sql immutable parallel safe
  as $$
    select case p_method when 'cash' then '571' when 'card' then '521' when 'bank' then '521'
                         when 'carrier1_momo' then '585' when 'carrier2_money' then '585' end
$$;

-- Adds a charge to a customer's account (the sales procedure calls it for the unpaid part of a credit
-- sale). Refused beyond the credit ceiling: 422 credit_limit_exceeded on p_field. Journal entries are
-- the caller's (the sale posts 411 against its own accounts).
create function customer_charge(p_customer_id uuid, p_source_type text, p_source_id uuid, p_amount_xaf bigint,
                                p_occurred_at timestamptz default now(), p_field text default 'customer_id',
                                p_enforce_ceiling boolean default true)
  returns customer_debts
  language plpgsql volatile
  as $$
declare
  customer customers;
  debt customer_debts;
begin
  select * into customer from customers where id = p_customer_id and deleted_at is null for update;
  if not found then
    perform raise_app_error(422, 'validation_failed', 'No such customer in this shop.', p_field);
  end if;
  if p_enforce_ceiling and customer.balance_xaf + p_amount_xaf > customer.credit_ceiling_xaf then
    perform raise_app_error(422, 'credit_limit_exceeded',
      format('This would bring the balance to %s XAF, over the credit ceiling of %s XAF.',
             customer.balance_xaf + p_amount_xaf, customer.credit_ceiling_xaf), p_field);
  end if;
  insert into customer_debts (customer_id, source_type, source_id, amount_xaf, occurred_at)
  values (p_customer_id, p_source_type, p_source_id, p_amount_xaf, p_occurred_at)
  returning * into debt;
  update customers set balance_xaf = balance_xaf + p_amount_xaf where id = p_customer_id;
  return debt;
end $$;

-- Settles p_amount_xaf of a customer's balance, allocated to the oldest unsettled debts first, and
-- posts it: debit the treasury account of the method, credit 411. More than owed: 422 overpayment.
create function customer_settle(p_customer_id uuid, p_amount_xaf bigint, p_method text, p_note text)
  returns customer_payments
  language plpgsql volatile
  as $$
declare
  customer customers;
  payment customer_payments;
  debt record;
  remaining bigint := p_amount_xaf;
  part bigint;
begin
  select * into customer from customers where id = p_customer_id and deleted_at is null for update;
  if not found then
    perform raise_app_error(404, 'not_found', 'Not found.');
  end if;
  if p_amount_xaf > customer.balance_xaf then
    perform raise_app_error(422, 'overpayment',
      format('The customer owes %s XAF: a settlement cannot be more.', customer.balance_xaf), 'amount_xaf');
  end if;
  insert into customer_payments (customer_id, amount_xaf, method, note) values (p_customer_id, p_amount_xaf, p_method, p_note)
    returning * into payment;
  for debt in
    select id, amount_xaf - settled_xaf as open_xaf from customer_debts
     where customer_id = p_customer_id and settled_xaf < amount_xaf
     order by occurred_at, id
     for update
  loop
    exit when remaining = 0;
    part := least(remaining, debt.open_xaf);
    insert into customer_payment_allocations (payment_id, debt_id, amount_xaf) values (payment.id, debt.id, part);
    update customer_debts set settled_xaf = settled_xaf + part where id = debt.id;
    remaining := remaining - part;
  end loop;
  update customers set balance_xaf = balance_xaf - p_amount_xaf where id = p_customer_id;
  perform journal_post('customer_payment', payment.id, coalesce(p_note, 'Customer settlement'),
    jsonb_build_array(jsonb_build_object('account', treasury_account(p_method), 'debit_xaf', p_amount_xaf),
                      jsonb_build_object('account', '411', 'credit_xaf', p_amount_xaf)));
  return payment;
end $$;

-- The tier ladder of each shop; a customer's tier follows the points earned over the last 12 months.
create table loyalty_tiers (
  id uuid primary key default gen_random_uuid(),
  shop_id uuid not null default app_shop_id() references shops (id),
  key text not null check (char_length(key) between 1 and 40),
  name text not null check (char_length(name) between 1 and 60),
  min_points bigint not null check (min_points >= 0),
  multiplier numeric(4, 2) not null check (multiplier between 0 and 10),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  deleted_at timestamptz,
  txid xid8 not null default pg_current_xact_id()
);
create unique index loyalty_tiers_key on loyalty_tiers (shop_id, key) where deleted_at is null;
create unique index loyalty_tiers_min_points on loyalty_tiers (shop_id, min_points) where deleted_at is null;
create index loyalty_tiers_sync_idx on loyalty_tiers (shop_id, txid, id);
create trigger loyalty_tiers_touch before update on loyalty_tiers for each row execute function touch_updated_at();
create trigger loyalty_tiers_stamp before update on loyalty_tiers for each row execute function stamp_txid();
alter table loyalty_tiers enable row level security;
create policy loyalty_tiers_tenant on loyalty_tiers using (shop_id = app_shop_id()) with check (shop_id = app_shop_id());

-- Every shop starts with Bronze, Silver and Gold (shops created before this migration too).
create function shops_default_tiers() returns trigger
  language plpgsql
  as $$
begin
  insert into loyalty_tiers (shop_id, key, name, min_points, multiplier)
  values (new.id, 'bronze', 'Bronze', 0, 1), (new.id, 'silver', 'Silver', 1000, 1.25), (new.id, 'gold', 'Gold', 5000, 1.5);
  return new;
end $$;
create trigger shops_default_tiers after insert on shops for each row execute function shops_default_tiers();
insert into loyalty_tiers (shop_id, key, name, min_points, multiplier)
select s.id, t.key, t.name, t.min_points, t.multiplier
  from shops s, (values ('bronze', 'Bronze', 0, 1.0), ('silver', 'Silver', 1000, 1.25), ('gold', 'Gold', 5000, 1.5)) t (key, name, min_points, multiplier);

-- The points ledger: every change of a customer's points is a row; the balance is their sum.
create table loyalty_points (
  id uuid primary key default gen_random_uuid(),
  shop_id uuid not null default app_shop_id() references shops (id),
  customer_id uuid not null references customers (id),
  kind text not null check (kind in ('earn', 'redeem', 'adjust', 'reverse')),
  points bigint not null check (points <> 0),
  source_type text check (char_length(source_type) <= 40),
  source_id uuid,
  reason text check (char_length(reason) <= 160),
  user_id uuid references users (id) default app_user_id(),
  created_at timestamptz not null default clock_timestamp()
);
create index loyalty_points_customer_idx on loyalty_points (customer_id, created_at);
create index loyalty_points_source_idx on loyalty_points (shop_id, source_type, source_id);
create index loyalty_points_shop_idx on loyalty_points (shop_id, created_at);
alter table loyalty_points enable row level security;
create policy loyalty_points_tenant on loyalty_points using (shop_id = app_shop_id()) with check (shop_id = app_shop_id());
revoke update, delete on loyalty_points from pos_app;

-- The one way points change: a ledger row, and the customer's balance moved by it. A change that would
-- make the balance negative is refused with p_code on p_field.
create function loyalty_post(p_customer_id uuid, p_kind text, p_points bigint, p_source_type text, p_source_id uuid,
                             p_reason text, p_field text, p_code text default 'insufficient_points')
  returns loyalty_points
  language plpgsql volatile
  as $$
declare
  customer customers;
  entry loyalty_points;
begin
  select * into customer from customers where id = p_customer_id for update;
  if not found then
    perform raise_app_error(422, 'validation_failed', 'No such customer in this shop.', p_field);
  end if;
  if customer.points + p_points < 0 then
    perform raise_app_error(422, p_code, format('The customer has %s points.', customer.points), p_field);
  end if;
  insert into loyalty_points (customer_id, kind, points, source_type, source_id, reason)
  values (p_customer_id, p_kind, p_points, p_source_type, p_source_id, p_reason)
  returning * into entry;
  update customers set points = points + p_points where id = p_customer_id;
  return entry;
end $$;

-- The tier a customer holds: the highest whose min_points the points earned over the last 12 months
-- reach, net of earned points taken back (returned redemptions and manual corrections do not count).
create function customer_tier(p_customer_id uuid) returns loyalty_tiers
  language sql stable
  as $$
    select t.* from loyalty_tiers t
     where t.shop_id = app_shop_id() and t.deleted_at is null
       and t.min_points <= (select coalesce(sum(points), 0) from loyalty_points
                             where customer_id = p_customer_id
                               and (kind = 'earn' or (kind = 'reverse' and points < 0))
                               and created_at > now() - interval '12 months')
     order by t.min_points desc
     limit 1
$$;

-- Points a sale earns: the amount paid x the shop's earn rate x the customer's tier multiplier,
-- rounded down. Posts them (kind earn, source the sale) and returns how many.
create function loyalty_earn_for_sale(p_customer_id uuid, p_sale_id uuid, p_paid_xaf bigint)
  returns bigint
  language plpgsql volatile
  as $$
declare
  earned bigint;
begin
  select floor(p_paid_xaf * s.loyalty_earn_rate * coalesce((customer_tier(p_customer_id)).multiplier, 1))::bigint
    into earned from shops s where s.id = app_shop_id();
  if earned > 0 then
    perform loyalty_post(p_customer_id, 'earn', earned, 'sale', p_sale_id, null, 'customer_id');
  end if;
  return coalesce(earned, 0);
end $$;

-- Redeems points on a sale: returns their value in XAF at the shop's redeem rate. Beyond the
-- balance: 422 insufficient_points on redeem_points.
create function loyalty_redeem_for_sale(p_customer_id uuid, p_sale_id uuid, p_points bigint)
  returns bigint
  language plpgsql volatile
  as $$
declare
  rate bigint;
begin
  if p_points <= 0 then
    return 0;
  end if;
  perform loyalty_post(p_customer_id, 'redeem', -p_points, 'sale', p_sale_id, null, 'redeem_points');
  select loyalty_redeem_rate_xaf into rate from shops where id = app_shop_id();
  return p_points * rate;
end $$;

-- Brings the reversal of a sale's points to p_fraction (0 < p_fraction <= 1) of what it earned and
-- redeemed, for a void or a refund: p_fraction is the share reversed in all so far (a refund of a third,
-- then another third, passes 1/3 then 2/3), so rounding never drifts over successive refunds. Earned
-- points are taken back (never below zero: what was already spent stays spent), redeemed points given
-- back; rounded down for earned, up for redeemed: the customer never loses a point. Negative reverse
-- rows take back earned points, positive ones return redeemed points.
create function loyalty_reverse_for_sale(p_sale_id uuid, p_fraction numeric)
  returns void
  language plpgsql volatile
  as $$
declare
  line record;
  taken bigint;
  given bigint;
begin
  for line in
    select customer_id,
           coalesce(sum(points) filter (where kind = 'earn'), 0) as earned,
           coalesce(-sum(points) filter (where kind = 'reverse' and points < 0), 0) as taken_back,
           coalesce(-sum(points) filter (where kind = 'redeem'), 0) as redeemed,
           coalesce(sum(points) filter (where kind = 'reverse' and points > 0), 0) as given_back
      from loyalty_points where source_type = 'sale' and source_id = p_sale_id
     group by customer_id order by customer_id
  loop
    -- round(, 9) first: 1/3 as a numeric times 30 is 9.999..., which must count as 10.
    select least(floor(round(line.earned * p_fraction, 9))::bigint - line.taken_back, points) into taken
      from customers where id = line.customer_id for update;
    if taken > 0 then
      perform loyalty_post(line.customer_id, 'reverse', -taken, 'sale', p_sale_id, 'Sale reversed', 'customer_id');
    end if;
    given := ceil(round(line.redeemed * p_fraction, 9))::bigint - line.given_back;
    if given > 0 then
      perform loyalty_post(line.customer_id, 'reverse', given, 'sale', p_sale_id, 'Redeemed points returned', 'customer_id');
    end if;
  end loop;
end $$;

-- After the fact: a customer shows a card once the sale is paid. Credits what the sale would have
-- earned, once per sale (409 loyalty_already_attributed).
create function loyalty_attribute(p_customer_id uuid, p_sale_id uuid, p_paid_xaf bigint)
  returns bigint
  language plpgsql volatile
  as $$
begin
  perform pg_advisory_xact_lock(hashtextextended('loyalty_attribute:' || p_sale_id::text, 0));
  if exists (select 1 from loyalty_points where source_type = 'sale' and source_id = p_sale_id and kind = 'earn') then
    perform raise_app_error(409, 'loyalty_already_attributed', 'The points of this sale have already been credited.');
  end if;
  return loyalty_earn_for_sale(p_customer_id, p_sale_id, p_paid_xaf);
end $$;
