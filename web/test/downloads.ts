/** Stands in for the browser's downloads in page tests (jsdom saves no file). */
import { vi } from 'vitest';

export interface SavedFile {
  name: string;
  blob: Blob;
}

/** From now on, each file the page downloads is kept here, with its name, instead of saved. */
export function captureDownloads(): SavedFile[] {
  const saved: SavedFile[] = [];
  let lastBlob: Blob | null = null;
  vi.stubGlobal(
    'URL',
    Object.assign(URL, {
      createObjectURL: (blob: Blob) => {
        lastBlob = blob;
        return 'blob:download';
      },
      revokeObjectURL: () => undefined,
    }),
  );
  vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (
    this: HTMLAnchorElement,
  ) {
    if (lastBlob) saved.push({ name: this.download, blob: lastBlob });
  });
  return saved;
}
