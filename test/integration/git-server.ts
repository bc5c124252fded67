// A real git server on loopback for the repository-source tests (docs/environments.md,
// "Repository sources"): git's own `git http-backend` (smart HTTP) behind a small node server, over
// bare repositories made with real `git` commands. The sandbox reaches it only through the egress
// proxy, by a name the proxy's test configuration maps to 127.0.0.1.
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface GitServer {
  port: number;
  /** Every request the server got: method and path (with query). */
  requests: string[];
  close(): void;
}

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, {
    cwd,
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'test',
      GIT_AUTHOR_EMAIL: 'test@hookbox.invalid',
      GIT_COMMITTER_NAME: 'test',
      GIT_COMMITTER_EMAIL: 'test@hookbox.invalid',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  }).toString();

/**
 * Makes bare repository `<root>/<name>.git` holding one commit of `files` (path → content);
 * returns the commit's id.
 */
export function makeRepository(root: string, name: string, files: Record<string, string>): string {
  const work = mkdtempSync(join(tmpdir(), 'hookbox-git-work-'));
  git(work, 'init', '--quiet', '--initial-branch=main');
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(work, path, '..'), { recursive: true });
    writeFileSync(join(work, path), content);
  }
  git(work, 'add', '--all');
  git(work, 'commit', '--quiet', '-m', `${name}: first commit`);
  git(root, 'clone', '--quiet', '--bare', work, `${name}.git`);
  return git(work, 'rev-parse', 'HEAD').trim();
}

/** Runs `git http-backend` for one request (RFC 3875 CGI) and relays its answer. */
function serveGit(root: string, req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://git.invalid');
  const backend = spawn('git', ['http-backend'], {
    env: {
      PATH: process.env.PATH ?? '',
      GIT_PROJECT_ROOT: root,
      GIT_HTTP_EXPORT_ALL: '1',
      REQUEST_METHOD: req.method ?? 'GET',
      PATH_INFO: decodeURIComponent(url.pathname),
      QUERY_STRING: url.search.slice(1),
      CONTENT_TYPE: req.headers['content-type'] ?? '',
      HTTP_CONTENT_ENCODING: req.headers['content-encoding'] ?? '',
      HTTP_GIT_PROTOCOL: String(req.headers['git-protocol'] ?? ''),
      REMOTE_ADDR: req.socket.remoteAddress ?? '127.0.0.1',
    },
  });
  req.pipe(backend.stdin);
  const chunks: Buffer[] = [];
  backend.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  backend.stderr.resume();
  backend.on('close', () => {
    const output = Buffer.concat(chunks);
    const end = output.indexOf('\r\n\r\n');
    if (end < 0) return void res.writeHead(500).end('git http-backend said nothing');
    let status = 200;
    for (const line of output.subarray(0, end).toString('latin1').split('\r\n')) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).trim();
      const value = line.slice(colon + 1).trim();
      if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
      else res.setHeader(name, value);
    }
    res.writeHead(status).end(output.subarray(end + 4));
  });
}

/** Starts the server over the bare repositories in `root`. */
export async function startGitServer(root: string): Promise<GitServer> {
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    serveGit(root, req, res);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    requests,
    close: () => server.close(),
  };
}
