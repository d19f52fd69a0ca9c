-- Whose row an action writes (issue 39, part 2): the owner of the wallet a ledger action writes in, the person of a
-- training plan; NULL for a row nobody owns (a support case, a ticket: the tenant's). Read at staging
-- (Targets.owner) and never changed; the decision rule (DecisionRule) tells the requester from the row's owner with it:
-- a write to another person's row needs its owner or an approver other than the requester. Actions staged before this
-- column existed have NULL, i.e. count as their requester's own, as every action did until now.
ALTER TABLE actions ADD COLUMN target_owner text;
