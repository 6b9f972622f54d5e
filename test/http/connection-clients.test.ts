// Whom the connection cap counts a connection against (connection-cap.ts): an IPv4 address, the
// IPv4 address inside an IPv4-mapped IPv6 address, or the /64 network of an IPv6 address, so
// that one host with a /64 of addresses cannot take the cap's share of many clients.
import t from 'tap';
import { clientOf } from '../../src/daemon/http/connection-cap.js';

t.test('IPv4 addresses count alone, mapped or not', async (t) => {
  t.equal(clientOf('127.0.0.2'), '127.0.0.2');
  t.equal(clientOf('::ffff:127.0.0.2'), '127.0.0.2');
  t.equal(clientOf('::FFFF:10.1.2.3'), '10.1.2.3');
});

t.test('IPv6 addresses count by their /64, however they are written', async (t) => {
  const network = '2001:db8:0:1::/64';
  for (const address of ['2001:db8:0:1::1', '2001:db8::1:0:0:0:2', '2001:0db8:0000:0001:abcd:ef01:2345:6789', '2001:DB8:0:1::ff%eth0']) {
    t.equal(clientOf(address), network, address);
  }
  t.not(clientOf('2001:db8:0:2::1'), network, 'another /64 is another client');
  t.equal(clientOf('::1'), '0:0:0:0::/64');
  t.equal(clientOf('fe80::1'), 'fe80:0:0:0::/64');
});
