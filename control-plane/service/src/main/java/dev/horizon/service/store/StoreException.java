package dev.horizon.service.store;

import java.sql.SQLException;

/** The store failed; the API answers 503 because the request may succeed once the database is back. */
public class StoreException extends RuntimeException {
    public StoreException(SQLException cause) {
        super("store error: " + cause.getMessage(), cause);
    }
}
