export { NodeMetrics, NODE_METRICS, type NodeMetricsSources } from './node-metrics';
export { NO_A2A_OBSERVER, NO_TOOL_OBSERVER } from './observer';
export type {
  A2AObserver,
  ToolObserver,
  UsageObserver,
  CardKind,
  A2ABinding,
  RoutingOutcome,
  ToolTokenOutcome,
  ToolCallOutcome,
  UsageBatchOutcome,
} from './observer';
