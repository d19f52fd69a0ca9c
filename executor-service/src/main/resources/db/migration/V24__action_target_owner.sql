-- Whose row an action writes (issue 39, part 2): the owner of the wallet a ledger action writes in, the person of a
-- training plan; NULL for a row nobody owns (a support case, a ticket: the tenant's). Read at staging
-- (Targets.owner) and never changed (R__actions_state_machine.sql); the decision rule (DecisionRule) tells the
-- requester from the row's owner with it: a write to another person's row needs its owner or an approver other than
-- the requester.
ALTER TABLE actions ADD COLUMN target_owner text;

-- Actions staged before: their owner as staging would read it now (wallets never change owner; a plan is its
-- requester's). A row that is gone leaves NULL, which the rule reads as nobody's, i.e. the requester's own.
UPDATE actions a SET target_owner = w.owner_id
FROM wallets w
WHERE a.kind IN ('ledger.transaction.create', 'ledger.wallet.rename') AND w.tenant_id = a.tenant_id
  AND w.id::text = a.params ->> 'walletId';
UPDATE actions a SET target_owner = w.owner_id
FROM transactions t JOIN wallets w ON w.tenant_id = t.tenant_id AND w.id = t.wallet_id
WHERE a.kind IN ('ledger.transaction.edit', 'ledger.transaction.delete') AND t.tenant_id = a.tenant_id
  AND t.id::text = a.params ->> 'transactionId';
UPDATE actions SET target_owner = requested_by WHERE kind IN ('training.plan.draft', 'training.plan.revise');
