package dev.horizon.service.nodes;

import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import dev.horizon.service.store.Db;
import dev.horizon.service.web.ApiTime;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Types;
import java.util.List;

/**
 * Processes the agents' memory guards found over their GPU memory share: stored, counted in
 * horizon_memory_violations_total{node,gpu,action}, and shown in the node's view and in the explanation of the job that
 * held the GPU.
 */
@ApplicationScoped
public class MemoryViolations {
    /** How many of a node's or a job's violations their views show: the newest ones. */
    private static final int SHOWN = 50;
    private static final String COLUMNS = "node, gpu_uuid, pid, process_name, used_mib, allowed_mib, share, action, observed_at, job";

    /**
     * One violation. action is REPORTED, KILLED or KILL_FAILED; observedAt is when the agent saw it (epoch ms); job is the
     * running job that held the GPU, null when no single job did.
     */
    public record Violation(String node, String gpuUuid, long pid, String processName, long usedMiB, long allowedMiB, String share,
                            String action, @JsonSerialize(using = ApiTime.Millis.class) long observedAt, String job) {
    }

    @Inject
    Db db;
    @Inject
    MeterRegistry registry;

    public void record(Violation v) {
        db.update("INSERT INTO memory_violations (" + COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", ps -> {
            ps.setString(1, v.node());
            ps.setString(2, v.gpuUuid());
            ps.setLong(3, v.pid());
            ps.setString(4, v.processName());
            ps.setLong(5, v.usedMiB());
            ps.setLong(6, v.allowedMiB());
            ps.setString(7, v.share());
            ps.setString(8, v.action());
            ps.setLong(9, v.observedAt());
            if (v.job() == null) ps.setNull(10, Types.VARCHAR);
            else ps.setString(10, v.job());
        });
        Counter.builder("horizon_memory_violations_total").description("processes agents found over their GPU memory share")
                .tag("node", v.node()).tag("gpu", v.gpuUuid()).tag("action", v.action()).register(registry).increment();
    }

    public List<Violation> ofNode(String node) {
        return select("node", node);
    }

    public List<Violation> ofJob(String job) {
        return select("job", job);
    }

    private List<Violation> select(String column, String value) {
        return db.query("SELECT " + COLUMNS + " FROM memory_violations WHERE " + column + " = ? ORDER BY observed_at DESC, id DESC LIMIT " + SHOWN,
                ps -> ps.setString(1, value), rs -> new Violation(rs.getString(1), rs.getString(2), rs.getLong(3), rs.getString(4), rs.getLong(5),
                        rs.getLong(6), rs.getString(7), rs.getString(8), rs.getLong(9), rs.getString(10)));
    }
}
