package dev.horizon.service.mig;

import com.fasterxml.jackson.core.type.TypeReference;
import dev.horizon.service.clock.ServiceClock;
import dev.horizon.service.store.Db;
import dev.horizon.service.store.StoredJson;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Optional;

@ApplicationScoped
public class MigPolicyStore {
    private static final TypeReference<MigPolicyBody.Stored> TYPE = new TypeReference<>() { };

    @Inject
    ServiceClock clock;
    @Inject
    Db db;

    public List<MigPolicyBody.Stored> all() {
        return db.query("SELECT policy FROM mig_policies ORDER BY pool", ps -> { }, rs -> StoredJson.read(rs.getString(1), TYPE));
    }

    public Optional<MigPolicyBody.Stored> find(String pool) {
        return db.query("SELECT policy FROM mig_policies WHERE pool = ?", ps -> ps.setString(1, pool), rs -> StoredJson.read(rs.getString(1), TYPE))
                .stream().findFirst();
    }

    /** Replaces the pool's policy in one transaction; true when the pool had none before. */
    public boolean put(MigPolicyBody.Stored policy) {
        String json = StoredJson.write(policy);
        long now = clock.millis();
        return db.inTransaction(c -> {
            int updated = Db.update(c, "UPDATE mig_policies SET policy = ?, updated_at = ? WHERE pool = ?", ps -> {
                ps.setString(1, json);
                ps.setLong(2, now);
                ps.setString(3, policy.pool());
            });
            if (updated == 1) return false;
            Db.update(c, "INSERT INTO mig_policies (pool, policy, updated_at) VALUES (?, ?, ?)", ps -> {
                ps.setString(1, policy.pool());
                ps.setString(2, json);
                ps.setLong(3, now);
            });
            return true;
        });
    }

    public boolean delete(String pool) {
        return db.update("DELETE FROM mig_policies WHERE pool = ?", ps -> ps.setString(1, pool)) == 1;
    }
}
