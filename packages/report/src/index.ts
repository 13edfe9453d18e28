export {
  writeReport,
  type WriteReportOptions,
  type WriteReportResult,
} from './write-report';
export {
  startViewer,
  type RunViewer,
  type StartViewerOptions,
} from './viewer/start-viewer';
export {
  buildReportData,
  type BuildReportDataOptions,
  type TrainingOutcome,
} from './build-report-data';
export {
  renderReportHtml,
  type RenderReportHtmlOptions,
} from './render-report-html';
export { loadChartLibrary, type ChartLibrary } from './chart-library';
export { codArmsFileName, codArmsSchema, type CodArms } from './cod-arms';
export { readRunDirectory, type RunData } from './read-run-directory';
export {
  listEpisodeFiles,
  parseEpisodeFileName,
  readEpisodeFile,
  type EpisodeFile,
} from './episode-files';
export {
  listPackRunFiles,
  parsePackRunFileName,
  readPackRuns,
  type PackRunFile,
} from './pack-run-files';
export { readJsonLines, type JsonLinesResult } from './read-json-lines';
export type { EpisodeAssessment, EpisodeDiagnoser } from './episode-assessment';
export {
  conversationTurns,
  type Conversation,
  type ConversationStep,
  type ConversationTurn,
  type StepCall,
} from './viewer/conversation-turns';
export type {
  CurriculumStageSpan,
  OverlaySummary,
  PackPositionCurve,
  ReportData,
  Series,
  TrainingCategories,
} from './report-data';
export { escapeHtml } from './html';
