import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  addressBytes,
  addressInCidr,
  localInterfaceAddresses,
  refusalFor,
  sameAddress,
} from '../../../src/network/addresses.js';

const noHost = { hostAddresses: () => [] };

describe('refusalFor: the address rules', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.1.2', 'loopback'],
    ['::1', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['169.254.169.254', 'metadata'],
    ['169.254.170.2', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['169.254.1.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['10.0.0.5', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.254', 'private'],
    ['172.17.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'shared-address-space'],
    ['100.127.255.255', 'shared-address-space'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456::1', 'unique-local'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['192.0.2.10', 'reserved'],
    ['198.51.100.1', 'reserved'],
    ['203.0.113.9', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['2001:db8::1', 'reserved'],
    // IPv4 inside IPv6 is judged by the IPv4 address.
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.1.2.3', 'private'],
    ['::ffff:169.254.169.254', 'metadata'],
    ['64:ff9b::a00:1', 'private'],
    ['2002:7f00:1::1', 'loopback'],
  ])('%s → %s', (address, rule) => {
    expect(refusalFor(address, noHost)?.rule).toBe(rule);
  });

  it.each([
    '93.184.216.34',
    '1.1.1.1',
    '8.8.8.8',
    '2606:4700::1111',
    '::ffff:1.1.1.1',
    '172.32.0.1',
    '100.128.0.1',
  ])('lets the public address %s through', (address) => {
    expect(refusalFor(address, noHost)).toBeUndefined();
  });

  it('refuses the host’s own addresses, whatever their range', () => {
    const policy = { hostAddresses: () => ['127.0.0.1', '1.2.3.4', '2606:4700::1'] };
    expect(refusalFor('1.2.3.4', policy)?.rule).toBe('host-address');
    expect(refusalFor('2606:4700:0::1', policy)?.rule).toBe('host-address');
    expect(refusalFor('::ffff:1.2.3.4', policy)?.rule).toBe('host-address');
    // Loopback keeps its own name.
    expect(refusalFor('127.0.0.1', policy)?.rule).toBe('loopback');
  });

  it('refuses the Docker engine’s networks, whatever their range', () => {
    const policy = {
      hostAddresses: () => [],
      blockedNetworks: [{ cidr: '5.6.0.0/16', rule: 'docker-network' as const, what: 'docker' }],
    };
    expect(refusalFor('5.6.7.8', policy)).toMatchObject({ rule: 'docker-network' });
    expect(refusalFor('5.7.0.1', policy)).toBeUndefined();
  });

  it('describes what the address is', () => {
    expect(refusalFor('10.1.2.3', noHost)?.description).toMatch(
      /private \(RFC 1918\).*10\.0\.0\.0\/8/,
    );
    expect(refusalFor('::ffff:10.1.2.3', noHost)?.description).toMatch(/IPv4-mapped/);
  });

  it('treats anything that is not an address as refused', () => {
    expect(refusalFor('example.com', noHost)?.rule).toBe('reserved');
  });
});

describe('address parsing', () => {
  it('parses IPv4, IPv6, brackets, zones and embedded IPv4', () => {
    expect(addressBytes('1.2.3.4')).toEqual([1, 2, 3, 4]);
    expect(addressBytes('[::1]')).toEqual([...Array<number>(15).fill(0), 1]);
    expect(addressBytes('::ffff:1.2.3.4')?.slice(10)).toEqual([255, 255, 1, 2, 3, 4]);
    expect(addressBytes('1.2.3')).toBeUndefined();
    expect(addressBytes('1:2:3:4:5:6:7:8:9')).toBeUndefined();
  });

  it('compares addresses, not texts', () => {
    expect(sameAddress('::1', '0:0:0:0:0:0:0:1')).toBe(true);
    expect(sameAddress('[2001:db8::1]', '2001:DB8:0::1')).toBe(true);
    expect(sameAddress('1.2.3.4', '1.2.3.5')).toBe(false);
  });

  it('knows the host’s addresses, also of interfaces without carrier (the kernel’s tables)', () => {
    const addresses = localInterfaceAddresses();
    expect(addresses).toContain('127.0.0.1');
    if (existsSync('/proc/net/fib_trie')) {
      const table = readFileSync('/proc/net/fib_trie', 'utf8');
      for (const match of table.matchAll(/\|-- (\S+)\n\s+\/32 host LOCAL/g))
        expect(addresses).toContain(match[1]);
    }
  });

  it('finds an address in a CIDR', () => {
    expect(addressInCidr('172.18.0.3', '172.18.0.0/16')).toBe(true);
    expect(addressInCidr('172.19.0.3', '172.18.0.0/16')).toBe(false);
    expect(addressInCidr('::1', '172.18.0.0/16')).toBe(false);
  });
});
