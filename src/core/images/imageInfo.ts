/**
 * What Arbor needs to know of an image before it stores or sends one: its type, read from its first
 * bytes (never trusted from a file name or a browser), and its size in pixels, read from its header.
 * Only the types vision models take are accepted: PNG, JPEG, GIF and WebP.
 */
import { InvalidArgumentError } from '../errors';

/** The image types Arbor accepts. */
export const IMAGE_MIME_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;
/** One of `IMAGE_MIME_TYPES`. */
export type ImageMime = (typeof IMAGE_MIME_TYPES)[number];

/** Default of `arbor.images.maxBytes`: the largest image a message may carry. */
export const DEFAULT_MAX_IMAGE_BYTES = 5 * 1024 * 1024;
/** How many images one message may carry. */
export const MAX_IMAGES_PER_MESSAGE = 20;

/** File name extension of each type, for exports. */
export const IMAGE_EXTENSIONS: Record<ImageMime, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/gif': 'gif', 'image/webp': 'webp' };

const startsWith = (bytes: Uint8Array, prefix: readonly number[], at = 0) => prefix.every((b, i) => bytes[at + i] === b);
const ascii = (text: string) => [...text].map((c) => c.charCodeAt(0));

/** The type of an image from its signature; undefined when it is none of the accepted types. */
export function sniffImageMime(bytes: Uint8Array): ImageMime | undefined {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (startsWith(bytes, ascii('GIF87a')) || startsWith(bytes, ascii('GIF89a'))) return 'image/gif';
  if (startsWith(bytes, ascii('RIFF')) && startsWith(bytes, ascii('WEBP'), 8)) return 'image/webp';
  return undefined;
}

const u16be = (b: Uint8Array, i: number) => (b[i] << 8) | b[i + 1];
const u16le = (b: Uint8Array, i: number) => b[i] | (b[i + 1] << 8);
const u24le = (b: Uint8Array, i: number) => b[i] | (b[i + 1] << 8) | (b[i + 2] << 16);
const u32be = (b: Uint8Array, i: number) => ((b[i] << 24) >>> 0) + ((b[i + 1] << 16) | (b[i + 2] << 8) | b[i + 3]);

/** Width and height of a JPEG from its first start-of-frame marker. */
function jpegSize(b: Uint8Array): { width: number; height: number } | undefined {
  let i = 2;
  while (i + 9 < b.length) {
    if (b[i] !== 0xff) return undefined;
    const marker = b[i + 1];
    if (marker === 0xff) {
      i++;
      continue;
    }
    // SOF0..SOF15 except DHT (C4), JPG (C8) and DAC (CC) carry the frame size.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { height: u16be(b, i + 5), width: u16be(b, i + 7) };
    }
    i += 2 + u16be(b, i + 2);
  }
  return undefined;
}

