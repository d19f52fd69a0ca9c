-- The tier an imported row has in its tenant: HIGH at or above the high-impact threshold, else LOW. The default
-- (500.00) mirrors TierPolicy.DEFAULT in shared-contracts (ImportGateTest checks they agree). Called by the import gate
-- and the import trail, which run as the owner; PUBLIC may not call it.
CREATE OR REPLACE FUNCTION import_tier(p_tenant_id text, p_amount numeric) RETURNS text LANGUAGE sql STABLE
    SET search_path = pg_catalog, public, pg_temp AS $$
    SELECT CASE WHEN p_amount >= coalesce((SELECT p.high_impact_threshold FROM tenant_policies p
                                           WHERE p.tenant_id = p_tenant_id), 500.00)
                THEN 'high' ELSE 'low' END;
$$;
REVOKE ALL ON FUNCTION import_tier(text, numeric) FROM PUBLIC;
