/** Every route family the gateway serves. The vendor-native forms add theirs here. */
import { coreRouteFamilies, type RouteFamily } from '../app';
import { addGeminiRoutes } from './gemini';
import { addMessagesRoutes } from './messages';
import { addResponsesRoutes } from './responses';

export const allRouteFamilies: RouteFamily[] = [
  ...coreRouteFamilies,
  addMessagesRoutes,
  addResponsesRoutes,
  addGeminiRoutes,
];
