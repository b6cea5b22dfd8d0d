/**
 * "Get code": one generator per language and client, all pure functions of the request and the
 * gateway's base URL. The native forms are offered only for the models they fit. With the
 * Responses API chosen, curl and the `openai` clients call `/v1/responses`; an embedding model
 * gets its own targets for `/v1/embeddings`.
 */
import type { CatalogModel } from '../../../../contract/workbench-api';
import { generateAnthropicTypeScript } from './anthropic-typescript';
import { generateCurl } from './curl';
import { generateGeminiTypeScript } from './gemini-typescript';
import { generateOpenAiPython } from './openai-python';
import {
  generateEmbeddingsCurl,
  generateEmbeddingsPython,
  generateEmbeddingsTypeScript,
  type EmbeddingsCodeInput,
} from './openai-embeddings';
import {
  generateResponsesCurl,
  generateResponsesPython,
  generateResponsesTypeScript,
} from './openai-responses';
import { generateOpenAiTypeScript } from './openai-typescript';
import type { CodeExportInput } from './shared';

export type { CodeExportInput } from './shared';
export type { EmbeddingsCodeInput } from './openai-embeddings';

export type CodeTargetId =
  'curl' | 'openai-typescript' | 'openai-python' | 'anthropic-typescript' | 'gemini-typescript';

export interface CodeTarget<Input = CodeExportInput> {
  id: CodeTargetId;
  label: string;
  /** The language, for highlighting. */
  language: 'bash' | 'typescript' | 'python';
  /**
   * The file to save the snippet as, so it runs as written. The JavaScript ones are ES modules
   * (`import`, top-level `await`): Node 20 runs them as `.mjs`, with no TypeScript tooling.
   */
  fileName: string;
  /** How to run the saved file, with what to install first. */
  howToRun: string;
  generate(input: Input): string;
}

/** The chat generator, or the Responses one when that API is chosen. */
const byApi =
  (chat: (input: CodeExportInput) => string, responses: (input: CodeExportInput) => string) =>
  (input: CodeExportInput) => (input.api === 'responses' ? responses(input) : chat(input));

export const codeTargets: readonly CodeTarget[] = [
  {
    id: 'curl',
    label: 'curl',
    language: 'bash',
    fileName: 'request.sh',
    howToRun: 'bash request.sh',
    generate: byApi(generateCurl, generateResponsesCurl),
  },
  {
    id: 'openai-typescript',
    label: 'JavaScript (openai)',
    language: 'typescript',
    fileName: 'openai.mjs',
    howToRun: 'npm install openai && node openai.mjs',
    generate: byApi(generateOpenAiTypeScript, generateResponsesTypeScript),
  },
  {
    id: 'openai-python',
    label: 'Python (openai)',
    language: 'python',
    fileName: 'request.py',
    howToRun: 'pip install openai && python request.py',
    generate: byApi(generateOpenAiPython, generateResponsesPython),
  },
  {
    id: 'anthropic-typescript',
    label: 'Messages (@anthropic-ai/sdk)',
    language: 'typescript',
    fileName: 'anthropic.mjs',
    howToRun: 'npm install @anthropic-ai/sdk && node anthropic.mjs',
    generate: generateAnthropicTypeScript,
  },
  {
    id: 'gemini-typescript',
    label: 'Gemini (@google/genai)',
    language: 'typescript',
    fileName: 'gemini.mjs',
    howToRun: 'npm install @google/genai && node gemini.mjs',
    generate: generateGeminiTypeScript,
  },
];

/** The targets for an embedding model: `POST /v1/embeddings` with curl and the `openai` clients. */
export const embeddingsCodeTargets: readonly CodeTarget<EmbeddingsCodeInput>[] = [
  {
    id: 'curl',
    label: 'curl',
    language: 'bash',
    fileName: 'embeddings.sh',
    howToRun: 'bash embeddings.sh',
    generate: generateEmbeddingsCurl,
  },
  {
    id: 'openai-typescript',
    label: 'JavaScript (openai)',
    language: 'typescript',
    fileName: 'embeddings.mjs',
    howToRun: 'npm install openai && node embeddings.mjs',
    generate: generateEmbeddingsTypeScript,
  },
  {
    id: 'openai-python',
    label: 'Python (openai)',
    language: 'python',
    fileName: 'embeddings.py',
    howToRun: 'pip install openai && python embeddings.py',
    generate: generateEmbeddingsPython,
  },
];

/** Whether a target fits a model, and why not when it does not. */
export function codeTargetFit(
  target: CodeTargetId,
  model: CatalogModel | undefined,
  modelId: string,
): { fits: boolean; reason: string | null } {
  const id = modelId.toLowerCase();
  const author = (model?.author ?? id.split('/')[0] ?? '').toLowerCase();
  switch (target) {
    case 'anthropic-typescript':
      // The Messages form is the native form of Anthropic's models (and of the simulated ones,
      // which the embedded gateway serves in every form).
      return author === 'anthropic' || author === 'sim' || id.includes('claude')
        ? { fits: true, reason: null }
        : {
            fits: false,
            reason: `The Messages form is offered for anthropic/… models; ${modelId} is not one.`,
          };
    case 'gemini-typescript':
      return author === 'google' || author === 'sim' || id.includes('gemini')
        ? { fits: true, reason: null }
        : {
            fits: false,
            reason: `The Gemini form is offered for google/… models; ${modelId} is not one.`,
          };
    default:
      return { fits: true, reason: null };
  }
}
