package dev.horizon.service.rest;

import dev.horizon.service.jobs.JobStore;
import dev.horizon.service.web.ApiException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;

/** The cursor of a page of jobs: where the page before ended in the list's order, opaque to clients. */
final class JobCursor {
    static final String HEADER = "Horizon-Next-Cursor";

    private JobCursor() {
    }

    static String encode(JobStore.Position p) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString((p.submittedAt() + ":" + p.id()).getBytes(StandardCharsets.UTF_8));
    }

    static JobStore.Position decode(String cursor) {
        try {
            String[] parts = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8).split(":", 2);
            if (parts.length == 2 && !parts[1].isEmpty()) return new JobStore.Position(Long.parseLong(parts[0]), parts[1]);
        } catch (IllegalArgumentException e) {
            // falls through to the refusal: not base64, or not a number before the colon
        }
        throw new ApiException(400, "invalid query", List.of("cursor '" + cursor + "' is not one this API gave out: pass the "
                + HEADER + " header of the page before unchanged, or leave cursor out for the first page"));
    }
}
