/**
 * "Get code": one generator per language and client, all pure functions of the request and the
 * gateway's base URL. The native forms are offered only for the models they fit.
 */
import type { CatalogModel } from '../../../../contract/workbench-api';
import { generateAnthropicTypeScript } from './anthropic-typescript';
import { generateCurl } from './curl';
import { generateGeminiTypeScript } from './gemini-typescript';
import { generateOpenAiPython } from './openai-python';
import { generateOpenAiTypeScript } from './openai-typescript';
import type { CodeExportInput } from './shared';

export type { CodeExportInput } from './shared';

export type CodeTargetId =
  'curl' | 'openai-typescript' | 'openai-python' | 'anthropic-typescript' | 'gemini-typescript';

export interface CodeTarget {
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
  generate(input: CodeExportInput): string;
}

export const codeTargets: readonly CodeTarget[] = [
  {
    id: 'curl',
    label: 'curl',
    language: 'bash',
    fileName: 'request.sh',
    howToRun: 'bash request.sh',
    generate: generateCurl,
  },
  {
    id: 'openai-typescript',
    label: 'JavaScript (openai)',
    language: 'typescript',
    fileName: 'openai.mjs',
    howToRun: 'npm install openai && node openai.mjs',
    generate: generateOpenAiTypeScript,
  },
  {
    id: 'openai-python',
    label: 'Python (openai)',
    language: 'python',
    fileName: 'request.py',
    howToRun: 'pip install openai && python request.py',
    generate: generateOpenAiPython,
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
