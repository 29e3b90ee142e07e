package dev.horizon.simulation;

import dev.horizon.allocator.model.Decision;
import dev.horizon.allocator.moment.ClusterMoment;

/**
 * Told of every decision with the moment it was made on, before it is carried out (the bench's start-time calibration
 * listens so). It sees what the policy saw; it may plan on the moment itself, but changes nothing of the world.
 */
public interface DecisionObserver {
    void decided(ClusterMoment moment, Decision decision);
}
