-- Transfers between two wallets of a tenant (issue 41's transfer kind). A transfer is one row and its legs: the amount
-- leaves one wallet (leg 1, negative) and enters the other (leg 2, positive); undoing it adds the two reversing legs
-- (3 and 4) and marks the transfer reversed. Legs are never updated or deleted, and every transfer's legs sum to zero
-- at every commit (R__wallet_transfers.sql): the ledger stays balanced, whoever writes. One action writes at most one
-- transfer (source_action_id).
CREATE TABLE wallet_transfers (
    id               uuid          PRIMARY KEY,
    tenant_id        text          NOT NULL,
    from_wallet_id   uuid          NOT NULL,
    to_wallet_id     uuid          NOT NULL CHECK (to_wallet_id <> from_wallet_id),
    amount           numeric(14,2) NOT NULL CHECK (amount > 0),
    currency         char(3)       NOT NULL,
    occurred_on      date          NOT NULL,
    source_action_id uuid          NOT NULL UNIQUE,
    reversed_at      timestamptz,
    version          bigint        NOT NULL DEFAULT 1,
    created_at       timestamptz   NOT NULL DEFAULT now(),
    UNIQUE (tenant_id, id),
    FOREIGN KEY (tenant_id, from_wallet_id) REFERENCES wallets (tenant_id, id),
    FOREIGN KEY (tenant_id, to_wallet_id) REFERENCES wallets (tenant_id, id)
);
CREATE INDEX wallet_transfers_by_wallet ON wallet_transfers (tenant_id, from_wallet_id, occurred_on DESC);

CREATE TABLE wallet_transfer_legs (
    transfer_id uuid          NOT NULL,
    tenant_id   text          NOT NULL,
    leg         smallint      NOT NULL CHECK (leg BETWEEN 1 AND 4),
    wallet_id   uuid          NOT NULL,
    amount      numeric(14,2) NOT NULL CHECK (amount <> 0),
    PRIMARY KEY (transfer_id, leg),
    FOREIGN KEY (tenant_id, transfer_id) REFERENCES wallet_transfers (tenant_id, id),
    FOREIGN KEY (tenant_id, wallet_id) REFERENCES wallets (tenant_id, id)
);
CREATE INDEX wallet_transfer_legs_by_wallet ON wallet_transfer_legs (tenant_id, wallet_id);

ALTER TABLE wallet_transfers ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_rows ON wallet_transfers
    USING (tenant_id = current_tenant()) WITH CHECK (tenant_id = current_tenant());
ALTER TABLE wallet_transfer_legs ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_rows ON wallet_transfer_legs
    USING (tenant_id = current_tenant()) WITH CHECK (tenant_id = current_tenant());
REVOKE ALL ON wallet_transfers, wallet_transfer_legs FROM PUBLIC;
GRANT SELECT, INSERT ON wallet_transfers, wallet_transfer_legs TO ${executorRole};
GRANT UPDATE (reversed_at) ON wallet_transfers TO ${executorRole};
