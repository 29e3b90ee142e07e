package dev.horizon.kit;

/**
 * Optional extra for a {@link HeldWorkload} whose hold field older releases of its CRD lack (a RayService before KubeRay
 * added {@code spec.suspend}): the API server drops the field on write, so the workload cannot be held and is not
 * submitted; it runs as its operator starts it, and this says why on it.
 */
public interface JobWithOptionalHold {
    /** Why the workload runs unheld, as its explanation says. */
    String unheldReason();
}
