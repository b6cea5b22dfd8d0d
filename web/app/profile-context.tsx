/**
 * The chosen key profile, shared by every page. Only the profile's name is stored (localStorage
 * `workbench.profile`): the key itself stays with the BFF. A `?profile=` in the URL wins, so a
 * bookmarked page opens on the same profile, and choosing one writes it there (one history
 * entry per choice). A `?profile=` the BFF does not hold is reported, not silently replaced.
 */
import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from 'react';
import { useSearchParams } from 'react-router';
import type { Profile } from '../../contract/workbench-api';
import { useProfiles } from '../api/profiles';

export const profileStorageKey = 'workbench.profile';

export interface ProfileContextValue {
  /** The chosen profile's name; null while profiles load or when the BFF holds none. */
  profile: string | null;
  setProfile(name: string): void;
  profiles: Profile[];
  /** The URL's `?profile=` when the BFF holds no profile of that name; null otherwise. */
  unknownProfile: string | null;
  /** Removes an unknown `?profile=` from the URL. */
  forgetUnknownProfile(): void;
}

const ProfileContext = createContext<ProfileContextValue | null>(null);

function readStoredProfile(): string | null {
  try {
    return window.localStorage.getItem(profileStorageKey);
  } catch {
    // Storage can be blocked (private mode, policies); the choice then lasts for the page only.
    return null;
  }
}

function storeProfile(name: string): void {
  try {
    window.localStorage.setItem(profileStorageKey, name);
  } catch {
    // See readStoredProfile.
  }
}

const noProfiles: Profile[] = [];

export function ProfileProvider({ children }: { children: ReactNode }) {
  const profilesQuery = useProfiles();
  const profiles = profilesQuery.data?.profiles ?? noProfiles;
  const [searchParams, setSearchParams] = useSearchParams();
  const urlProfile = searchParams.get('profile');
  const [chosen, setChosen] = useState<string | null>(readStoredProfile);

  const known = useCallback(
    (name: string | null) => name !== null && profiles.some((candidate) => candidate.name === name),
    [profiles],
  );
  const unknownProfile =
    profilesQuery.isSuccess && urlProfile !== null && !known(urlProfile) ? urlProfile : null;

  const profile = useMemo(() => {
    if (profiles.length === 0) return null;
    if (known(urlProfile)) return urlProfile;
    if (known(chosen)) return chosen;
    return profiles[0]?.name ?? null;
  }, [profiles, urlProfile, chosen, known]);

  const setProfile = useCallback(
    (name: string) => {
      setChosen(name);
      storeProfile(name);
      setSearchParams((current) => {
        const next = new URLSearchParams(current);
        next.set('profile', name);
        return next;
      });
    },
    [setSearchParams, setChosen],
  );

  const forgetUnknownProfile = useCallback(() => {
    setSearchParams(
      (current) => {
        const next = new URLSearchParams(current);
        next.delete('profile');
        return next;
      },
      { replace: true },
    );
  }, [setSearchParams]);

  const value = useMemo(
    () => ({ profile, setProfile, profiles, unknownProfile, forgetUnknownProfile }),
    [profile, setProfile, profiles, unknownProfile, forgetUnknownProfile],
  );
  return <ProfileContext.Provider value={value}>{children}</ProfileContext.Provider>;
}

export function useProfile(): ProfileContextValue {
  const value = useContext(ProfileContext);
  if (!value) throw new Error('useProfile() needs a <ProfileProvider> above it.');
  return value;
}
