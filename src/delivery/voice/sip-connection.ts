// The network under one call's signalling: a UDP socket, or a TCP connection, to the SIP server
// named in the DSN. Every request of the call goes to that server (it acts as our outbound proxy,
// RFC 3261 8.1.2), and responses and in-dialog requests come back on the same socket. One
// connection per call keeps calls apart without a shared demultiplexer; a PIN service places few
// enough calls for that to cost nothing.
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { lookup } from 'node:dns/promises';
import { connect as tcpConnect, isIP, type Socket as TcpSocket } from 'node:net';
import { parseSipMessage, serializeSipMessage, SipStreamParser, type SipMessage } from './sip-message.js';

export type SipProtocol = 'udp' | 'tcp';

export interface SipEndpoint {
  host: string;
  port: number;
  protocol: SipProtocol;
}

export interface SipConnection {
  readonly protocol: SipProtocol;
  /** TCP: nothing needs retransmitting. */
  readonly reliable: boolean;
  /** The local address and port the server sees (before any NAT). */
  readonly localAddress: string;
  readonly localPort: number;
  /** The server's address as resolved. */
  readonly remoteAddress: string;
  send(message: SipMessage): void;
  /** Called for every message received; parse failures are dropped (and reported to onError). */
  onMessage: (message: SipMessage) => void;
  /** A TCP connection that closed or failed, or a datagram that could not be parsed. */
  onError: (error: Error, fatal: boolean) => void;
  close(): void;
}

export class SipConnectionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SipConnectionError';
  }
}

/** Opens the signalling socket; rejects with a SipConnectionError when the server cannot be reached. */
export async function openSipConnection(endpoint: SipEndpoint, timeoutMs: number): Promise<SipConnection> {
  const remoteAddress = await resolve(endpoint.host);
  return endpoint.protocol === 'udp' ? openUdp(remoteAddress, endpoint.port) : openTcp(remoteAddress, endpoint.port, timeoutMs);
}

async function resolve(host: string): Promise<string> {
  if (isIP(host) !== 0) return host;
  try {
    return (await lookup(host)).address;
  } catch (err) {
    throw new SipConnectionError(`cannot resolve ${host}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

/** The local address the system routes `remote` through: a connected UDP socket tells without sending. */
export async function localAddressFor(remote: string, port: number): Promise<string> {
  const probe = createSocket(isIP(remote) === 6 ? 'udp6' : 'udp4');
  try {
    await new Promise<void>((resolve, reject) => {
      probe.once('error', reject);
      probe.connect(port, remote, () => resolve());
    });
    return probe.address().address;
  } catch (err) {
    throw new SipConnectionError(`no route to ${remote}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  } finally {
    probe.close();
  }
}

async function openUdp(remoteAddress: string, remotePort: number): Promise<SipConnection> {
  const localAddress = await localAddressFor(remoteAddress, remotePort);
  const socket: UdpSocket = createSocket(isIP(remoteAddress) === 6 ? 'udp6' : 'udp4');
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind({ address: localAddress, port: 0 }, () => {
      socket.off('error', reject);
      resolve();
    });
  });
  let closed = false;
  const connection: SipConnection = {
    protocol: 'udp',
    reliable: false,
    localAddress,
    localPort: socket.address().port,
    remoteAddress,
    send(message) {
      if (!closed) socket.send(serializeSipMessage(message), remotePort, remoteAddress, () => undefined);
    },
    onMessage: () => undefined,
    onError: () => undefined,
    close() {
      if (closed) return;
      closed = true;
      socket.close();
    },
  };
  socket.on('message', (data) => {
    // Keep-alives and stray bytes are not SIP.
    if (data.length < 12) return;
    let message: SipMessage;
    try {
      message = parseSipMessage(data);
    } catch (err) {
      connection.onError(err as Error, false);
      return;
    }
    connection.onMessage(message);
  });
  socket.on('error', (err) => connection.onError(err, false));
  return connection;
}

async function openTcp(remoteAddress: string, remotePort: number, timeoutMs: number): Promise<SipConnection> {
  const socket: TcpSocket = await new Promise((resolve, reject) => {
    const candidate = tcpConnect({ host: remoteAddress, port: remotePort });
    const timer = setTimeout(() => {
      candidate.destroy();
      reject(new SipConnectionError(`no TCP connection to ${remoteAddress}:${remotePort} within ${timeoutMs / 1000} s`));
    }, timeoutMs);
    candidate.once('connect', () => {
      clearTimeout(timer);
      candidate.removeAllListeners('error');
      resolve(candidate);
    });
    candidate.once('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(new SipConnectionError(`cannot connect to ${remoteAddress}:${remotePort}: ${err.code ?? err.message}`));
    });
  });
  socket.setNoDelay(true);
  const parser = new SipStreamParser();
  let closed = false;
  const connection: SipConnection = {
    protocol: 'tcp',
    reliable: true,
    localAddress: socket.localAddress ?? '0.0.0.0',
    localPort: socket.localPort ?? 0,
    remoteAddress,
    send(message) {
      if (!closed) socket.write(serializeSipMessage(message));
    },
    onMessage: () => undefined,
    onError: () => undefined,
    close() {
      closed = true;
      socket.destroy();
    },
  };
  socket.on('data', (chunk: Buffer) => {
    let messages: SipMessage[];
    try {
      messages = parser.push(chunk);
    } catch (err) {
      // A stream that cannot be framed cannot be resynchronised.
      connection.onError(err as Error, true);
      connection.close();
      return;
    }
    for (const message of messages) connection.onMessage(message);
  });
  socket.on('error', (err) => connection.onError(err, true));
  socket.on('close', () => {
    if (!closed) connection.onError(new SipConnectionError('the SIP server closed the TCP connection'), true);
    closed = true;
  });
  return connection;
}
