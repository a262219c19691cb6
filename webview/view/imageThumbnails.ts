/**
 * Images in the chat: the composer's pasted or dropped images as thumbnails with remove buttons (and a
 * line that says when the model will not see them, or why one was refused), and the thumbnails of a sent
 * message. Images are read into `data:` URLs, the only image source the chat's CSP allows; the host
 * checks type, size and count again.
 */
import type { ImageSupport, ImageView } from '../../src/shared/protocol';
import { h, iconButton } from '../dom';

const ACCEPTED = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];
const DEFAULT_SUPPORT: ImageSupport = { maxBytes: 5 * 1024 * 1024, maxCount: 20, model: '', supportsVision: true };

function megabytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1).replace(/\.0$/, '')} MB` : `${Math.round(bytes / 1024)} KB`;
}

function readDataUrl(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error ?? new Error(`Could not read ${file.name}`));
    reader.readAsDataURL(file);
  });
}

/** One thumbnail: the image, its name as alt text and tooltip. */
export function thumbnail(image: ImageView, testId: string): HTMLImageElement {
  const size = image.width && image.height ? ` (${image.width}×${image.height})` : '';
  const img = h('img', { className: 'image-thumb', testId, title: `${image.name}${size}`, attrs: { alt: image.name, src: image.dataUrl } });
  return img;
}

/** The thumbnails of a sent message, or undefined when it has no images. */
export function messageImages(images: readonly ImageView[] | undefined): HTMLElement | undefined {
  if (!images?.length) return undefined;
  return h('div', { className: 'message-images', testId: 'message-images' }, ...images.map((image) => thumbnail(image, 'message-image')));
}

/** The composer's images: pasted, dropped, shown as removable thumbnails, taken on send. */
export class ComposerImages {
  readonly element: HTMLElement;
  private readonly bar: HTMLElement;
  private readonly notice: HTMLElement;
  private images: ImageView[] = [];
  private support: ImageSupport = DEFAULT_SUPPORT;
  private refusal = '';

  constructor(private readonly onChange: () => void) {
    this.bar = h('div', { className: 'composer-images', testId: 'composer-images', attrs: { 'aria-label': 'Attached images' } });
    this.notice = h('div', { className: 'composer-image-notice', testId: 'composer-image-notice', attrs: { role: 'status' } });
    this.element = h('div', { className: 'composer-images-area' }, this.bar, this.notice);
    this.render();
  }

  /** Takes image files pasted into `input` and dropped onto `area`; other pastes and drops go on as before. */
  listen(input: HTMLElement, area: HTMLElement): void {
    input.addEventListener('paste', (event) => {
      const files = imageFiles(event.clipboardData);
      if (files.length === 0) return;
      event.preventDefault();
      void this.add(files);
    });
    area.addEventListener('dragover', (event) => {
      if ([...(event.dataTransfer?.items ?? [])].some((item) => item.kind === 'file' && item.type.startsWith('image/'))) event.preventDefault();
    });
    area.addEventListener('drop', (event) => {
      const files = imageFiles(event.dataTransfer);
      if (files.length === 0) return;
      event.preventDefault();
      void this.add(files);
    });
  }

  setSupport(support: ImageSupport | undefined): void {
    this.support = support ?? DEFAULT_SUPPORT;
    this.render();
  }

  get count(): number {
    return this.images.length;
  }

  /** The images to send, leaving the composer without any. */
  take(): ImageView[] {
    const taken = this.images;
    this.images = [];
    this.refusal = '';
    this.render();
    return taken;
  }

  /** Reads `files` in, refusing (with the reason shown) what is not an accepted image, too big, or past the count. */
  async add(files: readonly File[]): Promise<void> {
    const refused: string[] = [];
    for (const file of files) {
      if (!ACCEPTED.includes(file.type)) {
        refused.push(`${file.name || 'the image'} is not a PNG, JPEG, GIF or WebP image`);
      } else if (file.size > this.support.maxBytes) {
        refused.push(`${file.name || 'the image'} is ${megabytes(file.size)}, more than ${megabytes(this.support.maxBytes)} (setting arbor.images.maxBytes)`);
      } else if (this.images.length >= this.support.maxCount) {
        refused.push(`a message carries at most ${this.support.maxCount} images`);
        break;
      } else {
        this.images.push({ name: file.name || `pasted-${this.images.length + 1}.${file.type.slice(6).replace('jpeg', 'jpg')}`, mime: file.type, dataUrl: await readDataUrl(file) });
      }
    }
    this.refusal = refused.length ? `Not attached: ${refused.join('; ')}.` : '';
    this.render();
    this.onChange();
  }

  private remove(index: number): void {
    this.images.splice(index, 1);
    this.refusal = '';
    this.render();
    this.onChange();
  }

  private render(): void {
    this.bar.replaceChildren(
      ...this.images.map((image, i) =>
        h('span', { className: 'composer-image', testId: 'composer-image' }, thumbnail(image, 'composer-image-thumb'), iconButton('close', `Remove ${image.name}`, 'remove-image', () => this.remove(i))),
      ),
    );
    this.bar.hidden = this.images.length === 0;
    const vision = this.images.length > 0 && !this.support.supportsVision
      ? `${this.support.model || 'This model'} does not take images: each is sent as a short text placeholder instead.`
      : '';
    this.notice.textContent = [this.refusal, vision].filter(Boolean).join(' ');
    this.notice.hidden = this.notice.textContent === '';
  }
}

function imageFiles(data: DataTransfer | null): File[] {
  return [...(data?.files ?? [])].filter((file) => file.type.startsWith('image/'));
}
