// SMPP 3.4 command_status values (spec section 5.1.3) by name, for error messages an operator can look
// up in the SMSC's documentation. Our own table, so that no caller depends on the codec package.

export const ESME_ROK = 0x00;
export const ESME_RINVBNDSTS = 0x04;
export const ESME_RSYSERR = 0x08;
export const ESME_RINVSRCADR = 0x0a;
export const ESME_RINVDSTADR = 0x0b;
export const ESME_RBINDFAIL = 0x0d;
export const ESME_RINVPASWD = 0x0e;
export const ESME_RINVSYSID = 0x0f;
export const ESME_RMSGQFUL = 0x14;
export const ESME_RINVSYSTYP = 0x53;
export const ESME_RTHROTTLED = 0x58;

const NAMES: Record<number, string> = {
  0x00: 'ESME_ROK',
  0x01: 'ESME_RINVMSGLEN',
  0x02: 'ESME_RINVCMDLEN',
  0x03: 'ESME_RINVCMDID',
  0x04: 'ESME_RINVBNDSTS',
  0x05: 'ESME_RALYBND',
  0x06: 'ESME_RINVPRTFLG',
  0x07: 'ESME_RINVREGDLVFLG',
  0x08: 'ESME_RSYSERR',
  0x0a: 'ESME_RINVSRCADR',
  0x0b: 'ESME_RINVDSTADR',
  0x0c: 'ESME_RINVMSGID',
  0x0d: 'ESME_RBINDFAIL',
  0x0e: 'ESME_RINVPASWD',
  0x0f: 'ESME_RINVSYSID',
  0x11: 'ESME_RCANCELFAIL',
  0x13: 'ESME_RREPLACEFAIL',
  0x14: 'ESME_RMSGQFUL',
  0x15: 'ESME_RINVSERTYP',
  0x33: 'ESME_RINVNUMDESTS',
  0x34: 'ESME_RINVDLNAME',
  0x40: 'ESME_RINVDESTFLAG',
  0x42: 'ESME_RINVSUBREP',
  0x43: 'ESME_RINVESMCLASS',
  0x44: 'ESME_RCNTSUBDL',
  0x45: 'ESME_RSUBMITFAIL',
  0x48: 'ESME_RINVSRCTON',
  0x49: 'ESME_RINVSRCNPI',
  0x50: 'ESME_RINVDSTTON',
  0x51: 'ESME_RINVDSTNPI',
  0x53: 'ESME_RINVSYSTYP',
  0x54: 'ESME_RINVREPFLAG',
  0x55: 'ESME_RINVNUMMSGS',
  0x58: 'ESME_RTHROTTLED',
  0x61: 'ESME_RINVSCHED',
  0x62: 'ESME_RINVEXPIRY',
  0x63: 'ESME_RINVDFTMSGID',
  0x64: 'ESME_RX_T_APPN',
  0x65: 'ESME_RX_P_APPN',
  0x66: 'ESME_RX_R_APPN',
  0x67: 'ESME_RQUERYFAIL',
  0xc0: 'ESME_RINVOPTPARSTREAM',
  0xc1: 'ESME_ROPTPARNOTALLWD',
  0xc2: 'ESME_RINVPARLEN',
  0xc3: 'ESME_RMISSINGOPTPARAM',
  0xc4: 'ESME_RINVOPTPARAMVAL',
  0xfe: 'ESME_RDELIVERYFAILURE',
  0xff: 'ESME_RUNKNOWNERR',
};

/** `ESME_RINVDSTADR (0x0000000B)`, or `command_status 0x00000401` for vendor-specific values. */
export function describeCommandStatus(status: number): string {
  const hex = `0x${status.toString(16).toUpperCase().padStart(8, '0')}`;
  const name = NAMES[status];
  return name === undefined ? `command_status ${hex}` : `${name} (${hex})`;
}
