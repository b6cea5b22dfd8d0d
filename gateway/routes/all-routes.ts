/** Every route family the gateway serves. The vendor-native forms add theirs here. */
import { coreRouteFamilies, type RouteFamily } from '../app';

export const allRouteFamilies: RouteFamily[] = [...coreRouteFamilies];
