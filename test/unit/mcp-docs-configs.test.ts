// docs/mcp.md's agent configurations are parsed out of the page and checked against hookbox's own
// CLI and route rules: a snippet that no longer parses, or names an option or route hookbox does
// not have, fails here.
import { readFileSync } from 'node:fs';
import { parse as parseToml } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { sessionRecipeOf } from '../../src/mcp/session-recipe.js';

const page = readFileSync('docs/mcp.md', 'utf8');

/** Each `<!-- mcp-config: NAME -->` and the fenced block after it: language and text. */
function snippets(): Map<string, { language: string; text: string }> {
  const out = new Map<string, { language: string; text: string }>();
  const pattern = /<!-- mcp-config: ([\w-]+) -->\s*```(\w+)\n([\s\S]*?)```/g;
  for (const match of page.matchAll(pattern))
    out.set(match[1]!, { language: match[2]!, text: match[3]! });
  return out;
}

const found = snippets();

function parsed(name: string): Record<string, unknown> {
  const snippet = found.get(name);
  if (!snippet) throw new Error(`docs/mcp.md has no snippet ${name}`);
  return (
    snippet.language === 'toml' ? parseToml(snippet.text) : JSON.parse(snippet.text)
  ) as Record<string, unknown>;
}

/** The hookbox entry of a config: `mcpServers.hookbox`, `servers.hookbox` or `mcp_servers.hookbox`. */
function serverOf(config: Record<string, unknown>): Record<string, unknown> {
  const table = (config.mcpServers ?? config.servers ?? config.mcp_servers) as Record<
    string,
    Record<string, unknown>
  >;
  expect(Object.keys(table)).toEqual(['hookbox']);
  return table.hookbox!;
}

async function cliAnswer(args: string[]): Promise<{ code: number; err: string }> {
  let err = '';
  const code = await main(args, { stdout: () => {}, stderr: (t) => (err += t), isTty: false });
  return { code, err };
}

const STDIO = [
  'claude-code-stdio',
  'codex-stdio',
  'cursor-stdio',
  'gemini-cli-stdio',
  'vscode-stdio',
];
const HTTP = ['claude-code-http', 'codex-http', 'gemini-cli-http'];

describe('docs/mcp.md agent configurations', () => {
  it('has a snippet for each agent, and nothing unchecked', () => {
    expect([...found.keys()].sort()).toEqual([...STDIO, ...HTTP].sort());
  });

  it.each(STDIO)('%s runs `hookbox mcp` with options the CLI has', async (name) => {
    const server = serverOf(parsed(name));
    if (name === 'vscode-stdio') expect(server.type).toBe('stdio');
    expect(server.command).toBe('hookbox');
    const args = server.args as string[];
    expect(args[0]).toBe('mcp');
    // The folder is missing here: the CLI gets as far as reading it, so every option was known.
    const answer = await cliAnswer([...args.slice(0, -1), '/nonexistent/hookbox-gates']);
    expect(answer.code).toBe(2);
    expect(answer.err).toContain('--sources: /nonexistent/hookbox-gates does not exist');
  });

  it.each(HTTP)('%s reaches a hookbox MCP route with the key', (name) => {
    const server = serverOf(parsed(name));
    const url = new URL(String(server.url ?? server.httpUrl));
    expect(url.pathname).toMatch(/^\/v1(beta)?\/(mcp|environments\/[^/]+\/mcp)$/);
    // The query is a recipe the route takes.
    expect(() => sessionRecipeOf(Object.fromEntries(url.searchParams), {})).not.toThrow();
    if (name === 'claude-code-http') expect(server.type).toBe('http');
    if (name === 'gemini-cli-http') expect(server.httpUrl).toBeDefined();
    if (name === 'codex-http') expect(server.bearer_token_env_var).toBe('HOOKBOX_API_KEY');
    else
      expect((server.headers as Record<string, string>)['x-goog-api-key']).toMatch(
        /^\$\{?HOOKBOX_API_KEY\}?$/,
      );
  });
});
