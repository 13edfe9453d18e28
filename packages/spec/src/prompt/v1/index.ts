export { promptModeSchema, type PromptMode } from './prompt-mode';
