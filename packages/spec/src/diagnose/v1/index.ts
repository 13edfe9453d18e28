export {
  capabilityTagSchema,
  episodeDiagnosisSchema,
  toolErrorEvidenceSchema,
  turnDiagnosisSchema,
  type CapabilityTag,
  type EpisodeDiagnosis,
  type ToolErrorEvidence,
  type TurnDiagnosis,
} from './episode-diagnosis';
export {
  trajectoryDiagnosticsSchema,
  type TrajectoryDiagnostics,
} from './trajectory-diagnostics';
export {
  capabilityBucketsSchema,
  capabilitySnapshotSchema,
  capabilityStateRecordSchema,
  capabilityStatsSchema,
  capabilityStatsSnapshotSchema,
  taskCapabilitySchema,
  type CapabilityBuckets,
  type CapabilitySnapshot,
  type CapabilityStateRecord,
  type CapabilityStats,
  type CapabilityStatsSnapshot,
  type TaskCapability,
} from './capability-state-record';
export {
  diagnosisSummarySchema,
  type DiagnosisSummary,
} from './diagnosis-summary';
