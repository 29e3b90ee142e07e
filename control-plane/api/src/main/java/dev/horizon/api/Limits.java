package dev.horizon.api;

import java.util.List;

/**
 * The documented limits of every field the API takes, checked before anything reaches the store, with the words a
 * refusal uses. Names follow Kubernetes: an object name is a DNS subdomain (253 characters), a namespace or label
 * value 63. Text never holds control characters (PostgreSQL cannot store NUL; the others only hide what a value says).
 */
public final class Limits {
    /** A job's, node's or Kubernetes object's name. */
    public static final int NAME = 253;
    /** A team, namespace, kind or inference service name. */
    public static final int SHORT_NAME = 63;
    /** A free-text label or reason a person reads. */
    public static final int LABEL = 128;
    /** Whole GPUs one replica may ask for: a host has at most this many. */
    public static final int GPUS_PER_REPLICA = 64;
    /** Replicas of one job. */
    public static final int REPLICAS = 10_000;
    /** replicas x GPUs of one job: more than any cluster Horizon plans, so a bigger job is a typo or an attack. */
    public static final int GPUS_PER_JOB = 100_000;
    /** The memory of a time-slicing share: 1 TiB, more than any GPU holds. */
    public static final int SHARE_MEMORY_MIB = 1_048_576;
    public static final int GPU_TYPES = 16;
    public static final int PRIORITY = 99;
    /** A year: an estimate beyond it is a unit mistake (milliseconds for seconds), not a real job. */
    public static final long DURATION_SECONDS = 365L * 86_400;
    /** A day: saving a checkpoint for longer than that is a unit mistake. */
    public static final long CHECKPOINT_COST_SECONDS = 86_400;
    /** How much of a refused value an error message repeats. */
    private static final int ECHO = 40;
    /** The character that stands for bytes that were not UTF-8 once a body is decoded. */
    private static final char REPLACEMENT = 0xFFFD;

    private Limits() {
    }

    /**
     * Adds the problem with an optional text field (null passes): too long, holding a control character, an invisible or
     * direction-changing character, or U+FFFD (what bytes that are not UTF-8 decode to).
     */
    public static void text(String field, String value, int max, List<String> problems) {
        if (value == null) return;
        if (value.length() > max) {
            problems.add(field + " is " + value.length() + " characters; the limit is " + max);
        } else if (controlCharacterAt(value) >= 0) {
            problems.add(field + " holds a control character (" + codePoint(value, controlCharacterAt(value)) + "); use printable characters only");
        } else if (invisibleAt(value) >= 0) {
            problems.add(field + " holds an invisible or direction-changing character (" + codePoint(value, invisibleAt(value)) + "), which can make"
                    + " a name read as another; remove it");
        } else if (value.indexOf(REPLACEMENT) >= 0) {
            problems.add(field + " holds U+FFFD at " + value.indexOf(REPLACEMENT) + ", what bytes that are not UTF-8 decode to; send the body as UTF-8");
        }
    }

    /**
     * The first character in value that shows nothing or reorders what follows, or -1: bidirectional embeddings,
     * overrides, isolates and marks ("Trojan Source"), zero-width spaces and joiners, the word joiner and the byte order
     * mark. A name holding one can display as another name.
     */
    public static int invisibleAt(String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if ((c >= 0x200B && c <= 0x200F) || (c >= 0x202A && c <= 0x202E) || (c >= 0x2060 && c <= 0x2069) || c == 0x061C || c == 0xFEFF) {
                return i;
            }
        }
        return -1;
    }

    private static String codePoint(String value, int at) {
        return "U+" + String.format("%04X", (int) value.charAt(at)) + " at " + at;
    }

    /** The first control character (C0, DEL, C1) or unpaired surrogate in value, or -1. */
    public static int controlCharacterAt(String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (isControl(c)) return i;
            if (Character.isHighSurrogate(c) && (i + 1 == value.length() || !Character.isLowSurrogate(value.charAt(i + 1)))) return i;
            if (Character.isLowSurrogate(c) && (i == 0 || !Character.isHighSurrogate(value.charAt(i - 1)))) return i;
        }
        return -1;
    }

    /** C0 controls (NUL, newline, escape, ...), DEL and the C1 controls. */
    private static boolean isControl(char c) {
        return c < 0x20 || (c >= 0x7F && c <= 0x9F);
    }

    /**
     * Observed text (a process name, an event's detail) as it is kept: cut to max characters, each control character
     * replaced by '?'. Telemetry is not refused for what a host reports about its processes.
     */
    public static String printable(String value, int max) {
        StringBuilder out = new StringBuilder(Math.min(value.length(), max));
        for (int i = 0; i < value.length() && out.length() < max; i++) {
            char c = value.charAt(i);
            out.append(isControl(c) || Character.isSurrogate(c) ? '?' : c);
        }
        return out.toString();
    }

    /** A value as an error message repeats it: quoted, cut to 40 characters, control characters escaped. */
    public static String quote(Object value) {
        if (value == null) return "null";
        String s = value.toString();
        StringBuilder out = new StringBuilder("'");
        for (int i = 0; i < Math.min(s.length(), ECHO); i++) {
            char c = s.charAt(i);
            out.append(isControl(c) || Character.isSurrogate(c) ? String.format("\\u%04x", (int) c) : String.valueOf(c));
        }
        out.append('\'');
        if (s.length() > ECHO) out.append("... (").append(s.length()).append(" characters)");
        return out.toString();
    }
}
