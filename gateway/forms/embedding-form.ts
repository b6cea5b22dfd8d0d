/**
 * A public form's embeddings, as one object: where its key travels, how its body becomes a
 * canonical embeddings request, and how the vectors and errors are written in its own shape.
 * The one embeddings route (routes/embeddings.ts) serves every form through this interface.
 */
import type { AuthForm } from '../auth/authenticate';
import type { CanonicalEmbeddingRequest, RecordedFormName } from '../canonical/model';
import type { GatewayError } from '../errors';

/** What the path says: the model (Gemini puts it there) and the method called. */
export type EmbeddingTarget = { model?: string; method?: string; url: URL };

/** The vectors as charged, for the form's answer. */
export type EmbeddingAnswer = {
  /** The catalog id that answered. */
  model: string;
  vectors: number[][];
  /** The prompt tokens charged (the upstream's count, or the gateway's where it gave none). */
  promptTokens: number;
  /** What was charged, in USD (the OpenAI form shows it as `usage.cost`, as chat does). */
  costUsd: number;
  request: CanonicalEmbeddingRequest;
};

export interface EmbeddingForm {
  /** The form its generation records name. */
  readonly name: RecordedFormName;
  readonly auth: AuthForm;
  /** The JSON body → canonical request, or the 400 that names the bad field. */
  toCanonical(body: unknown, target: EmbeddingTarget): CanonicalEmbeddingRequest;
  toResponse(answer: EmbeddingAnswer, target: EmbeddingTarget): unknown;
  errorBody(error: GatewayError, traceId: string): unknown;
}
