/**
 * What a member may reach through `/api`: their own key profile and nothing else. Every route
 * finds its key by a profile name, from one of three places: the path (`/profiles/:profile/…`),
 * the query (`?profile=`) or the JSON body (`{"profile": …}`). This guard reads all three before
 * any route runs and refuses a member who names another profile; admin routes (people, audit)
 * refuse members outright. Admins, the access token and the loopback workbench pass.
 */
import type { Request, RequestHandler } from 'express';
import { viewerOf } from '../sign-in/access';
import { ApiFailure } from '../core/errors';

const profileInPath = /^\/profiles\/([^/]+)(?:\/|$)/;

/** The profile names a request carries, wherever it carries them. */
export function profilesNamedBy(request: Request): string[] {
  const names: string[] = [];
  const fromPath = profileInPath.exec(request.path)?.[1];
  if (fromPath !== undefined) {
    try {
      names.push(decodeURIComponent(fromPath));
    } catch {
      names.push(fromPath);
    }
  }
  const fromQuery = (request.query as Record<string, unknown>).profile;
  // `?profile=a&profile=b` arrives as a list: each name counts.
  for (const value of [fromQuery].flat()) if (value !== undefined) names.push(String(value));
  const body: unknown = request.body;
  if (body !== null && typeof body === 'object' && 'profile' in body) {
    names.push(String((body as { profile: unknown }).profile));
  }
  return names;
}

/** Routes for admins only: everything under these, except a person's own `/people/me…`. */
const adminOnly = /^\/(?:people|audit)(?:\/|$)/;
const ownPersonRoutes = /^\/people\/me(?:\/|$)/;

export function scopeGuard(): RequestHandler {
  return (request, response, next) => {
    const viewer = viewerOf(response);
    if (viewer.role === 'admin') return next();
    if (adminOnly.test(request.path) && !ownPersonRoutes.test(request.path)) {
      return next(
        new ApiFailure(403, {
          message: 'Only an admin of this workbench may do this.',
          stage: 'session',
          type: 'admin_only',
          advice:
            'Admins are named by WORKBENCH_ADMIN_EMAILS or WORKBENCH_ADMIN_GROUPS; ask one of them.',
        }),
      );
    }
    const own = new Set(viewer.profiles ?? []);
    const foreign = profilesNamedBy(request).find((name) => !own.has(name));
    if (foreign !== undefined) {
      // The answer does not say whether such a profile exists.
      return next(
        new ApiFailure(403, {
          message:
            own.size > 0
              ? `You may use only your own key profile ("${[...own][0]}").`
              : 'You have no key profile of your own yet.',
          stage: 'profile',
          field: 'profile',
          type: 'not_your_profile',
          advice: 'Ask an admin of this workbench if you need another key.',
        }),
      );
    }
    next();
  };
}
