import { describe, expect, it } from 'vitest';
import { makePng } from '../../../test/fixtures/pngImages';
import { base64Size, checkImages, formatBytes, imageDimensions, sniffImageMime } from './imageInfo';

const bytes = (...parts: Array<number[] | string>) => new Uint8Array(parts.flatMap((p) => (typeof p === 'string' ? [...Buffer.from(p, 'latin1')] : p)));
/** A JPEG head: SOI, an APP0 segment, then a baseline SOF0 frame of 640×480. */
const JPEG = bytes([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10], 'JFIF\0', [1, 1, 0, 0, 1, 0, 1, 0, 0], [0xff, 0xc0, 0x00, 0x11, 0x08, 0x01, 0xe0, 0x02, 0x80, 3], new Array(20).fill(0));
const GIF = bytes('GIF89a', [0x20, 0x03, 0x58, 0x02], new Array(10).fill(0));
/** A lossless WebP of 300×200 (VP8L: width-1 and height-1 in 14 bits each). */
const WEBP = (() => {
  const head = bytes('RIFF', [0, 0, 0, 0], 'WEBPVP8L', [0, 0, 0, 0, 0x2f]);
  const bits = (299 & 0x3fff) | ((199 & 0x3fff) << 14);
  return new Uint8Array([...head, bits & 0xff, (bits >> 8) & 0xff, (bits >> 16) & 0xff, (bits >>> 24) & 0xff, 0, 0, 0, 0, 0]);
})();

describe('image types and sizes', () => {
  it('reads the type from the first bytes and the size from the header of PNG, JPEG, GIF and WebP', () => {
    const png = makePng(1024, 768, 1);
    expect([sniffImageMime(png), imageDimensions(png, 'image/png')]).toEqual(['image/png', { width: 1024, height: 768 }]);
    expect([sniffImageMime(JPEG), imageDimensions(JPEG, 'image/jpeg')]).toEqual(['image/jpeg', { width: 640, height: 480 }]);
    expect([sniffImageMime(GIF), imageDimensions(GIF, 'image/gif')]).toEqual(['image/gif', { width: 800, height: 600 }]);
    expect([sniffImageMime(WEBP), imageDimensions(WEBP, 'image/webp')]).toEqual(['image/webp', { width: 300, height: 200 }]);
    expect(sniffImageMime(bytes('<svg xmlns="http://www.w3.org/2000/svg"/>'))).toBeUndefined();
    expect(imageDimensions(bytes([0xff, 0xd8, 0xff]), 'image/jpeg')).toBeUndefined();
  });

  it('checks images: the bytes decide the type whatever the caller said, names lose folders, and the limits name the setting', () => {
    const [checked] = checkImages([{ bytes: JPEG, mime: 'image/png', name: '../../etc/photo.png' }]);
    expect(checked).toMatchObject({ mime: 'image/jpeg', name: 'photo.png', width: 640, height: 480 });
    expect(checkImages([{ bytes: GIF }])[0].name).toBe('image.gif');
    expect(() => checkImages([{ bytes: makePng(100, 100), name: 'big.png' }], 200)).toThrow(/Image "big\.png" is .* more than the 200 bytes an image may be \(setting arbor\.images\.maxBytes\)/);
    expect(() => checkImages([{ base64: 'not base64!!', name: 'x.png' }])).toThrow(/not valid base64/);
    expect(() => checkImages('nope')).toThrow(/images must be an array/);
    expect(() => checkImages([{ name: 'empty.png' }])).toThrow(/neither bytes/);
  });

  it('sizes base64 without decoding it, and formats sizes for people', () => {
    const png = makePng(10, 10);
    expect(base64Size(Buffer.from(png).toString('base64'))).toBe(png.length);
    expect([formatBytes(300), formatBytes(2048), formatBytes(5 * 1024 * 1024)]).toEqual(['300 bytes', '2 KB', '5 MB']);
  });
});
