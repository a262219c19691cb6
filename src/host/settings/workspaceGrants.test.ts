import { describe, expect, it } from 'vitest';
import { findWorkspaceGrants, grantAttemptFingerprint, grantNoticeText, type WorkspaceSettingsText } from './workspaceGrants';

const settingsFile = (text: string): WorkspaceSettingsText => ({ path: '/w/.vscode/settings.json', shown: '.vscode/settings.json', kind: 'settings', text });

describe('finding the settings a workspace tries to grant with', () => {
  it('finds the flat keys of a .vscode/settings.json, comments and trailing commas included', () => {
    const found = findWorkspaceGrants(settingsFile('{\n // a repository\n "arbor.tools.approval": {"*": "auto"},\n "arbor.tools.commandAllowList": ["sh"],\n "arbor.model": "x",\n}'));
    expect(found.map((f) => [f.setting, f.value])).toEqual([
      ['arbor.tools.approval', { '*': 'auto' }],
      ['arbor.tools.commandAllowList', ['sh']],
    ]);
    expect(found[0].file).toBe('.vscode/settings.json');
  });

  it('finds the nested spellings VS Code merges past its scope filter, and language sections', () => {
    const found = findWorkspaceGrants(settingsFile('{"arbor": {"tools": {"approval": {"run_command": "auto"}}}, "arbor.tools": {"commandAllowList": ["bash"]}, "[python]": {"arbor.tools.commandAllowList": ["python"]}}'));
    expect(found.map((f) => [f.setting, f.value])).toEqual([
      ['arbor.tools.approval', { run_command: 'auto' }],
      ['arbor.tools.commandAllowList', ['bash']],
      ['arbor.tools.commandAllowList', ['python']],
    ]);
  });

  it('reads the settings of a .code-workspace file, not its folders or launch configurations', () => {
    const file: WorkspaceSettingsText = {
      path: '/w/team.code-workspace',
      shown: 'team.code-workspace',
      kind: 'workspace',
      text: '{"folders": [{"path": "."}], "launch": {"arbor.tools.commandAllowList": ["no"]}, "settings": {"arbor.tools.commandAllowList": ["sh"]}}',
    };
    expect(findWorkspaceGrants(file).map((f) => f.value)).toEqual([['sh']]);
  });

  it('says nothing about values that grant nothing (only "ask" or "off", an empty list) or a file that is not JSON', () => {
    expect(findWorkspaceGrants(settingsFile('{"arbor.tools.approval": {"run_command": "off", "*": "ask"}, "arbor.tools.commandAllowList": []}'))).toEqual([]);
    expect(findWorkspaceGrants(settingsFile('not json at all'))).toEqual([]);
    expect(findWorkspaceGrants(settingsFile('{"__proto__": {"x": 1}, "constructor": 2}'))).toEqual([]);
  });

  it('remembers a notice by file, setting and value: the same value again is the same fingerprint, a new value is not', () => {
    const [a] = findWorkspaceGrants(settingsFile('{"arbor.tools.approval": {"*": "auto", "a": "ask"}}'));
    const [same] = findWorkspaceGrants(settingsFile('{"arbor.tools.approval": {"a": "ask", "*": "auto"}}'));
    const [other] = findWorkspaceGrants(settingsFile('{"arbor.tools.approval": {"run_command": "auto"}}'));
    expect(grantAttemptFingerprint(same)).toBe(grantAttemptFingerprint(a));
    expect(grantAttemptFingerprint(other)).not.toBe(grantAttemptFingerprint(a));
    expect(grantAttemptFingerprint({ ...a, path: '/other/.vscode/settings.json' })).not.toBe(grantAttemptFingerprint(a));
  });

  it('names the settings, the file and that only User settings can grant', () => {
    const text = grantNoticeText(findWorkspaceGrants(settingsFile('{"arbor.tools.approval": {"*": "auto"}, "arbor.tools.commandAllowList": ["sh"]}')));
    expect(text).toContain('arbor.tools.approval and arbor.tools.commandAllowList');
    expect(text).toContain('.vscode/settings.json');
    expect(text).toContain('only your User settings');
  });
});
