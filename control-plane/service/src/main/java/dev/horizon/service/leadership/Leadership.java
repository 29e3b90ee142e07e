package dev.horizon.service.leadership;

import dev.horizon.service.store.Db;
import dev.horizon.service.store.StoreException;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.scheduler.Scheduler;
import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.Priority;
import jakarta.enterprise.event.Event;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * Elects, through the store, the one replica that plans and dispatches. The lease is a row (holder, epoch, expiry in the
 * database's clock, so replicas' clocks need not agree): the leader renews it every renew interval; any replica takes
 * it over, with the epoch one higher, once it has expired. Takeover and renewal are single conditional UPDATEs, so two
 * replicas can never both win. The leader's writes for agents and adapters go through {@link #fence}, which locks the
 * lease row and checks that this replica still holds the epoch in the same transaction, so a deposed leader (paused,
 * partitioned) can never commit a plan or queue a command after a takeover.
 *
 * <p>On the embedded H2 file only one process can open the store, so that process takes the lease at once when it
 * starts, without waiting for the lease of the process before it to expire, and keeps it until it stops: a renewal
 * that fails (H2 lock timeouts under a burst of writes) can never hand the lease to anyone, so it never stops leading.
 */
@Singleton
public class Leadership {
    private static final Logger LOG = Logger.getLogger(Leadership.class);
    static final String LEASE = "planner";
    /** How often the leader looks for followers' plan requests: what a follower accepts is planned within about this. */
    private static final long FORWARD_POLL_MILLIS = 250;

    /** The lease as the store holds it; self when this replica holds it; holderUrl where the holder answers. */
    public record Lease(String holder, long epoch, boolean self, boolean expired, String holderUrl) {
    }

    /** Fired when this replica becomes leader (leading) or stops being leader. */
    public record Change(boolean leading, long epoch) {
    }

    /** Fired on the leader when a follower asked for a plan. */
    public record PlanRequest(long epoch) {
    }

    @Inject
    Db db;
    @Inject
    Event<Change> changes;
    @Inject
    Event<PlanRequest> planRequests;
    @Inject
    Scheduler scheduler;
    @ConfigProperty(name = "horizon.leader.lease-seconds")
    int leaseSeconds;
    @ConfigProperty(name = "horizon.leader.renew-seconds")
    int renewSeconds;
    @ConfigProperty(name = "horizon.advertise-url")
    Optional<String> advertiseUrl;
    @ConfigProperty(name = "quarkus.http.port")
    int httpPort;
    /** False in a process that only runs a command on the store (./horizon token create --store): it never leads. */
    @ConfigProperty(name = "horizon.leader.elect", defaultValue = "true")
    boolean elect;

