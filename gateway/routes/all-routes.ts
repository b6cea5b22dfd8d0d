/**
 * Every route family the gateway serves: the one list the app registers (in this order, which
 * matters: a form's fallback comes after the routes it guards) and `/openapi.json` describes.
 */
import { activityRoutes } from './activity';
import { adminKeyRoutes } from './admin-keys';
import { adminPresetRoutes } from './admin-presets';
import { balanceRoutes } from './balance';
import { batchRoutes } from './batches';
import { chatCompletionRoutes } from './chat-completions';
import { embeddingRoutes } from './embeddings';
import { geminiRoutes } from './gemini';
import { generationRoutes } from './generation';
import { healthRoutes } from './health';
import { keyRoutes } from './keys';
import { keyStatusRoutes } from './key-status';
import { messageBatchRoutes } from './message-batches';
import { messagesRoutes } from './messages';
import { modelEndpointRoutes } from './model-endpoints';
import { modelRoutes } from './models';
import { openApiRoutes } from './openapi';
import { responsesRoutes } from './responses';
import type { RouteFamily } from './route-doc';
import { adminWebhookRoutes, webhookRoutes } from './webhooks';

export const allRouteFamilies: readonly RouteFamily[] = [
  modelRoutes,
  modelEndpointRoutes,
  chatCompletionRoutes,
  embeddingRoutes,
  batchRoutes,
  messageBatchRoutes,
  balanceRoutes,
  keyStatusRoutes,
  generationRoutes,
  activityRoutes,
  keyRoutes,
  adminKeyRoutes,
  adminPresetRoutes,
  webhookRoutes,
  adminWebhookRoutes,
  healthRoutes,
  messagesRoutes,
  responsesRoutes,
  geminiRoutes,
  openApiRoutes(() => allRouteFamilies),
];
