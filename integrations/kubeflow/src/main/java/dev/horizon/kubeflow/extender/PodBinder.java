package dev.horizon.kubeflow.extender;

/** Binds a pod to a node (in production a Binding through the Kubernetes API). */
@FunctionalInterface
public interface PodBinder {
    void bind(String namespace, String pod, String uid, String node);
}
