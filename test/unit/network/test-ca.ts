import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A throwaway certificate authority and a server certificate it signed (PEM). */
export interface TestPki {
  caCert: string;
  serverCert: string;
  serverKey: string;
}

function openssl(dir: string, ...args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
}

/**
 * Makes a CA and a server certificate for `names` with the openssl command line (EC P-256, valid
 * two days). Only for tests: the proxy trusts the CA through its test configuration.
 */
export function makeTestPki(names: string[], caName = 'hookbox test CA'): TestPki {
  const dir = mkdtempSync(join(tmpdir(), 'hookbox-pki-'));
  try {
    const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
    openssl(
      dir,
      'req',
      '-x509',
      ...ec,
      '-keyout',
      'ca.key',
      '-out',
      'ca.pem',
      '-days',
      '2',
      '-subj',
      `/CN=${caName}`,
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    );
    openssl(
      dir,
      'req',
      ...ec,
      '-keyout',
      'server.key',
      '-out',
      'server.csr',
      '-subj',
      `/CN=${names[0]}`,
    );
    writeFileSync(
      join(dir, 'ext.cnf'),
      `subjectAltName=${names.map((name) => `DNS:${name}`).join(',')}\nextendedKeyUsage=serverAuth\n`,
    );
    openssl(
      dir,
      'x509',
      '-req',
      '-in',
      'server.csr',
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      'server.pem',
      '-days',
      '2',
      '-extfile',
      'ext.cnf',
    );
    return {
      caCert: readFileSync(join(dir, 'ca.pem'), 'utf8'),
      serverCert: readFileSync(join(dir, 'server.pem'), 'utf8'),
      serverKey: readFileSync(join(dir, 'server.key'), 'utf8'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
