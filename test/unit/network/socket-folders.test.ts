import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { removeStaleSocketFolders, socketRootOf } from '../../../src/network/socket-folders.js';

const LIVE = 'env_aaaaaaaaaaaaaaaaaaaa';
const DEAD = 'env_bbbbbbbbbbbbbbbbbbbb';
const AS_FILE = 'env_cccccccccccccccccccc';

function root(): string {
  const folder = mkdtempSync(join(tmpdir(), 'hookbox-sockets-'));
  for (const name of [LIVE, DEAD, 'not-an-environment']) {
    mkdirSync(join(folder, name));
    writeFileSync(join(folder, name, 'proxy.sock'), '');
  }
  writeFileSync(join(folder, AS_FILE), '');
  return folder;
}

describe('stale egress socket folders', () => {
  it('removes only folders of environments without a container, named like one, old enough', () => {
    const folder = root();
    const later = Date.now() + 120_000;
    expect(removeStaleSocketFolders(folder, new Set([LIVE]), 60_000, later)).toEqual([DEAD]);
    expect(readdirSync(folder).sort()).toEqual([AS_FILE, LIVE, 'not-an-environment'].sort());
  });

  it('keeps a folder younger than the minimum age: its environment may be being made', () => {
    const folder = root();
    expect(removeStaleSocketFolders(folder, new Set([LIVE]), 60_000)).toEqual([]);
    expect(existsSync(join(folder, DEAD, 'proxy.sock'))).toBe(true);
  });

  it('is quiet when no networked environment was ever made', () => {
    expect(removeStaleSocketFolders(join(tmpdir(), 'hookbox-no-such-folder'), new Set())).toEqual(
      [],
    );
  });

  it('defaults to <home>/egress', () => {
    expect(socketRootOf('/h', undefined)).toBe('/h/egress');
    expect(socketRootOf('/h', '/run/x')).toBe('/run/x');
  });
});
