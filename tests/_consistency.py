"""What must hold in the database after faults (bench/faults and the e2e fault tests):
each query counts violations, so every one must be 0. Plain SQL for PostgreSQL."""

from __future__ import annotations

CONSISTENCY = {
    "activities without a source":
        "SELECT count(*) FROM activities a WHERE NOT EXISTS "
        "(SELECT 1 FROM activity_sources s WHERE s.activity_id = a.id)",
    "sources with streams but no stream row":
        "SELECT count(*) FROM activity_sources s WHERE s.channels > 0 AND NOT EXISTS "
        "(SELECT 1 FROM activity_streams t WHERE t.activity_id = s.activity_id)",
    "one file imported twice for one person":
        "SELECT count(*) FROM (SELECT a.user_id, s.file_sha256 FROM activity_sources s "
        "JOIN activities a ON a.id = s.activity_id WHERE s.file_sha256 IS NOT NULL "
        "GROUP BY a.user_id, s.file_sha256 HAVING count(DISTINCT a.id) > 1) d",
    "one start stored as two activities for one person":
        "SELECT count(*) FROM (SELECT user_id, start_at FROM activities "
        "GROUP BY user_id, start_at HAVING count(*) > 1) d",
    "refresh tokens redeemed twice":
        "SELECT count(*) FROM (SELECT parent_hash FROM oauth_refresh_tokens "
        "WHERE parent_hash IS NOT NULL GROUP BY parent_hash HAVING count(*) > 1) d",
    # A code's exchange starts its family with one token that has no parent.
    "authorization codes redeemed twice":
        "SELECT count(*) FROM (SELECT family_id FROM oauth_refresh_tokens "
        "WHERE parent_hash IS NULL GROUP BY family_id HAVING count(*) > 1) d",
    # A connection row is written whole (one INSERT ... ON CONFLICT, one CAS UPDATE on a
    # refresh): never a status the code does not know, an envelope that is not one (the
    # keeper opens it with Envelope.parse: "pk1.<version>.<base64url of nonce, ciphertext
    # and tag, 28 bytes at least>"), a key_version other than the envelope's own (the
    # key rotation's count), a Garmin connection without the token lookup its webhooks
    # name the person by, or a tenant other than its person's (the envelope's AAD).
    "provider connections half stored":
        "SELECT count(*) FROM provider_connections c WHERE c.status NOT IN "
        "('connected', 'needs_reconnect') "
        "OR c.token_envelope !~ '^pk1\\.[0-9]+\\.[A-Za-z0-9_-]{38,}$' "
        "OR split_part(c.token_envelope, '.', 2) <> c.key_version::text "
        "OR (c.provider = 'garmin' AND c.status = 'connected' AND c.token_lookup IS NULL) "
        "OR NOT EXISTS (SELECT 1 FROM users u WHERE u.id = c.user_id "
        "AND u.tenant_id = c.tenant_id)",
}

__all__ = ["CONSISTENCY"]
