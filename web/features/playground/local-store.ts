/**
 * A tiny localStorage-backed list, parsed with zod on every read so an entry written by an
 * older page version (or by hand) can never crash the playground, and observable with
 * `useSyncExternalStore`, so every component showing it stays current (other tabs included).
 */
import { useSyncExternalStore } from 'react';
import { z } from 'zod';

export interface LocalListStore<T> {
  read(): T[];
  /** Writes the list; returns false when the browser refused (quota, blocked storage). */
  write(items: T[]): boolean;
  subscribe(listener: () => void): () => void;
}

export function createLocalListStore<T>(
  storageKey: string,
  itemSchema: z.ZodType<T>,
): LocalListStore<T> {
  const listeners = new Set<() => void>();
  // useSyncExternalStore needs the same array back while nothing changed.
  let cachedText: string | null | undefined;
  let cachedItems: T[] = [];

  function read(): T[] {
    let text: string | null;
    try {
      text = window.localStorage.getItem(storageKey);
    } catch {
      text = null;
    }
    if (text === cachedText) return cachedItems;
    cachedText = text;
    cachedItems = [];
    if (text === null) return cachedItems;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return cachedItems;
    }
    if (!Array.isArray(value)) return cachedItems;
    // One bad entry is dropped, not the whole list.
    cachedItems = value.flatMap((item) => {
      const parsed = itemSchema.safeParse(item);
      return parsed.success ? [parsed.data] : [];
    });
    return cachedItems;
  }

  function notify() {
    for (const listener of listeners) listener();
  }

  function write(items: T[]): boolean {
    try {
      window.localStorage.setItem(storageKey, JSON.stringify(items));
    } catch {
      return false;
    }
    notify();
    return true;
  }

  function subscribe(listener: () => void) {
    listeners.add(listener);
    const onStorage = (event: StorageEvent) => {
      if (event.key === storageKey) listener();
    };
    window.addEventListener('storage', onStorage);
    return () => {
      listeners.delete(listener);
      window.removeEventListener('storage', onStorage);
    };
  }

  return { read, write, subscribe };
}

export function useLocalList<T>(store: LocalListStore<T>): T[] {
  return useSyncExternalStore(store.subscribe, store.read, store.read);
}
