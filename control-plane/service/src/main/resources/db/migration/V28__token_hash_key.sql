-- Token hashes are keyed: tokens.hash is HMAC-SHA256 under this store's own random key over the token's SHA-256, so a
-- copy of the tokens table alone cannot check guesses, and no two stores hash a token alike (no precomputed tables).
-- The key is one row, made by the first control plane that starts on the store (SQL here has no portable random bytes),
-- and shared by every replica on it. Rows hashed before this version say 'sha256': each start rewraps them
-- (HMAC over the SHA-256 they hold), so their tokens keep working and no plain SHA-256 stays in the store.
CREATE TABLE token_hash_key (
    id INT PRIMARY KEY,
    hmac_key VARCHAR(64) NOT NULL,
    created_at BIGINT NOT NULL
);
ALTER TABLE tokens ADD COLUMN hashed_with VARCHAR(16) DEFAULT 'sha256' NOT NULL;
