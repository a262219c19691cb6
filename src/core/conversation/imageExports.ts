/**
 * Images in exports. Markdown gets image links to files written beside it (`<name>.images/<hash>.<ext>`,
 * each distinct image once); the dataknobs JSON carries them on each message as base64
 * (`LLMMessage.images`, as dataknobs has it), and `importJson` stores them back in the store.
 */
import { IMAGE_EXTENSIONS, type ImageMime } from '../images/imageInfo';
import type { StoredImage } from '../storage/storage';
import type { ConversationManager } from './conversationManager';
import type { DataknobsConversationDict } from './exchange';
import type { MarkdownImageLink } from './markdownExport';

/** One image file to write beside a Markdown export, relative to the export's folder. */
export interface ExportedImageFile {
  relativePath: string;
  bytes: Uint8Array;
}

/** The file name of an image in an export folder: its hash and the extension of its type. */
export function imageFileName(image: Pick<StoredImage, 'hash' | 'mime'>): string {
  return `${image.hash}.${IMAGE_EXTENSIONS[image.mime as ImageMime] ?? 'bin'}`;
}

/**
 * The image links of a Markdown export whose images go in `folderName` (beside the .md file), by node
 * id, and the files to write there. Images no longer stored are left out.
 */
export async function markdownImages(manager: ConversationManager, folderName: string): Promise<{ links: Record<string, MarkdownImageLink[]>; files: ExportedImageFile[] }> {
  const links: Record<string, MarkdownImageLink[]> = {};
  const files = new Map<string, ExportedImageFile>();
  const folder = encodeURIComponent(folderName);
  for (const [nodeId, images] of Object.entries(await manager.getImagesByNode())) {
    for (const image of images) {
      const name = imageFileName(image);
      if (!files.has(name)) {
        const bytes = await manager.getFileContent(image.hash);
        if (!bytes) continue;
        files.set(name, { relativePath: `${folderName}/${name}`, bytes });
      }
      (links[nodeId] ??= []).push({ alt: image.name, href: `${folder}/${name}` });
    }
  }
  return { links, files: [...files.values()] };
}

/** `manager.exportJson()` with each message's images as base64 on `message.images`. */
export async function exportJsonWithImages(manager: ConversationManager): Promise<DataknobsConversationDict> {
  const dict = manager.exportJson();
  const byDotPath = new Map(dict.nodes.map((node) => [node.node_id, node]));
  for (const [nodeId, images] of Object.entries(await manager.getImagesByNode())) {
    const node = byDotPath.get(manager.getDotPath(nodeId));
    if (!node) continue;
    const encoded: string[] = [];
    for (const image of images) {
      const bytes = await manager.getFileContent(image.hash);
      if (bytes) encoded.push(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64'));
    }
    if (encoded.length) node.message.images = encoded;
  }
  return dict;
}
