/**
 * Turns model and user text into safe DOM: markdown-it with raw HTML off (so `<script>` or
 * `<img onerror>` in an answer stays text), highlight.js for fenced code, then DOMPurify over the
 * result as a second wall. Remote images are never loaded (the CSP forbids them): they become links.
 */
import MarkdownIt from 'markdown-it';
import type { MarkdownIt as MarkdownItInstance } from 'markdown-it';
import hljs from 'highlight.js/lib/common';
import createDOMPurify from 'dompurify';
import { HIGHLIGHT_CHARS, inlineTrouble } from './markdownGuard';

/** Only these link schemes survive; VS Code's webview opens them through the host on click. */
const SAFE_URI = /^(?:https?:|mailto:|#)/i;
const ALIGN_STYLE = /^text-align:\s*(left|center|right)$/;

/** Renders Markdown to sanitized fragments; one instance serves the whole page. */
export class MarkdownRenderer {
  private readonly md: MarkdownItInstance;
  private readonly purify: ReturnType<typeof createDOMPurify>;

  constructor() {
    this.md = new MarkdownIt({
      html: false,
      linkify: true,
      breaks: false,
      // What is deeper is dropped by markdown-it: the guard sends such blocks to plain text before they get here.
      maxNesting: 64,
      highlight: (code, lang) => highlightCode(code, lang),
    });
    this.md.renderer.rules.image = (tokens, idx) => {
      const token = tokens[idx];
      const src = String(token.attrGet('src') ?? '');
      const alt = token.content || 'image';
      const escape = this.md.utils.escapeHtml;
      return `<a class="image-link" href="${escape(src)}">[image: ${escape(alt)}]</a>`;
    };
    // Tables align cells with style="text-align:…", which the CSP would block: use classes.
    this.md.core.ruler.push('arbor_align_classes', (state) => {
      for (const token of state.tokens) {
        if (token.type !== 'th_open' && token.type !== 'td_open') {
          continue;
        }
        const style = token.attrGet('style');
        if (style !== null) {
          token.attrs = (token.attrs ?? []).filter(([name]) => name !== 'style');
          const match = ALIGN_STYLE.exec(String(style));
          if (match) {
            token.attrJoin('class', `align-${match[1]}`);
          }
        }
      }
    });
    this.purify = createDOMPurify(window);
    this.purify.addHook('afterSanitizeAttributes', (node) => {
      if (node.tagName === 'A') {
        node.setAttribute('rel', 'noopener noreferrer');
        const href = node.getAttribute('href');
        if (href) {
          node.setAttribute('title', href);
        }
      }
    });
  }

  /** Block Markdown (paragraphs, lists, code) as a sanitized fragment ready to append. */
  render(text: string): DocumentFragment {
    return this.sanitize(this.md.render(text));
  }

  /** One line of inline Markdown (`code`, *emphasis*, links), e.g. for notices; as plain text when long or heavily marked up. */
  renderInline(text: string): DocumentFragment {
    if (inlineTrouble(text)) {
      const fragment = document.createDocumentFragment();
      fragment.append(text);
      return fragment;
    }
    return this.sanitize(this.md.renderInline(text));
  }

  private sanitize(html: string): DocumentFragment {
    return this.purify.sanitize(html, {
      RETURN_DOM_FRAGMENT: true,
      ALLOWED_URI_REGEXP: SAFE_URI,
      FORBID_TAGS: ['style', 'form', 'input', 'button', 'textarea', 'select', 'img', 'svg', 'math', 'iframe'],
      FORBID_ATTR: ['style'],
    });
  }
}

function highlightCode(code: string, lang: string): string {
  // Highlighting a very long block costs more than it helps: it stays a code block, uncoloured.
  if (code.length > HIGHLIGHT_CHARS) return '';
  const language = lang.trim().split(/\s+/)[0]?.toLowerCase() ?? '';
  if (language && hljs.getLanguage(language)) {
    try {
      return hljs.highlight(code, { language, ignoreIllegals: true }).value;
    } catch {
      return '';
    }
  }
  return '';
}
