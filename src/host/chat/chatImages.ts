/**
 * Images between the chat webview and the store: what a `send` carries is checked here again (type,
 * `arbor.images.maxBytes`, 20 per message; the webview is never trusted), and the images of the messages
 * the chat shows go to it as `data:` URLs, encoded once per image however often the state is posted.
 */
import { base64Size, checkImages, InvalidArgumentError, formatBytes, MAX_IMAGES_PER_MESSAGE, type CheckedImage, type ConversationManager, type StoredImage } from '../../core/index';
import type { Attachment, ImageSupport, ImageView } from '../../shared/protocol';

/** Encoded images by hash, kept for the last few hundred so a long chat is not encoded on every post. */
const encoded = new Map<string, string>();
const MAX_CACHED = 200;

function cache(hash: string, dataUrl: string): void {
  if (encoded.size >= MAX_CACHED) encoded.delete(encoded.keys().next().value as string);
  encoded.set(hash, dataUrl);
}

/** The images of the nodes of a conversation as views (only for nodes in `nodeIds`, the ones the chat holds). */
export async function imageViews(manager: ConversationManager, nodeIds: readonly string[]): Promise<Record<string, ImageView[]>> {
  const byNode = await manager.getImagesByNode();
  const wanted = new Set(nodeIds);
  const out: Record<string, ImageView[]> = {};
  for (const [nodeId, images] of Object.entries(byNode)) {
    if (!wanted.has(nodeId)) continue;
    const views: ImageView[] = [];
    for (const image of images) {
      const view = await imageView(manager, image);
      if (view) views.push(view);
    }
    if (views.length) out[nodeId] = views;
  }
  return out;
}

async function imageView(manager: ConversationManager, image: StoredImage): Promise<ImageView | undefined> {
  let dataUrl = encoded.get(image.hash);
  if (dataUrl === undefined) {
    const bytes = await manager.getFileContent(image.hash);
    if (!bytes) return undefined;
    dataUrl = `data:${image.mime};base64,${Buffer.from(bytes).toString('base64')}`;
    cache(image.hash, dataUrl);
  }
  return { name: image.name, mime: image.mime, dataUrl, ...(image.width !== null ? { width: image.width } : {}), ...(image.height !== null ? { height: image.height } : {}) };
}

/**
 * Checks the images a `send` carries, from untrusted input: each a `data:` URL of at most `maxBytes`
 * (sized before it is decoded) of a PNG, JPEG, GIF or WebP, at most 20. Throws an `InvalidArgumentError`
 * that names the image and the setting.
 */
export function imagesFromWebview(images: unknown, maxBytes: number): CheckedImage[] {
  if (images === undefined) return [];
  if (!Array.isArray(images)) throw new InvalidArgumentError('images must be an array of pasted images.');
  if (images.length > MAX_IMAGES_PER_MESSAGE) return checkImages(images, maxBytes);
  const inputs = images.map((image: Partial<ImageView> | null, i) => {
    const dataUrl = typeof image?.dataUrl === 'string' ? image.dataUrl : '';
    const name = typeof image?.name === 'string' ? image.name : `image-${i + 1}`;
    const size = base64Size(dataUrl.slice(dataUrl.indexOf(',') + 1));
    if (size > maxBytes) {
      throw new InvalidArgumentError(`Image "${name}" is ${formatBytes(size)}, more than the ${formatBytes(maxBytes)} an image may be (setting arbor.images.maxBytes). Make it smaller or raise the setting.`);
    }
    return { base64: dataUrl, name };
  });
  return checkImages(inputs, maxBytes);
}

/**
 * The limits of images and whether the chat's model takes them, for the composer. Whether a model takes
 * images is asked once per model in the background, so a chat's state never waits on the model server (a
 * server that is down would hold every redraw up to its timeout); until it answers, the model is taken to
 * take them, and `onLearned` redraws when it says it does not. A failed ask is tried again next time.
 */
export class ImageSupportCache {
  private readonly known = new Map<string, boolean>();
  private readonly asking = new Set<string>();

  constructor(private readonly onLearned: () => void) {}

  get(manager: ConversationManager, model: string, maxBytes: number): ImageSupport {
    if (!this.known.has(model) && !this.asking.has(model)) {
      this.asking.add(model);
      void manager
        .modelTakesImages(model)
        .then(
          (takes) => {
            this.known.set(model, takes);
            if (!takes) this.onLearned();
          },
          () => undefined,
        )
        .finally(() => this.asking.delete(model));
    }
    return { maxBytes, maxCount: MAX_IMAGES_PER_MESSAGE, model, supportsVision: this.known.get(model) ?? true };
  }
}

/** A picked workspace file that is an image by its name: attached whole, it goes as an image, not as text. */
const IMAGE_FILE = /\.(png|jpe?g|gif|webp)$/i;

/**
 * The images of a `send`: those pasted or dropped in the composer, then the whole image files picked with
 * the attach picker (read through `readBytes`, which keeps to the workspace); the other attachments stay
 * text context. All are checked together (type, `maxBytes`, 20 in all).
 */
export async function sendImages(
  images: unknown,
  attachments: readonly Attachment[],
  readBytes: (relPath: string) => Promise<Uint8Array>,
  maxBytes: number,
): Promise<{ images: CheckedImage[]; attachments: Attachment[] }> {
  const pasted = imagesFromWebview(images, maxBytes);
  const picked = attachments.filter((a) => a.kind === 'file' && a.text === undefined && a.startLine === undefined && IMAGE_FILE.test(a.path));
  if (picked.length === 0) return { images: pasted, attachments: [...attachments] };
  const files = await Promise.all(picked.map(async (a) => ({ bytes: await readBytes(a.path), name: a.path.split('/').pop() ?? a.path })));
  for (const file of files) {
    if (file.bytes.byteLength > maxBytes) checkImages([file], maxBytes);
  }
  const all = [...pasted, ...checkImages(files, maxBytes)];
  if (all.length > MAX_IMAGES_PER_MESSAGE) checkImages(all, maxBytes);
  return { images: all, attachments: attachments.filter((a) => !picked.includes(a)) };
}
