import { createBfclPythonProtocol } from './bfcl-python-protocol';
import { createEnvTuningProtocol } from './envtuning-protocol';
import { createOpenAiToolsProtocol } from './openai-tools-protocol';
import { createQwenXmlProtocol } from './qwen-xml-protocol';
import type { ToolCallProtocol } from './tool-call-protocol';

/** The built-in protocols by name. */
export const protocolNames = [
  'qwen-xml',
  'bfcl-python',
  'openai-tools',
  'envtuning',
] as const;
/** One of {@link protocolNames}. */
export type ProtocolName = (typeof protocolNames)[number];

/** Creates a built-in protocol by name. */
export function createProtocol(name: ProtocolName): ToolCallProtocol {
  switch (name) {
    case 'qwen-xml':
      return createQwenXmlProtocol();
    case 'bfcl-python':
      return createBfclPythonProtocol();
    case 'openai-tools':
      return createOpenAiToolsProtocol();
    case 'envtuning':
      return createEnvTuningProtocol();
  }
}
