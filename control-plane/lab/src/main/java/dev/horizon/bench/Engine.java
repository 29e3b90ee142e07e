package dev.horizon.bench;

import dev.horizon.allocator.SchedulingPolicy;
import dev.horizon.simulation.Scenario;

/**
 * What makes Horizon's decisions in a bench run. The simulator engine is the allocator's policy called directly; the
 * service engine ({@code --engine service}, in control-plane/lab-service) replays the scenario through the real
 * service's planning code and store. The simulator owns the world in both: arrivals, true durations, completions and
 * inference demand.
 */
public interface Engine {
    /** As results.json names it under scenario.engine. */
    String name();

    /** Horizon's decision maker for one run of the scenario, set up on it. */
    SchedulingPolicy horizon(Scenario scenario);

    /** The allocator's policy itself. */
    Engine SIMULATOR = new Engine() {
        @Override
        public String name() {
            return "simulator";
        }

        @Override
        public SchedulingPolicy horizon(Scenario scenario) {
            return new dev.horizon.allocator.policy.HorizonPolicy();
        }
    };
}
