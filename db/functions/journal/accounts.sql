-- The treasury account a payment method lands in (SYSCOHADA): cash 571, card and bank 521,
-- mobile money 585.
create or replace function treasury_account(p_method text) returns text
  language sql immutable parallel safe
  as $$
    select case p_method when 'cash' then '571' when 'card' then '521' when 'bank' then '521'
                         when 'carrier1_momo' then '585' when 'carrier2_money' then '585' end
$$;

-- The charge account of an expense category: rent 6222 (locations de bâtiments), utilities 6052
-- (fournitures non stockables : électricité, eau), salaries 6611 (appointements, salaires et
-- commissions), transport 6181 (voyages et déplacements), supplies 6047 (fournitures de bureau),
-- other 6588 (autres charges diverses).
create or replace function expense_account(p_category text) returns text
  language sql immutable parallel safe
  as $$
    select case p_category when 'rent' then '6222' when 'utilities' then '6052' when 'salaries' then '6611'
                           when 'transport' then '6181' when 'supplies' then '6047' when 'other' then '6588' end
$$;

-- The account a payment by this method settles to: the customer's account (411) for credit, else
-- the treasury account. A searched CASE: inside a CASE on the method (`case m when 'credit' ...`),
-- PostgreSQL does not inline treasury_account, and parses and plans it again on every call.
create or replace function settlement_account(p_method text) returns text
  language sql immutable parallel safe
  as $$ select case when p_method = 'credit' then '411' else treasury_account(p_method) end $$;
