import { describe, expect, it } from 'vitest';
import { buildChatHtml, chatCsp, createNonce } from './webviewHtml';

describe('chat HTML', () => {
  it('allows only nonce scripts and local resources', () => {
    const csp = chatCsp('https://webview.example', 'abc');
    expect(csp).toBe(
      "default-src 'none'; img-src https://webview.example data:; style-src https://webview.example 'nonce-abc'; font-src https://webview.example; script-src 'nonce-abc'; base-uri 'none'; form-action 'none';",
    );
    expect(csp).not.toContain('unsafe');
  });

  it('puts the nonce on the script and escapes attribute values', () => {
    const html = buildChatHtml({ cspSource: 'vscode-resource:', nonce: 'N1', scriptUri: 'https://x/main.js?a=1&b="2"', styles: [{ href: 'https://x/codicon.css', id: 'vscode-codicon-stylesheet' }, { href: 'https://x/main.css' }], title: '<Chat>' });
    expect(html).toContain('<div id="root"></div>');
    expect(html).toContain('<script nonce="N1" src="https://x/main.js?a=1&amp;b=&quot;2&quot;"></script>');
    expect(html).toContain('<link rel="stylesheet" href="https://x/main.css" nonce="N1">');
    expect(html).toContain('<link rel="stylesheet" id="vscode-codicon-stylesheet" href="https://x/codicon.css" nonce="N1">');
    expect(html).toContain('<title>&lt;Chat&gt;</title>');
    expect(html.match(/<script/g)).toHaveLength(1);
  });

  it('makes a different nonce each time', () => {
    const a = createNonce();
    expect(a).toMatch(/^[A-Za-z0-9+/]{20,}$/);
    expect(createNonce()).not.toBe(a);
  });
});
