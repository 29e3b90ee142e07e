package dev.horizon.agent;

/** A command that cannot be carried out, with the reason for people (it becomes CommandResult.error). */
class CommandFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    CommandFailure(String reason) {
        super(reason);
    }
}
