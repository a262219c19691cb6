/**
 * Which of the tools a chat offers a foreign prompt allows for its request: Copilot's `tools:` and
 * Claude Code's `allowed-tools:` name their own tools, so each name is matched against Arbor's tool of
 * the same job, against a tool's own name, and against MCP tools by server and name.
 */

/** A tool as the allow-list sees it. */
export interface AllowableTool {
  /** The wire name the model calls (`read_file`). */
  name: string;
  /** The name the user reads (`read_file`, `server › tool`). */
  displayName: string;
  /** The MCP server, for MCP tools. */
  server?: string;
}

/** Other tools' names for the jobs of Arbor's built-in tools (lower case). */
const ALIASES: Readonly<Record<string, readonly string[]>> = {
  // Claude Code
  read: ['read_file'],
  write: ['create_file'],
  edit: ['edit_file', 'create_file'],
  multiedit: ['edit_file'],
  grep: ['grep'],
  glob: ['list_files'],
  ls: ['list_files'],
  bash: ['run_command'],
  // GitHub Copilot
  codebase: ['search_workspace'],
  search: ['grep', 'list_files', 'search_workspace'],
  filesearch: ['list_files'],
  textsearch: ['grep'],
  readfile: ['read_file'],
  editfiles: ['edit_file', 'create_file'],
  createfile: ['create_file'],
  runcommands: ['run_command'],
  runinterminal: ['run_command'],
  terminal: ['run_command'],
  problems: ['get_diagnostics'],
  changes: ['git_diff', 'git_log'],
  selection: ['get_selection'],
};

/**
 * The tools of `offered` that `allowed` names. A Claude permission rule such as `Bash(git add:*)` allows
 * the tool (Arbor's own approval rules still judge each command).
 */
export function filterAllowedTools<T extends AllowableTool>(offered: readonly T[], allowed: readonly string[]): T[] {
  const names = new Set<string>();
  const servers = new Set<string>();
  const mcp: Array<{ server: string; tool: string }> = [];
  for (const raw of allowed) {
    const entry = raw.trim().replace(/\(.*\)$/s, '').trim();
    if (!entry) continue;
    names.add(entry);
    for (const alias of ALIASES[entry.toLowerCase()] ?? []) names.add(alias);
    const claudeMcp = /^mcp__(.+?)(?:__(.+))?$/.exec(entry);
    if (claudeMcp) {
      if (claudeMcp[2]) mcp.push({ server: claudeMcp[1], tool: claudeMcp[2] });
      else servers.add(claudeMcp[1]);
    }
    const slash = /^([^/]+)\/(.+)$/.exec(entry);
    if (slash) {
      if (slash[2] === '*') servers.add(slash[1]);
      else mcp.push({ server: slash[1], tool: slash[2] });
    }
  }
  return offered.filter((t) => {
    if (names.has(t.name) || names.has(t.displayName)) return true;
    if (!t.server) return false;
    const own = t.displayName.includes(' › ') ? t.displayName.slice(t.displayName.indexOf(' › ') + 3) : t.name;
    return servers.has(t.server) || mcp.some((m) => m.server === t.server && (m.tool === own || m.tool === t.name));
  });
}
