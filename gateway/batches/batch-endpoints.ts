/**
 * The endpoints a batch's lines may be sent to, and the form each is run as: the OpenAI shape's
 * three, and the Messages form for the Anthropic shape (docs/batches.md).
 */
import { openAiBatchEndpoints, type OpenAiBatchEndpoint } from '../../contract/batches';
import { messagesForm } from '../forms/anthropic';
import { chatCompletionsForm } from '../forms/openai';
import { embeddingsForm } from '../forms/openai/embeddings-form';
import { responsesForm } from '../forms/responses';
import type { LineForm } from './line-runner';

/** What `POST /v1/batches` takes as `endpoint` (one list, shared with the workbench). */
export const OPENAI_BATCH_ENDPOINTS = openAiBatchEndpoints;
export type { OpenAiBatchEndpoint };

/** The endpoint of every line of a Message Batch. */
export const MESSAGES_ENDPOINT = '/v1/messages';

const forms: Record<string, LineForm> = {
  '/v1/chat/completions': { kind: 'chat', form: chatCompletionsForm },
  '/v1/responses': { kind: 'chat', form: responsesForm },
  '/v1/embeddings': { kind: 'embeddings', form: embeddingsForm },
  [MESSAGES_ENDPOINT]: { kind: 'chat', form: messagesForm },
};

/** The form a batch's lines run as; undefined for an endpoint no batch takes. */
export const lineFormOf = (endpoint: string): LineForm | undefined => forms[endpoint];
