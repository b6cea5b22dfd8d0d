/** Every route family the gateway serves. The vendor-native forms add theirs here. */
import { coreRouteFamilies, type RouteFamily } from '../app';
import { addGeminiRoutes } from './gemini';
import { addMessagesRoutes } from './messages';

export const allRouteFamilies: RouteFamily[] = [
  ...coreRouteFamilies,
  addMessagesRoutes,
  addGeminiRoutes,
];
