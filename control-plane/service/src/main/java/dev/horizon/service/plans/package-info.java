/**
 * What the rest of the service needs from planning without depending on it: asking for a plan ({@link
 * dev.horizon.service.plans.PlanRequests}, which the planner implements) and the planner's settings ({@link
 * dev.horizon.service.plans.PlannerSettings}).
 */
package dev.horizon.service.plans;
