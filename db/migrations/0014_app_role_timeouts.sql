-- The app role's sessions cannot hold a connection for ever, whatever a request does: a statement
-- runs at most 30 seconds (a report that needs longer says so with `set local statement_timeout`),
-- and a transaction left idle for 15 seconds is ended by the server, its connection with it (the
-- request gets a 503 service_unavailable). Requests read their body before opening a transaction
-- and run their statements back to back, so neither bound is near a normal request.
-- The role is the cluster's (0001), so these follow it into every database of the cluster.
alter role pos_app set statement_timeout = '30s';
alter role pos_app set idle_in_transaction_session_timeout = '15s';
