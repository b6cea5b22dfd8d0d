/** `16777216` → `16 MiB`, `4096` → `4 KiB`, `1000` → `1000 bytes`: a size limit as people write it. */
export function byteSize(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}
