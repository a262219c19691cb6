/**
 * Images of messages on their way to a model: the images of the nodes on a request's path, loaded from
 * the store, go on the messages as `data:` URLs (each wire format takes what it needs from them), or,
 * for a model that does not take images, as a short text placeholder in their place.
 */
import type { ConversationStorage, StoredImage } from '../storage/storage';
import type { LLMMessage } from '../types';
import type { ConversationTree } from './conversationTree';

/** An image with its bytes, as a request carries it. */
export interface LoadedImage extends StoredImage {
  bytes: Uint8Array;
}

/** The images of a request's path, by the tree's message objects, and whether the model takes them. */
export interface PathImages {
  byMessage: Map<LLMMessage, LoadedImage[]>;
  /** False: each image goes as `imagePlaceholder` text instead. */
  sends: boolean;
  model: string;
}

/** What a model without vision gets instead of an image: `[image: name.png, 1024×768, not sent: <model> does not take images]`. */
export function imagePlaceholder(image: Pick<StoredImage, 'name' | 'width' | 'height'>, model: string): string {
  const size = image.width !== null && image.height !== null ? `, ${image.width}×${image.height}` : '';
  return `[image: ${image.name}${size}, not sent: ${model} does not take images]`;
}

/** A `data:` URL of an image's bytes. */
export function imageDataUrlOf(image: Pick<LoadedImage, 'mime' | 'bytes'>): string {
  return `data:${image.mime};base64,${Buffer.from(image.bytes.buffer, image.bytes.byteOffset, image.bytes.byteLength).toString('base64')}`;
}

/**
 * Loads the images of the nodes on the path root→`nodeId` (one query when the conversation has none).
 * Bytes no longer stored (never the case while a row refers to them) are left out.
 */
export async function loadPathImages(storage: ConversationStorage, conversationId: string, tree: ConversationTree, nodeId: string): Promise<Map<LLMMessage, LoadedImage[]>> {
  const out = new Map<LLMMessage, LoadedImage[]>();
  const byNode = await storage.imagesByNode(conversationId);
  if (Object.keys(byNode).length === 0) return out;
  const bytesByHash = new Map<string, Uint8Array | null>();
  for (const node of tree.path(nodeId)) {
    const images = byNode[node.nodeId];
    if (!images?.length) continue;
    const loaded: LoadedImage[] = [];
    for (const image of images) {
      if (!bytesByHash.has(image.hash)) bytesByHash.set(image.hash, await storage.fileContent(image.hash));
      const bytes = bytesByHash.get(image.hash);
      if (bytes) loaded.push({ ...image, bytes });
    }
    out.set(node.message, loaded);
  }
  return out;
}

/**
 * The messages with their images: as `data:` URLs on `images` when the model takes them, else as
 * placeholders after the text. Messages without images are returned as they are (the same objects).
 */
export function withImages(messages: readonly LLMMessage[], images: PathImages): LLMMessage[] {
  return messages.map((message) => {
    const attached = images.byMessage.get(message);
    if (!attached?.length) return message;
    if (images.sends) return { ...message, images: attached.map(imageDataUrlOf) };
    const placeholders = attached.map((image) => imagePlaceholder(image, images.model)).join('\n');
    return { ...message, content: message.content ? `${message.content}\n\n${placeholders}` : placeholders };
  });
}