/** Width and height of a WebP (lossy, lossless or extended). */
function webpSize(b: Uint8Array): { width: number; height: number } | undefined {
  const chunk = String.fromCharCode(...b.subarray(12, 16));
  if (chunk === 'VP8 ' && b.length >= 30) return { width: u16le(b, 26) & 0x3fff, height: u16le(b, 28) & 0x3fff };
  if (chunk === 'VP8L' && b.length >= 25) {
    const bits = b[21] | (b[22] << 8) | (b[23] << 16) | (b[24] << 24);
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  if (chunk === 'VP8X' && b.length >= 30) return { width: u24le(b, 24) + 1, height: u24le(b, 27) + 1 };
  return undefined;
}

/** The size in pixels from the image's header; undefined when the header does not say (a truncated file). */
export function imageDimensions(bytes: Uint8Array, mime: ImageMime): { width: number; height: number } | undefined {
  switch (mime) {
    case 'image/png':
      return bytes.length >= 24 ? { width: u32be(bytes, 16), height: u32be(bytes, 20) } : undefined;
    case 'image/gif':
      return bytes.length >= 10 ? { width: u16le(bytes, 6), height: u16le(bytes, 8) } : undefined;
    case 'image/jpeg':
      return jpegSize(bytes);
    case 'image/webp':
      return webpSize(bytes);
  }
}

/** An image as a caller attaches it: bytes or base64 (a `data:` URL is accepted), and a file name. */
export interface ImageInput {
  bytes?: Uint8Array;
  /** Base64, bare or as a `data:<mime>;base64,` URL; used when `bytes` is not given. */
  base64?: string;
  /** The type the caller believes; checked against the bytes, which win. */
  mime?: string;
  /** The file name shown and used in placeholders ("image.png" when none). */
  name?: string;
}

/** An image checked: its bytes, the type they are, its name and pixel size (null when unknown). */
export interface CheckedImage {
  bytes: Uint8Array;
  mime: ImageMime;
  name: string;
  width: number | null;
  height: number | null;
}

/** How many bytes a base64 text decodes to, without decoding it. */
export function base64Size(base64: string): number {
  const body = base64.replace(/\s/g, '');
  const padding = body.endsWith('==') ? 2 : body.endsWith('=') ? 1 : 0;
  return Math.floor((body.length * 3) / 4) - padding;
}

/** Bytes from bare base64 or a `data:` URL. */
function decodeBase64(value: string, name: string): Uint8Array {
  const comma = value.indexOf(',');
  const body = value.startsWith('data:') && comma >= 0 ? value.slice(comma + 1) : value;
  if (!/^[A-Za-z0-9+/\s]*={0,2}\s*$/.test(body)) throw new InvalidArgumentError(`${name} is not valid base64 image data.`);
  return new Uint8Array(Buffer.from(body, 'base64'));
}

/** File names are shown and written beside exports: no folders, no control characters, at most 200 characters. */
function cleanName(name: unknown, mime: ImageMime): string {
  const base = typeof name === 'string' ? (name.split(/[\\/]/).pop() ?? '') : '';
  const clean = base.replace(/[\u0000-\u001f\u007f]/g, '').trim().slice(0, 200);
  return clean || `image.${IMAGE_EXTENSIONS[mime]}`;
}

/**
 * Checks the images of one message against the limits (`maxBytes` each, `MAX_IMAGES_PER_MESSAGE` in
 * all) and reads their type and size. A refusal names the image, the limit and the setting to change.
 */
export function checkImages(images: unknown, maxBytes = DEFAULT_MAX_IMAGE_BYTES): CheckedImage[] {
  if (!Array.isArray(images)) throw new InvalidArgumentError('images must be an array of { bytes | base64, mime?, name? }.');
  if (images.length > MAX_IMAGES_PER_MESSAGE) {
    throw new InvalidArgumentError(`A message can carry at most ${MAX_IMAGES_PER_MESSAGE} images; this one has ${images.length}. Remove some and send the rest in a second message.`);
  }
  return images.map((image: ImageInput | null, i) => {
    const label = typeof image?.name === 'string' && image.name ? `Image "${image.name}"` : `images[${i}]`;
    if (typeof image !== 'object' || image === null) throw new InvalidArgumentError(`images[${i}] must be an object { bytes | base64, mime?, name? }.`);
    const size = image.bytes instanceof Uint8Array ? image.bytes.byteLength : typeof image.base64 === 'string' ? base64Size(image.base64.slice(image.base64.indexOf(',') + 1)) : -1;
    if (size < 0) throw new InvalidArgumentError(`${label} has neither bytes (a Uint8Array) nor base64 text.`);
    if (size > maxBytes) {
      throw new InvalidArgumentError(`${label} is ${formatBytes(size)}, more than the ${formatBytes(maxBytes)} an image may be (setting arbor.images.maxBytes). Make it smaller or raise the setting.`);
    }
    const bytes = image.bytes instanceof Uint8Array ? image.bytes : decodeBase64(image.base64 as string, label);
    const mime = sniffImageMime(bytes);
    if (!mime) throw new InvalidArgumentError(`${label} is not a PNG, JPEG, GIF or WebP image (its first bytes say so); vision models take only those.`);
    const size2 = imageDimensions(bytes, mime);
    return { bytes, mime, name: cleanName(image.name, mime), width: size2?.width ?? null, height: size2?.height ?? null };
  });
}

/** "1.5 MB", "820 KB", "300 bytes". */
export function formatBytes(size: number): string {
  if (size >= 1024 * 1024) return `${(size / (1024 * 1024)).toFixed(1).replace(/\.0$/, '')} MB`;
  if (size >= 1024) return `${Math.round(size / 1024)} KB`;
  return `${size} bytes`;
}
