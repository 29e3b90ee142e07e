package dev.horizon.service.web;

import dev.horizon.api.Limits;
import java.util.List;

/** A request the API refuses, with the HTTP status and every problem, each naming the field and the fix. */
public class ApiException extends RuntimeException {
    private final int status;
    private final List<String> problems;

    public ApiException(int status, String error, List<String> problems) {
        super(error);
        this.status = status;
        this.problems = List.copyOf(problems);
    }

    public ApiException(int status, String error) {
        this(status, error, List.of());
    }

    public static ApiException notFound(String what, String id) {
        return new ApiException(404, "no " + what + " with id " + Limits.quote(id));
    }

    public int status() {
        return status;
    }

    public List<String> problems() {
        return problems;
    }
}
