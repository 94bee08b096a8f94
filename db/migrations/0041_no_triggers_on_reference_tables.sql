-- No trigger on the reference tables shops, users and partners (db/CONVENTIONS.md, "Distribution by
-- shop"): on Citus a reference table's trigger runs on every node's copy (shops_default_tiers failed
-- there, a shard cannot start a distributed insert), and Citus refuses any trigger DDL on them, so
-- re-applying a function file that names them would fail. What they did is now done by the code that
-- writes those rows: the registration makes the default loyalty tiers and looks the referral up
-- (shops_default_tiers(shop), shops_refer(code)), PUT /shop checks the time zone
-- (shops_check_timezone(zone)), api/users keeps an owner (users_keep_an_owner(user)), and every
-- update of the three tables sets updated_at itself.
drop trigger if exists shops_default_tiers on shops;
drop trigger if exists shops_refer on shops;
drop trigger if exists shops_check_timezone on shops;
drop trigger if exists shops_touch on shops;
drop trigger if exists users_keep_an_owner on users;
drop trigger if exists users_touch on users;
drop trigger if exists partners_touch on partners;
delete from schema_functions
 where file in ('loyalty/shops_default_tiers.sql', 'partners/shops_refer.sql', 'shop/shops_check_timezone.sql',
                'platform/touch_updated_at.sql', 'users/users_keep_an_owner.sql');

-- The referral is set once, at registration: shops_refer kept partner_id on any update, whoever made it.
-- Without it the app role keeps its update of every column of shops but partner_id (a column a later
-- migration adds to shops is granted to it by that migration when the app writes it).
revoke update on shops from pos_app;
grant update (id, name, business_type, phone, email, address, city, tax_id, locale, receipt_header, receipt_footer,
              allow_negative_stock, default_vat_rate, loyalty_earn_rate, loyalty_redeem_rate_xaf, referral_code,
              trial_ends_at, subscription_ends_at, created_at, updated_at, timezone, cashier_price_override,
              cashier_max_discount_percent, trade_register_no, payment_method_labels, legal_form, share_capital_xaf,
              tax_regime, tax_centre, bank_details, momo_merchant_no, payment_terms_days)
  on shops to pos_app;
