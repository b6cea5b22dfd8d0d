import { maximumImageBytes, readImageAsDataUrl, sniffImageType } from './image-files';

const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
const jpeg = Uint8Array.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46]);
const gif = new TextEncoder().encode('GIF89a\u0001\u0000');
const webp = new TextEncoder().encode('RIFF\u0024\u0000\u0000\u0000WEBPVP8 ');

describe('sniffImageType', () => {
  it.each([
    ['PNG', png, 'image/png'],
    ['JPEG', jpeg, 'image/jpeg'],
    ['GIF', gif, 'image/gif'],
    ['WebP', webp, 'image/webp'],
    ['text', new TextEncoder().encode('just some text'), null],
    [
      'a RIFF that is not WebP',
      new TextEncoder().encode('RIFF\u0024\u0000\u0000\u0000WAVEfmt '),
      null,
    ],
    ['nothing', new Uint8Array(), null],
  ])('%s', (_name, bytes, type) => {
    expect(sniffImageType(bytes)).toBe(type);
  });
});

describe('readImageAsDataUrl', () => {
  it('refuses a text file named .png, whatever type the browser guessed from the name', async () => {
    const file = new File(['hello, I am text'], 'photo.png', { type: 'image/png' });
    await expect(readImageAsDataUrl(file)).rejects.toThrow(
      /“photo.png” is not a PNG, JPEG, GIF or WebP image/,
    );
  });

  it('takes the type from the content, not the name', async () => {
    const file = new File([jpeg], 'looks-like.png', { type: 'image/png' });
    await expect(readImageAsDataUrl(file)).resolves.toMatch(/^data:image\/jpeg;base64,/);
    const url = await readImageAsDataUrl(new File([png], 'pixel.png'));
    expect(url).toBe(`data:image/png;base64,${btoa(String.fromCharCode(...png))}`);
  });

  it('refuses an empty or too large file before reading it, saying the limit', async () => {
    await expect(readImageAsDataUrl(new File([], 'empty.png'))).rejects.toThrow(
      '“empty.png” is empty.',
    );
    const large = new File([new Uint8Array(maximumImageBytes + 1)], 'huge.png');
    await expect(readImageAsDataUrl(large)).rejects.toThrow(
      '“huge.png” is 5.0 MB; images up to 5.0 MB can be attached.',
    );
  });
});
