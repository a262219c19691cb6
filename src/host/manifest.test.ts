import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Commands, McpItemContext, Settings, Views } from './base/constants';
import { GRANTING_SETTINGS } from './settings/settingLevels';
import { DEFAULT_PROTECTED_FILES } from './tools/protectedFiles';

const pkg = JSON.parse(readFileSync(path.resolve(__dirname, '../../package.json'), 'utf8'));
const contributed: Array<{ command: string; title: string; category?: string }> = pkg.contributes.commands;

describe('package.json agrees with constants.ts', () => {
  it('contributes every command id in the "Arbor" category, and no other', () => {
    const ids = Object.values(Commands).sort();
    expect(contributed.map((c) => c.command).sort()).toEqual(ids);
    for (const c of contributed) expect(c.category).toBe('Arbor');
  });

  it('uses the command titles the end-to-end tests type', () => {
    const title = (id: string) => contributed.find((c) => c.command === id)?.title;
    expect(title(Commands.newConversation)).toBe('New Conversation');
    expect(title(Commands.askAboutSelection)).toBe('Ask About Selection');
    expect(title(Commands.branchFromHere)).toBe('Branch from Here');
    expect(title(Commands.compareWith)).toBe('Compare with…');
  });

  it('references only contributed commands in menus and keybindings, and hides item commands from the palette', () => {
    const known = new Set(contributed.map((c) => c.command));
    for (const [menu, items] of Object.entries(pkg.contributes.menus as Record<string, Array<{ command: string }>>)) {
      for (const item of items) expect(known.has(item.command), `${menu}: ${item.command}`).toBe(true);
    }
    for (const k of pkg.contributes.keybindings) expect(known.has(k.command)).toBe(true);
    const hidden = new Set(pkg.contributes.menus.commandPalette.filter((m: { when: string }) => m.when === 'false').map((m: { command: string }) => m.command));
    for (const id of [Commands.branchFromHere, Commands.deleteConversation, Commands.activationTiming]) expect(hidden.has(id)).toBe(true);
    expect(hidden.has(Commands.newConversation)).toBe(false);
  });

  it('makes the team store settings application-wide: a workspace cannot set them, and a remote window reads them from User settings', () => {
    // A remote window (code-server, Remote-SSH) drops machine-scoped values from the User settings, so the
    // team store would silently be unset there; application scope is read from them and never from a workspace.
    const props = pkg.contributes.configuration.properties as Record<string, { scope?: string }>;
    const storage = Object.keys(props).filter((key) => key.startsWith('arbor.storage.'));
    expect(storage.sort()).toEqual(['arbor.storage.kind', 'arbor.storage.postgres.ssl', 'arbor.storage.postgres.sslCaFile', 'arbor.storage.postgres.team', 'arbor.storage.postgres.url']);
    for (const key of storage) expect(props[key].scope, key).toBe('application');
  });

  it('makes arbor.tools.protectedFiles application-wide, so no workspace can narrow it, with the list the tools protect by default', () => {
    const prop = pkg.contributes.configuration.properties['arbor.tools.protectedFiles'];
    expect(prop.scope).toBe('application');
    expect(prop.default).toEqual([...DEFAULT_PROTECTED_FILES]);
  });

  it('makes every setting that lets something run without asking application-wide: a repository cannot grant itself', () => {
    // A cloned repository's .vscode/settings.json could otherwise set {"*": "auto"} or allow-list `sh`
    // (as CVE-2025-53773 did to another agent); VS Code reads application settings from the user only.
    const props = pkg.contributes.configuration.properties as Record<string, { scope?: string }>;
    for (const key of GRANTING_SETTINGS) expect(props[`arbor.${key}`]?.scope, key).toBe('application');
    expect(GRANTING_SETTINGS).toEqual(expect.arrayContaining([Settings.toolApproval, Settings.commandAllowList]));
    // The deny list only restricts, so a workspace may still add to it.
    expect(props[`arbor.${Settings.commandDenyList}`].scope).toBeUndefined();
  });

  it('declares every setting the host reads, and the views and activation events', () => {
    const props = Object.keys(pkg.contributes.configuration.properties);
    for (const key of Object.values(Settings).filter((k) => k !== Settings.section)) expect(props).toContain(`arbor.${key}`);
    expect(pkg.contributes.views.arbor.map((v: { id: string }) => v.id)).toEqual([Views.conversations, Views.mcpServers]);
    expect(pkg.activationEvents).toEqual([`onView:${Views.conversations}`, `onView:${Views.mcpServers}`, `onWebviewPanel:${Views.chatPanel}`]);
    expect(pkg.capabilities.untrustedWorkspaces.supported).toBe('limited');
    expect(pkg.main).toBe('./dist/extension.js');
  });

  it('contributes the MCP Servers view with its welcome text, its row actions, and the arbor.mcp.servers schema', () => {
    const welcome = pkg.contributes.viewsWelcome.find((w: { view: string }) => w.view === Views.mcpServers);
    expect(welcome.contents).toContain('.vscode/mcp.json');
    expect(welcome.contents).toContain('arbor.mcp.servers');
    const inline = pkg.contributes.menus['view/item/context'].filter((m: { when: string; group: string }) => m.when.includes(`view == ${Views.mcpServers}`) && m.group.startsWith('inline'));
    expect(inline.map((m: { command: string }) => m.command)).toEqual([Commands.mcpRestartServer, Commands.mcpTrustServer, Commands.mcpShowOutput]);
    // Trust… is offered on a server waiting for the person's OK, and only there; Restart never is.
    const itemMenus = pkg.contributes.menus['view/item/context'] as Array<{ command: string; when: string }>;
    for (const menu of itemMenus.filter((m) => m.command === Commands.mcpTrustServer)) expect(menu.when).toContain(`viewItem == ${McpItemContext.untrustedServer}`);
    for (const menu of itemMenus.filter((m) => m.command === Commands.mcpRestartServer)) expect(menu.when).not.toContain(McpItemContext.untrustedServer);
    expect(contributed.find((c) => c.command === Commands.mcpResetTrust)?.title).toBe('Reset MCP Server Trust');
    const schema = pkg.contributes.configuration.properties[`arbor.${Settings.mcpServers}`];
    expect(Object.keys(schema.additionalProperties.properties).sort()).toEqual(['args', 'command', 'cwd', 'env', 'envFile', 'headers', 'type', 'url']);
    expect(pkg.capabilities.untrustedWorkspaces.restrictedConfigurations).toContain(`arbor.${Settings.mcpServers}`);
  });
});
