import { describe, expect, it } from 'vitest';
import { checkedAddresses, isPublicAddress } from './public-address';

describe('isPublicAddress', () => {
  it.each([
    '127.0.0.1',
    '127.255.0.9',
    '0.0.0.0',
    '10.0.0.1',
    '172.16.5.4',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '224.0.0.1',
    '255.255.255.255',
    '::',
    '::1',
    '::ffff:7f00:1',
    '::ffff:127.0.0.1',
    '::ffff:a9fe:a9fe',
    '::127.0.0.1',
    '64:ff9b::a9fe:a9fe',
    'fd00::1',
    'fe80::1',
    'ff02::1',
    '2001:db8::1',
    'not an address',
  ])('refuses %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['93.184.216.34', '8.8.8.8', '2606:4700::1111', '::ffff:5db8:d822'])(
    'allows %s',
    (address) => {
      expect(isPublicAddress(address)).toBe(true);
    },
  );
});

describe('checkedAddresses', () => {
  const resolve = async (name: string) =>
    name === 'two.test' ? ['8.8.8.8', '10.1.1.1'] : ['8.8.4.4'];

  it('refuses a name when any of its addresses is not public, unless private targets are allowed', async () => {
    await expect(checkedAddresses('two.test', resolve, false)).rejects.toThrow(
      /resolves to 10\.1\.1\.1/,
    );
    await expect(checkedAddresses('two.test', resolve, true)).resolves.toEqual([
      '8.8.8.8',
      '10.1.1.1',
    ]);
    await expect(checkedAddresses('one.test', resolve, false)).resolves.toEqual(['8.8.4.4']);
    await expect(checkedAddresses('[::1]', resolve, false)).rejects.toThrow(/The address ::1/);
  });
});
