package dev.horizon.service.leadership;

import dev.horizon.service.web.ApiException;

/** This replica does not lead (or no longer does): the write it was asked for belongs to the leader. The API answers 503. */
public class NotLeaderException extends ApiException {
    public NotLeaderException(String message) {
        super(503, message);
    }
}
