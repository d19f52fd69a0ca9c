-- The expiry sweep looks only at undecided actions whose window has closed.
CREATE INDEX actions_due ON actions (expires_at) WHERE status IN ('proposed', 'confirmed');
