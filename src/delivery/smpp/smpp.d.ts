// Types for the parts of the untyped `smpp` package (0.5.1, CommonJS) that smpp-session.ts and the
// test SMSC use. Nothing else should import 'smpp': smpp-session.ts is the one place that knows the
// package, so it can be swapped for another codec without touching the transport.
declare module 'smpp' {
  import type { EventEmitter } from 'node:events';
  import type { Server as NetServer, Socket } from 'node:net';
  import type { ConnectionOptions, TlsOptions } from 'node:tls';

  namespace smpp {
    /** A decoded `short_message` / `message_payload`: the package strips and splits the UDH when esm_class has 0x40. */
    interface DecodedMessage {
      message: string | Buffer;
      /** Information elements of the UDH, each as [IEI, length, ...data]. */
      udh?: Buffer[];
    }

    /** A PDU as the package represents it: header fields plus the command's parameters and TLVs by their spec names. */
    interface PDU {
      command: string;
      command_id: number;
      command_status: number;
      sequence_number: number;
      isResponse(): boolean;
      response(options?: Record<string, unknown>): PDU;
      toBuffer(): Buffer;
      // Parameters and TLVs (system_id, short_message, receipted_message_id, ...).
      [field: string]: unknown;
    }

    type ResponseCallback = (pdu: PDU) => void;

    interface Session extends EventEmitter {
      readonly socket: Socket;
      /** Writes the PDU; false (and nothing written) when the socket is no longer writable. */
      send(pdu: PDU, responseCallback?: ResponseCallback, sendCallback?: ResponseCallback): boolean;
      /** Ends the socket gracefully. */
      close(callback?: () => void): void;
      destroy(callback?: () => void): void;
      pause(): void;
      resume(): void;
      bind_transceiver(options: Record<string, unknown>, responseCallback?: ResponseCallback): boolean;
      submit_sm(options: Record<string, unknown>, responseCallback?: ResponseCallback): boolean;
      deliver_sm(options: Record<string, unknown>, responseCallback?: ResponseCallback): boolean;
      enquire_link(options?: Record<string, unknown>, responseCallback?: ResponseCallback): boolean;
      unbind(options?: Record<string, unknown>, responseCallback?: ResponseCallback): boolean;
    }

    interface ConnectOptions extends ConnectionOptions {
      host: string;
      port: number;
      /** Connect with tls.connect instead of net.connect. */
      tls?: boolean;
    }

    interface Server extends NetServer {
      readonly sessions: Session[];
    }

    type ServerOptions = TlsOptions;

    function connect(options: ConnectOptions, listener?: () => void): Session;
    function createServer(listener: (session: Session) => void): Server;
    function createServer(options: ServerOptions, listener: (session: Session) => void): Server;

    const PDU: {
      new (command: string, options?: Record<string, unknown>): PDU;
    };

    interface TlvType {
      read(buffer: Buffer, offset: number, length: number): unknown;
      write(value: unknown, buffer: Buffer, offset: number): void;
      size(value: unknown): number;
    }

    /** TLVs the package knows, by name, and their value types. */
    const tlvs: Record<string, { id: number; type: TlvType }>;
    const types: { tlv: Record<'int8' | 'int16' | 'int32' | 'cstring' | 'string' | 'buffer', TlvType> };
    /** Teaches the package a TLV (a vendor tag): it is then written when a PDU has a field of that name. */
    function addTLV(name: string, options: { id: number; type: TlvType }): void;

    /** command_status names of SMPP, e.g. errors.ESME_RTHROTTLED === 0x58. */
    const errors: Record<string, number>;
  }

  export = smpp;
}
