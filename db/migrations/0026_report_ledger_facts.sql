-- What each sale line and refunded part moved through 6031 (cost of goods sold) in the journal: the
-- margin report sums these, so its cost equals the journal's 6031 to the franc. A line of an untracked
-- product moves nothing (0), nor does a refunded part that did not go back to stock (its product or
-- variant deleted meanwhile); sale_items.cost_xaf and refund_items.cost_xaf keep the unit and part cost.
alter table sale_items add column stock_cost_xaf bigint;
update sale_items i set stock_cost_xaf = case when p.tracked then round(i.quantity * i.cost_xaf)::bigint else 0 end
  from products p where p.id = i.product_id;
update sale_items set stock_cost_xaf = 0 where stock_cost_xaf is null;
alter table sale_items alter column stock_cost_xaf set not null;

alter table refund_items add column stock_cost_xaf bigint;
update refund_items ri set stock_cost_xaf = case when p.tracked then ri.cost_xaf else 0 end
  from sale_items i join products p on p.id = i.product_id where i.id = ri.sale_item_id;
update refund_items set stock_cost_xaf = 0 where stock_cost_xaf is null;
alter table refund_items alter column stock_cost_xaf set not null;

-- Report facts of the journal, per day it posted (the VAT declaration's roll-ups): `account` (key
-- 4431 or 4452: credit minus debit) and `deductible` (key: the purchase's VAT rate; 4452 debit minus
-- credit of purchases and their returns).
alter table report_facts drop constraint report_facts_kind_check;
alter table report_facts add constraint report_facts_kind_check
  check (kind in ('product', 'category', 'cashier', 'method', 'hour', 'account', 'deductible'));

-- The losses report reads a period's stock write-offs without reading its sales' entries.
create index journal_entries_stock_value_idx on journal_entries (shop_id, posted_at)
  where source_type in ('stock_adjustment', 'stocktake');
