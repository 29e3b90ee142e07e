package dev.horizon.kubernetes;

import io.fabric8.kubernetes.client.KubernetesClientException;

/** An API server's refusal as one line for a workload's condition or a command's error, saying what to do where it can. */
public final class KubernetesRefusal extends RuntimeException {
    private final int code;

    private KubernetesRefusal(String message, int code, Throwable cause) {
        super(message, cause);
        this.code = code;
    }

    /**
     * verb ("creating", "updating", ...) and what ("ResourceClaimTemplate ml/llama-worker") name the call. A 404 on a list
     * or create means the cluster does not serve the kind at all.
     */
    public static KubernetesRefusal of(KubernetesClientException e, String verb, String what) {
        String why = e.getStatus() != null && e.getStatus().getMessage() != null ? e.getStatus().getMessage() : e.getMessage();
        String hint = switch (e.getCode()) {
            case 404 -> "; the cluster does not serve it: resource.k8s.io/v1 needs Kubernetes 1.34 or later, and a GPU Operator object its install";
            case 403 -> "; Horizon's service account may not: install the chart's ClusterRole";
            case 409 -> "; it changed meanwhile, Horizon tries again";
            default -> "";
        };
        return new KubernetesRefusal("the API server refused " + verb + " " + what + " (HTTP " + e.getCode() + ": " + why + ")" + hint, e.getCode(), e);
    }

    /** The HTTP status the API server answered. */
    public int code() {
        return code;
    }
}
