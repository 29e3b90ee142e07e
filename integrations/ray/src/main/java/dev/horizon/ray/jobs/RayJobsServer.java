package dev.horizon.ray.jobs;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.horizon.api.scheduler.SchedulerClient;
import dev.horizon.api.scheduler.SchedulerException;
import dev.horizon.api.scheduler.SchedulerJob;
import dev.horizon.api.scheduler.SchedulerRefused;
import dev.horizon.ray.translate.FractionalGpuPolicy;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The part of Ray's Jobs REST API that {@code ray job submit --address http://HOST:PORT}, {@code ray job status} and
 * {@code ray job stop} use, answering as Ray's dashboard does, so a submission queues through Horizon instead of
 * starting at once: {@code POST /api/jobs/} submits a scheduler job, {@code GET /api/jobs/{id}} maps its state to
 * Ray's job status (PENDING, RUNNING, STOPPED, SUCCEEDED, FAILED) with the explanation in {@code message}, and
 * {@code POST /api/jobs/{id}/stop} cancels it. Submissions are kept in memory: a restarted endpoint forgets them,
 * though their scheduler jobs live on in the control plane.
 */
public final class RayJobsServer implements AutoCloseable {
    /** The Jobs API version Ray's job SDK checks for before it submits. */
    static final String API_VERSION = "4";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern JOB = Pattern.compile("/api/jobs/([^/]+)(/stop)?/?");

    private final SchedulerClient scheduler;
    private final String defaultTeam;
    private final FractionalGpuPolicy fractions;
    private final Clock clock;
    private final HttpServer server;
    /** Submission id to what was submitted and the scheduler job it became. */
    private final Map<String, Entry> submissions = new ConcurrentHashMap<>();

    private record Entry(JobSubmission submission, String schedulerId) {
    }

    /** A response with its HTTP status, as Ray's dashboard shapes it. */
    private record Answer(int status, JsonNode body) {
    }

    public RayJobsServer(SchedulerClient scheduler, String defaultTeam, FractionalGpuPolicy fractions, Clock clock, InetSocketAddress address)
            throws IOException {
        this.scheduler = scheduler;
        this.defaultTeam = defaultTeam;
        this.fractions = fractions;
        this.clock = clock;
        this.server = HttpServer.create(address, 0);
        server.createContext("/api/", this::handle);
        server.setExecutor(Executors.newFixedThreadPool(4));
        server.start();
    }

    public int port() {
        return server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
    }

    private void handle(HttpExchange exchange) throws IOException {
        Answer answer;
        try {
            answer = route(exchange.getRequestMethod(), exchange.getRequestURI().getPath(), exchange.getRequestBody());
        } catch (JobSubmission.BadRequest e) {
            answer = error(400, e.getMessage());
        } catch (SchedulerRefused e) {
            // the control plane answered and refused what was asked (a team it lacks, a job no node fits): a 503 would
            // say it did not answer and invite the same request again
            answer = error(400, "the Horizon control plane refused it (" + e.status() + "): " + e.body());
        } catch (SchedulerException e) {
            // the control plane is down or refused: Ray's clients show the message and may retry
            answer = error(503, "the Horizon control plane did not answer: " + e.getMessage());
        }
        byte[] body = JSON.writeValueAsBytes(answer.body());
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(answer.status(), body.length);
        exchange.getResponseBody().write(body);
        exchange.close();
    }

    private Answer route(String method, String path, InputStream body) throws IOException {
        if (path.equals("/api/version") && method.equals("GET")) {
            return new Answer(200, JSON.createObjectNode().put("version", API_VERSION).put("ray_version", "horizon").put("ray_commit", "horizon"));
        }
        if ((path.equals("/api/jobs/") || path.equals("/api/jobs")) && method.equals("POST")) return submit(body);
        Matcher m = JOB.matcher(path);
        if (!m.matches()) return error(404, path + " is not part of the Ray Jobs API Horizon serves");
        Entry entry = submissions.get(m.group(1));
        if (m.group(2) != null && method.equals("POST")) return entry == null ? missing(m.group(1)) : stop(entry);
        if (m.group(2) == null && method.equals("GET")) return entry == null ? missing(m.group(1)) : new Answer(200, details(entry));
        return error(405, method + " " + path + " is not supported");
    }

    private Answer submit(InputStream body) throws IOException {
        JsonNode request;
        try {
            request = JSON.readTree(body);
        } catch (JsonProcessingException e) {
            throw new JobSubmission.BadRequest("body", "is not JSON: " + e.getOriginalMessage());
        }
        JobSubmission submission = JobSubmission.parse(request, defaultTeam, fractions);
        // reserved before submitting, so two requests with one submission_id never queue two scheduler jobs
        Entry reserved = new Entry(submission, null);
        if (submissions.putIfAbsent(submission.submissionId(), reserved) != null) {
            throw new JobSubmission.BadRequest("submission_id", "a job with submission_id '" + submission.submissionId() + "' already exists");
        }
        try {
            submissions.put(submission.submissionId(), new Entry(submission, scheduler.submit(submission.spec())));
        } catch (RuntimeException e) {
            submissions.remove(submission.submissionId(), reserved);
            throw e;
        }
        return new Answer(200, JSON.createObjectNode().put("job_id", submission.submissionId()).put("submission_id", submission.submissionId()));
    }

    private Answer stop(Entry entry) {
        if (entry.schedulerId() == null) return error(409, "the job is still being submitted");
        boolean live = !scheduler.job(entry.schedulerId()).state().finished();
        if (live) scheduler.cancel(entry.schedulerId());
        return new Answer(200, JSON.createObjectNode().put("stopped", live));
    }

    private ObjectNode details(Entry entry) {
        JobSubmission submission = entry.submission();
        ObjectNode details = JSON.createObjectNode().put("type", "SUBMISSION").put("job_id", submission.submissionId())
                .put("submission_id", submission.submissionId()).put("entrypoint", submission.request().path("entrypoint").asText());
        for (String field : new String[] {"metadata", "runtime_env", "entrypoint_num_cpus", "entrypoint_num_gpus", "entrypoint_memory", "entrypoint_resources"}) {
            if (submission.request().has(field)) details.set(field, submission.request().get(field));
        }
        if (entry.schedulerId() == null) return details.put("status", "PENDING").put("message", "being submitted to Horizon");
        SchedulerJob job = scheduler.job(entry.schedulerId());
        details.put("horizon_job_id", entry.schedulerId());
        return switch (job.state()) {
            case PENDING -> details.put("status", "PENDING").put("message", scheduler.explanation(job.id(), false).sentence(clock));
            case RUNNING -> details.put("status", "RUNNING").put("message", "planned by Horizon"
                    + (job.placement() == null ? "" : " on " + String.join(",", job.placement().nodes())));
            case SUCCEEDED -> details.put("status", "SUCCEEDED").put("message", "Job finished successfully.");
            case FAILED -> details.put("status", "FAILED").put("message", "the job failed; Horizon has given its GPUs back");
            case CANCELLED -> details.put("status", "STOPPED").put("message", "stopped: its Horizon job was cancelled");
        };
    }

    private static Answer missing(String id) {
        return error(404, "Job " + id + " does not exist");
    }

    private static Answer error(int status, String message) {
        return new Answer(status, JSON.createObjectNode().put("error", message));
    }
}
