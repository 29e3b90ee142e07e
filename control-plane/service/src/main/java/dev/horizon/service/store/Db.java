package dev.horizon.service.store;

import io.agroal.api.AgroalDataSource;
import io.quarkus.agroal.DataSource;
import io.quarkus.arc.InjectableInstance;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/** The one active datasource (the H2 file, or PostgreSQL when configured) with small JDBC helpers. */
@ApplicationScoped
public class Db {
    @Inject
    InjectableInstance<AgroalDataSource> h2;
    @Inject
    @DataSource("pg")
    InjectableInstance<AgroalDataSource> postgres;
    @ConfigProperty(name = "quarkus.datasource.pg.active")
    boolean postgresActive;

    public interface Binder {
        void bind(PreparedStatement ps) throws SQLException;
    }

    public interface RowMapper<T> {
        T map(ResultSet rs) throws SQLException;
    }

    public interface Work<T> {
        T run(Connection c) throws SQLException;
    }

    /** Binds a nullable BIGINT. */
    public static void setLong(PreparedStatement ps, int i, Long v) throws SQLException {
        if (v == null) ps.setNull(i, Types.BIGINT);
        else ps.setLong(i, v);
    }

    /** Reads a nullable BIGINT. */
    public static Long nullableLong(ResultSet rs, int column) throws SQLException {
        long v = rs.getLong(column);
        return rs.wasNull() ? null : v;
    }

    public String kind() {
        return postgresActive ? "postgresql" : "h2";
    }

    public Connection connection() throws SQLException {
        return (postgresActive ? postgres : h2).get().getConnection();
    }

    /**
     * Runs work in one transaction: all of it is committed (durably) or none. A transaction the database rolled back for
     * contention (a lock timeout, a deadlock) runs again ({@link LockRetry}), so work must not act outside the store
     * before it returns.
     */
    public <T> T inTransaction(Work<T> work) {
        try {
            return LockRetry.run(() -> once(work));
        } catch (SQLException e) {
            throw new StoreException(e);
        }
    }

    private <T> T once(Work<T> work) throws SQLException {
        try (Connection c = connection()) {
            c.setAutoCommit(false);
            try {
                T result = work.run(c);
                c.commit();
                return result;
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        }
    }

    /**
     * Like {@link #inTransaction}, run again (at most twice more) when it lost a race to insert the same key as another
     * transaction: the work reads before it inserts, so the next run finds the winner's row and updates it instead.
     */
    public <T> T inTransactionRetrying(Work<T> work) {
        for (int attempt = 1; ; attempt++) {
            try {
                return inTransaction(work);
            } catch (StoreException e) {
                if (!e.duplicateKey() || attempt == 3) throw e;
            }
        }
    }

    public int update(String sql, Binder binder) {
        return inTransaction(c -> update(c, sql, binder));
    }

    public static int update(Connection c, String sql, Binder binder) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            binder.bind(ps);
            return ps.executeUpdate();
        }
    }

    public <T> List<T> query(String sql, Binder binder, RowMapper<T> mapper) {
        try {
            return LockRetry.run(() -> {
                try (Connection c = connection()) {
                    return query(c, sql, binder, mapper);
                }
            });
        } catch (SQLException e) {
            throw new StoreException(e);
        }
    }

    public static <T> List<T> query(Connection c, String sql, Binder binder, RowMapper<T> mapper) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            binder.bind(ps);
            try (ResultSet rs = ps.executeQuery()) {
                List<T> out = new ArrayList<>();
                while (rs.next()) out.add(mapper.map(rs));
                return out;
            }
        }
    }

    /** True when the store answers a trivial query. */
    public boolean reachable() {
        try (Connection c = connection()) {
            return c.isValid(2);
        } catch (SQLException | RuntimeException e) {
            return false;
        }
    }
}
