package dev.horizon.api;

import java.util.List;

/** A job that cannot be accepted; the message names every bad field and how to fix it. */
public class InvalidJobException extends IllegalArgumentException {
    private final List<String> problems;

    public InvalidJobException(List<String> problems) {
        super(String.join("; ", problems));
        this.problems = List.copyOf(problems);
    }

    public List<String> problems() {
        return problems;
    }
}