    private final String id = identity();
    private final ScheduledExecutorService loop = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "horizon-leadership");
        t.setDaemon(true);
        return t;
    });
    /** The epoch this replica leads in, 0 while it follows. Written only on the loop's thread. */
    private volatile long epoch;
    /** System.nanoTime() after which this replica stops acting as leader unless a renewal succeeded since. */
    private volatile long leadUntilNanos;
    /** True on the embedded H2 file: this process is the only one that can open the store, so its lease never lapses. */
    private volatile boolean sole;

    void start(@Observes @Priority(10) StartupEvent event) {
        checkTimes(leaseSeconds, renewSeconds);
        if (!elect) {
            LOG.infof("replica %s takes no part in leader election (horizon.leader.elect=false)", id);
            return;
        }
        LOG.infof("replica %s: leader election through the %s store (lease %d s, renewed every %d s)", id, db.kind(), leaseSeconds, renewSeconds);
        sole = "h2".equals(db.kind());
        // the first election runs before startup completes, so a sole replica leads (and plans) from its first request on
        acquire(System.nanoTime(), sole);
        loop.scheduleWithFixedDelay(this::tick, renewSeconds, renewSeconds, TimeUnit.SECONDS);
        loop.scheduleWithFixedDelay(this::takePlanRequest, FORWARD_POLL_MILLIS, FORWARD_POLL_MILLIS, TimeUnit.MILLISECONDS);
    }

    void stop(@Observes ShutdownEvent event) {
        // the scheduled work (heartbeats, command delivery and expiry, metrics) stops before the store closes under it,
        // and nothing acts as leader once the lease is being handed over; with quarkus.scheduler.enabled=false (the lab's
        // service engine) there is no scheduler to pause, and pausing it throws
        if (scheduler.isStarted()) scheduler.pause();
        finishLoop();
        long held = epoch;
        epoch = 0;
        if (held == 0) return;
        // hand over at once instead of making the next leader wait for the lease to run out
        try {
            db.update("UPDATE leader_lease SET expires_at = TIMESTAMP WITH TIME ZONE '1970-01-01 00:00:00+00' WHERE name = ? AND holder = ? AND epoch = ?",
                    ps -> {
                        ps.setString(1, LEASE);
                        ps.setString(2, id);
                        ps.setLong(3, held);
                    });
            LOG.infof("replica %s released the leadership (epoch %d) on shutdown", id, held);
        } catch (StoreException e) {
            LOG.warnf("replica %s could not release the lease on shutdown (%s); another replica takes over when it expires", id, e.getMessage());
        }
    }

    /**
     * Lets a renewal under way finish instead of interrupting it: run after the release below, it would extend the lease
     * again (or, following, take it back), and an interrupt that lands in the store's file write is what closed H2 under
     * the service at a stop.
     */
    private void finishLoop() {
        loop.shutdown();
        try {
            if (!loop.awaitTermination(leaseSeconds, TimeUnit.SECONDS)) LOG.warnf("replica %s: a lease renewal still runs at shutdown", id);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Refuses a lease and renew interval under which a leader would not stay one: it acts as leader until lease - renew
     * after its last renewal began, and at exactly twice the interval that is the moment the next renewal begins (they
     * run at a fixed delay), so every renewal would leave it following for the milliseconds the renewal takes.
     */
    static void checkTimes(int leaseSeconds, int renewSeconds) {
        if (renewSeconds < 1 || leaseSeconds < 3 * renewSeconds) {
            throw new IllegalArgumentException("horizon.leader.lease-seconds (" + leaseSeconds + ") must be at least three times"
                    + " horizon.leader.renew-seconds (" + renewSeconds + "), and renew-seconds at least 1, so a late renewal does not lose the lease");
        }
    }

    /** True while this replica holds the lease, as far as it knows; writes that matter are fenced in the store anyway. */
    public boolean leading() {
        return epoch != 0 && (sole || System.nanoTime() < leadUntilNanos);
    }

    /** The epoch this replica leads in, 0 while it follows. */
    public long epoch() {
        return leading() ? epoch : 0;
    }

    public String id() {
        return id;
    }

    /** The lease as the store holds it now. */
    public Lease lease() {
        return db.query("SELECT holder, epoch, expires_at < CURRENT_TIMESTAMP, holder_url FROM leader_lease WHERE name = ?", ps -> ps.setString(1, LEASE),
                rs -> new Lease(rs.getString(1), rs.getLong(2), id.equals(rs.getString(1)) && !rs.getBoolean(3), rs.getBoolean(3),
                        rs.getString(4))).get(0);
    }

    /**
     * Inside the caller's transaction: locks the lease row and checks that this replica still holds it in epoch, else
     * throws {@link NotLeaderException} (the caller's transaction rolls back). Call it before the transaction's writes:
     * the lock keeps a takeover waiting until they are committed, so they land inside this leader's term.
     */
    public void fence(Connection c, long expectedEpoch) throws SQLException {
        // on H2 no other process can take the lease over, so a lease whose renewals were late is still this replica's
        List<Long> held = Db.query(c, "SELECT epoch FROM leader_lease WHERE name = ? AND holder = ? AND epoch = ? AND (expires_at > CURRENT_TIMESTAMP"
                + " OR ?) FOR UPDATE", ps -> {
                    ps.setString(1, LEASE);
                    ps.setString(2, id);
                    ps.setLong(3, expectedEpoch);
                    ps.setBoolean(4, sole);
                }, rs -> rs.getLong(1));
        if (held.isEmpty()) throw new NotLeaderException("replica " + id + " no longer holds the leadership of epoch " + expectedEpoch);
    }

    /** The current epoch for a write, or NotLeaderException naming the leader to go to. */
    public long requireLeading(String action) {
        long e = epoch();
        if (e != 0) return e;
        Lease lease = lease();
        throw new NotLeaderException(action + " is done by the leader, and this replica (" + id + ") follows; send it to the leader"
                + (lease.holder() == null || lease.expired() ? " (none right now: an election is under way, retry in a few seconds)"
                        : " " + lease.holder() + " (epoch " + lease.epoch() + ")"));
    }

    /** On a follower: asks the leader for a plan, for what this replica just wrote (a submission, a cancel, an agent's report). */
    public void forwardPlanRequest() {
        db.update("UPDATE leader_lease SET plan_requested = TRUE WHERE name = ? AND plan_requested = FALSE", ps -> ps.setString(1, LEASE));
    }

    private void takePlanRequest() {
        long held = epoch;
        if (held == 0 || !leading()) return;
        try {
            int taken = db.update("UPDATE leader_lease SET plan_requested = FALSE WHERE name = ? AND plan_requested = TRUE", ps -> ps.setString(1, LEASE));
            if (taken == 1) planRequests.fire(new PlanRequest(held));
        } catch (StoreException e) {
            LOG.debugf("followers' plan requests could not be read: %s", e.getMessage());
        }
    }

    private void tick() {
        long started = System.nanoTime();
        try {
            if (epoch != 0) renew(started);
            else acquire(started, false);
        } catch (RuntimeException e) {
            LOG.warnf("replica %s: the lease could not be read or renewed: %s", id, e.getMessage());
            if (epoch != 0 && !sole && System.nanoTime() >= leadUntilNanos) stepDown("its lease ran out while the store did not answer");
        }
    }

    private void renew(long started) {
        long held = epoch;
        int renewed = db.update("UPDATE leader_lease SET expires_at = CURRENT_TIMESTAMP + CAST(? AS INTEGER) * INTERVAL '1' SECOND"
                + " WHERE name = ? AND holder = ? AND epoch = ?", ps -> {
                    ps.setInt(1, leaseSeconds);
                    ps.setString(2, LEASE);
                    ps.setString(3, id);
                    ps.setLong(4, held);
                });
        if (renewed == 1) leadUntilNanos = safeUntil(started);
        else stepDown("another replica took the lease over");
    }

    /** Takes the lease if it has expired, or in any case when force is set (the sole process on an H2 file, starting). */
    private void acquire(long started, boolean force) {
        Long won = db.inTransaction(c -> {
            int taken = Db.update(c, "UPDATE leader_lease SET holder = ?, holder_url = ?, epoch = epoch + 1, expires_at = CURRENT_TIMESTAMP"
                    + " + CAST(? AS INTEGER) * INTERVAL '1' SECOND WHERE name = ? AND (expires_at < CURRENT_TIMESTAMP OR ?)", ps -> {
                        ps.setString(1, id);
                        ps.setString(2, url());
                        ps.setInt(3, leaseSeconds);
                        ps.setString(4, LEASE);
                        ps.setBoolean(5, force);
                    });
            if (taken == 0) return null;
            return Db.query(c, "SELECT epoch FROM leader_lease WHERE name = ?", ps -> ps.setString(1, LEASE), rs -> rs.getLong(1)).get(0);
        });
        if (won == null) return;
        leadUntilNanos = safeUntil(started);
        epoch = won;
        LOG.infof("replica %s is now the leader (epoch %d): it plans and dispatches", id, won);
        changes.fire(new Change(true, won));
    }

    private void stepDown(String why) {
        long lost = epoch;
        epoch = 0;
        LOG.warnf("replica %s stopped leading (epoch %d): %s; it now follows", id, lost, why);
        changes.fire(new Change(false, lost));
    }

    /**
     * This replica acts as leader until one renewal interval before the lease it just took or renewed runs out, counted
     * from before the statement was sent, so a replica whose renewals stall stops acting before anyone can take over.
     */
    private long safeUntil(long started) {
        return started + TimeUnit.SECONDS.toNanos(leaseSeconds - renewSeconds);
    }

    /**
     * Where this replica answers, for followers that pass writes on: horizon.advertise-url (HORIZON_ADVERTISE_URL; the
     * chart sets the pod's IP), else this host's address and HTTP port.
     */
    public String url() {
        if (advertiseUrl.isPresent()) return advertiseUrl.get().replaceAll("/+$", "");
        try {
            return "http://" + InetAddress.getLocalHost().getHostAddress() + ":" + httpPort;
        } catch (UnknownHostException e) {
            return "http://localhost:" + httpPort;
        }
    }

    private static String identity() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            host = "unknown-host";
        }
        // the random part tells apart two replicas in one container image started with the same pid
        return host + "/" + ManagementFactory.getRuntimeMXBean().getPid() + "/" + UUID.randomUUID().toString().substring(0, 8);
    }
}
