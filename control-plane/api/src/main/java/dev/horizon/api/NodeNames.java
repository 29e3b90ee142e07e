package dev.horizon.api;

import java.util.List;
import java.util.regex.Pattern;

/**
 * A node's name is a DNS-1123 subdomain, as Kubernetes names nodes: lower-case letters, digits, '-' and '.', each
 * dot-separated label starting and ending with a letter or digit, 253 characters at most. Names are kept inside stored
 * placements ("node-1[0-3]+node-2[0-7]"), in URL paths and in file names, so '[', ']', '+', '/', '%' and the like must
 * never reach them.
 */
public final class NodeNames {
    private static final Pattern DNS_1123_SUBDOMAIN = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

    private NodeNames() {
    }

    public static boolean valid(String name) {
        return name != null && name.length() <= Limits.NAME && DNS_1123_SUBDOMAIN.matcher(name).matches();
    }

    /** Adds the problem with a node name in field (null passes: the caller says whether it is required). */
    public static void check(String field, String name, List<String> problems) {
        if (name == null || valid(name)) return;
        problems.add(field + " must be a DNS-1123 subdomain, as Kubernetes names nodes: lower-case letters, digits, '-' and '.', starting and"
                + " ending with a letter or digit, at most " + Limits.NAME + " characters (got " + Limits.quote(name) + ")");
    }
}
