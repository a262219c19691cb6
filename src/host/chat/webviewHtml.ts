/**
 * The chat panel's HTML: one root element, the bundled script and styles, and a strict Content
 * Security Policy with a per-load nonce (no inline script without it, no remote content at all).
 * Pure, so the policy is unit tested.
 */
import { randomBytes } from 'node:crypto';

/** What the page needs from the panel: the webview's CSP source and the resource URIs as strings. */
export interface ChatHtmlOptions {
  cspSource: string;
  nonce: string;
  scriptUri: string;
  /** Stylesheets in order; an `id` is put on the link (the codicon sheet needs `vscode-codicon-stylesheet`). */
  styles: Array<{ href: string; id?: string }>;
  title: string;
}

/** A fresh random nonce, base64 without padding. */
export function createNonce(): string {
  return randomBytes(18).toString('base64').replace(/=+$/, '');
}

/**
 * The Content-Security-Policy for the chat webview. `base-uri` and `form-action` do not fall back
 * to `default-src`, so they are closed by name: no `<base>` can redirect relative URLs and no form
 * can post anywhere, even if the sanitizer ever let one through.
 */
export function chatCsp(cspSource: string, nonce: string): string {
  return [
    "default-src 'none'",
    `img-src ${cspSource} data:`,
    `style-src ${cspSource} 'nonce-${nonce}'`,
    `font-src ${cspSource}`,
    `script-src 'nonce-${nonce}'`,
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ') + ';';
}

function escapeAttr(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The whole HTML document of a chat panel. */
export function buildChatHtml(options: ChatHtmlOptions): string {
  const nonce = escapeAttr(options.nonce);
  const links = options.styles
    .map((s) => `  <link rel="stylesheet"${s.id ? ` id="${escapeAttr(s.id)}"` : ''} href="${escapeAttr(s.href)}" nonce="${nonce}">`)
    .join('\n');
  return `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="UTF-8">
  <meta http-equiv="Content-Security-Policy" content="${escapeAttr(chatCsp(options.cspSource, options.nonce))}">
  <meta name="viewport" content="width=device-width, initial-scale=1.0">
${links}
  <title>${escapeAttr(options.title)}</title>
</head>
<body>
  <div id="root"></div>
  <script nonce="${nonce}" src="${escapeAttr(options.scriptUri)}"></script>
</body>
</html>
`;
}
