/**
 * The workbench serves its built UI compressed: brotli to a browser that takes it, with the
 * hashed assets cached for good and the page itself revalidated.
 */
import { expect, test } from './fixtures';

test('the page and its scripts arrive brotli-compressed, hashed assets cached for a year', async ({
  page,
  request,
}) => {
  const scripts: string[] = [];
  page.on('response', (response) => {
    if (response.request().resourceType() === 'script') scripts.push(response.url());
  });
  const answer = await page.goto('/catalog');
  expect((await answer!.allHeaders())['content-encoding']).toBe('br');
  await expect(page.getByRole('heading', { name: 'Catalog', level: 1 })).toBeVisible();
  expect(scripts.length).toBeGreaterThan(0);
  for (const url of scripts) {
    const script = await request.get(url, { headers: { 'accept-encoding': 'br' } });
    expect(script.headers()['content-encoding'], url).toBe('br');
    expect(script.headers()['cache-control'], url).toBe('public, max-age=31536000, immutable');
  }
  const plain = await request.get('/catalog', { headers: { 'accept-encoding': 'identity' } });
  expect(plain.headers()['content-encoding']).toBeUndefined();
  expect(plain.headers()['cache-control']).toBe('no-cache');
});
