/**
 * A public form (chat completions, Messages, Gemini) as one object: where its key travels, how its
 * body becomes a canonical request, and how answers and errors are written in its own shape. The
 * one inference route (routes/inference.ts) serves all three through this interface.
 */
import type { ServerResponse } from 'node:http';
import type { AuthForm } from '../auth/authenticate';
import type {
  CanonicalRequest,
  CanonicalResponse,
  PipelineEvent,
  PublicFormName,
} from '../canonical/model';
import type { GatewayError } from '../errors';
import type { AnswerCheck } from '../pipeline/inference-pipeline';

/** What the path says about the request, for forms that put the model or mode in the URL. */
export type PathTarget = { model?: string; stream?: boolean; url: URL };

/** What a writer needs to know beyond the events. */
export type AnswerMeta = {
  /** The catalog id that answered. */
  model: string;
  traceId: string;
  /** Unix seconds when the answer began. */
  created: number;
  /** The gateway's prompt count, for forms that announce it before the answer. */
  promptTokens: number;
  request: CanonicalRequest;
  url: URL;
  /** The key the answer is for, which sealed reasoning is bound to (`sealReasoning`). */
  keyId?: string;
  /**
   * Keeps the finished answer's body (the Responses form's stored responses) before the client
   * is told it finished; absent where nothing is kept.
   */
  keep?: (answer: unknown) => Promise<void>;
};

export interface PublicForm {
  readonly name: PublicFormName;
  readonly auth: AuthForm;
  /** The JSON body → canonical request, or the 400 that names the bad field. */
  toCanonical(body: unknown, target: PathTarget): CanonicalRequest;
  toResponse(answer: CanonicalResponse, meta: AnswerMeta): unknown;
  /** Writes the answer as the form's stream; a failure mid-way ends it with the form's error event. */
  writeStream(
    response: ServerResponse,
    events: AsyncIterable<PipelineEvent>,
    meta: AnswerMeta,
  ): Promise<void>;
  errorBody(error: GatewayError, traceId: string): unknown;
  /** Request headers (lower-case) an upstream of this form gets as sent, e.g. `anthropic-beta`. */
  readonly passHeaders?: readonly string[];
  /**
   * For a form that cannot carry every answer: a new check per request, which the pipeline runs
   * on each event, so an answer it refuses is recorded as ended early, never as completed.
   */
  answerCheck?(): AnswerCheck;
}

/**
 * The top-level fields of `body` the canonical request does not carry (minus those that change
 * nothing about the answer), so a provider of another form can refuse them by name.
 */
export function unmappedFields(
  body: Record<string, unknown>,
  mapped: ReadonlySet<string>,
): string[] {
  return Object.keys(body).filter(
    (field) => !mapped.has(field) && body[field] !== undefined && body[field] !== null,
  );
}
