package dev.horizon.service.store;

import java.sql.SQLException;

/** The store failed; the API answers 503 because the request may succeed once the database is back. */
public class StoreException extends RuntimeException {
    /** The SQL state of a unique-key violation, the same on H2 and PostgreSQL. */
    private static final String UNIQUE_VIOLATION = "23505";

    public StoreException(SQLException cause) {
        super("store error: " + cause.getMessage(), cause);
    }

    /**
     * True when the store refused the data rather than failed (SQL state class 22, data exception: a value too long for its
     * column, a character it cannot encode; 23, integrity): the request would fail again, so it is no 503. The API checks
     * every field's limit before the store, so this is a missing check, answered as a 422.
     */
    public boolean refusedData() {
        return getCause() instanceof SQLException s && s.getSQLState() != null && (s.getSQLState().startsWith("22") || s.getSQLState().startsWith("23"));
    }

    /** True when a row with the same key was written first, typically by another replica doing the same at the same moment. */
    public boolean duplicateKey() {
        return getCause() instanceof SQLException s && UNIQUE_VIOLATION.equals(s.getSQLState());
    }
}
