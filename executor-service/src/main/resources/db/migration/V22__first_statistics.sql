-- When autovacuum first gathers statistics on the tables that grow with every proposal and decision (issue 21,
-- docs/benchmarks.md, "Generic plans and a new database"): after 1,000 changed rows instead of PostgreSQL's 50.
--
-- Why: the executor's connections keep PostgreSQL's default plan_cache_mode (auto), so a statement its pool keeps
-- prepared may run one generic plan after five runs, made from the table's statistics of that moment and kept until
-- they change. Statistics gathered while a table held a few pages make a lookup by key a sequential scan (cheaper on
-- five pages), and autovacuum looks again only after its naptime (a minute by default): on a new database staging
-- hundreds of proposals a second, the staging lookup of actions by id scanned tens of thousands of rows for that
-- minute (5.7 ms a call, staging at 278/s instead of 451/s). A table never analysed is planned as at least ten pages,
-- with its index; by 1,000 rows these tables are past the size where a sequential scan wins.
--
-- Limits: a manual ANALYZE of a near-empty table brings the sequential plan back until autovacuum's next analyse, and
-- so does a table emptied to a few pages (the retention prunes published outbox rows and old processed events; on a
-- database with little traffic both can shrink that far, where a sequential scan is cheap anyway). Other tables keep PostgreSQL's defaults:
-- they are small and stay so (policies, wallets, trust) or are not read by key on a hot path.
ALTER TABLE actions SET (autovacuum_analyze_threshold = 1000);
ALTER TABLE action_history SET (autovacuum_analyze_threshold = 1000);
ALTER TABLE action_approvals SET (autovacuum_analyze_threshold = 1000);
ALTER TABLE idempotency_keys SET (autovacuum_analyze_threshold = 1000);
ALTER TABLE transactions SET (autovacuum_analyze_threshold = 1000);
ALTER TABLE outbox SET (autovacuum_analyze_threshold = 1000);
ALTER TABLE processed_events SET (autovacuum_analyze_threshold = 1000);
ALTER TABLE conversation_events SET (autovacuum_analyze_threshold = 1000);
ALTER TABLE auto_apply_spends SET (autovacuum_analyze_threshold = 1000);
