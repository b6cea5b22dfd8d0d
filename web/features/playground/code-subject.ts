/**
 * What "Get code" is built from: for an embedding model, the embeddings view's inputs; else the
 * last request sent when nothing new is typed, or the conversation with the draft as it would
 * be sent now, in the chosen API's form.
 */
import type { CatalogModel, InferenceApi } from '../../../contract/workbench-api';
import { buildChatRequest } from './build-request';
import type { CodeSubject } from './components/code-dialog';
import { resolveDraft, type ComposerDraft } from './components/composer';
import { createMessage, lastSentRequest } from './conversation-state';
import { isEmbeddingModel } from './embeddings/similarity';
import { embeddingsRequestOf, type EmbeddingsDraft } from './embeddings/use-embeddings-draft';
import type { PlaygroundSession, RunRecord, ToolCall } from './playground-types';

export interface CodeSubjectInput {
  profile: string | null;
  model: string;
  catalogModel: CatalogModel | undefined;
  api: InferenceApi;
  session: PlaygroundSession;
  draft: ComposerDraft;
  hasDraft: boolean;
  openToolCalls: ToolCall[];
  embeddingsDraft: EmbeddingsDraft;
}

/** The subject, or null when there is nothing to build code from yet. */
export function codeSubjectOf(input: CodeSubjectInput): CodeSubject | null {
  const { profile, model, session, draft, api } = input;
  if (!profile || !model) return null;
  if (isEmbeddingModel(input.catalogModel)) {
    const built = embeddingsRequestOf(input.embeddingsDraft, model);
    return built.ok ? { kind: 'embeddings', request: built.request } : null;
  }
  const sent = input.hasDraft ? null : lastSentRequest(session.messages);
  if (sent) return { kind: 'chat', request: sent, api };
  const resolved = resolveDraft(draft, input.openToolCalls);
  const messages = input.hasDraft
    ? [
        ...session.messages,
        createMessage(resolved.role, draft.text, {
          images: draft.images,
          ...(resolved.toolCallId ? { toolCallId: resolved.toolCallId } : {}),
        }),
      ]
    : session.messages;
  const build = buildChatRequest({
    profile,
    model,
    catalogModel: input.catalogModel,
    systemPrompt: session.systemPrompt,
    messages: messages.length > 0 ? messages : [createMessage('user', 'Hello!')],
    parameters: session.parameters,
    toolsText: session.toolsText,
    api,
  });
  return build.ok ? { kind: 'chat', request: build.body.request, api } : null;
}

/** The code of a reply's own request, in the API it went through. */
export function codeSubjectOfRun(run: RunRecord): CodeSubject {
  return { kind: 'chat', request: run.request.request, api: run.request.api ?? 'chat_completions' };
}
