// The one function that turns a DSN or connection URL into text fit for a log line, an error message
// or `twofa doctor`: every credential in it replaced by `***`, the rest left readable.

/**
 * Query parameters whose value is a credential: any name holding secret, token, password, key or
 * auth (signature_secret, callback_token, api_key, private_key_file, auth_token...), plus the
 * short spellings pass, pwd and sig.
 */
const CREDENTIAL_PARAM = /secret|token|passw(?:or)?d|key|auth|credential|^pass$|^pwd$|^sig$/i;

// `name=value` after `?` or `&`, the value running to the next parameter, fragment, space (the
// members of failover(a b) are separated by spaces) or the `)` that closes a route.
const QUERY_PARAM = /([?&])([^=&#\s)]*)=([^&#\s)]*)/g;

// The user part of each `scheme://user[:password]@`, running to the last `@` before the query, so a
// password holding an unencoded `@` or `/` is still hidden whole.
const USERINFO = /(\/\/)([^\s?#]*)@/g;

function decodeName(name: string): string {
  try {
    return decodeURIComponent(name);
  } catch {
    return name;
  }
}

/**
 * The DSN with its credentials replaced by `***`. Works on text, not a parsed URL, so that a
 * malformed DSN (whose error message shows it) and every member of failover(a b) is masked as well.
 * With `user:password@` only the password is hidden; a lone user part (`infobip://KEY@host`) is
 * hidden whole, because such DSNs put the key there.
 */
export function describeDsn(dsn: string): string {
  return dsn
    .replace(USERINFO, (_whole, slashes: string, userinfo: string) => {
      const colon = userinfo.indexOf(':');
      return colon === -1 ? `${slashes}***@` : `${slashes}${userinfo.slice(0, colon)}:***@`;
    })
    .replace(QUERY_PARAM, (whole, separator: string, name: string) => (CREDENTIAL_PARAM.test(decodeName(name)) ? `${separator}${name}=***` : whole));
}
