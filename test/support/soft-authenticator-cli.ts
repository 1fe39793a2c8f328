// The software authenticator (soft-authenticator.ts) as a command, for the doc walkthroughs that run
// shell blocks: it stands in for the page's navigator.credentials between two curl steps.
//   create <options.json> <origin> <credential.json> <passkey.json>   answers a factor's creation options
//   get <options.json> <origin> <passkey.json> <assertion.json>        answers a challenge's request options
// The passkey (its private key as a PKCS#8 PEM, its counter) is kept in <passkey.json> between the two.
import { createPrivateKey } from 'node:crypto';
import fs from 'node:fs';
import { createCredential, getAssertion, type SoftPasskey } from './soft-authenticator.js';

const [command, optionsFile, origin, third, fourth] = process.argv.slice(2) as [string, string, string, string, string];
const options = (JSON.parse(fs.readFileSync(optionsFile, 'utf8')) as { options: Record<string, unknown> }).options;
if (command === 'create') {
  const { credential, passkey } = createCredential(options, origin);
  fs.writeFileSync(third, JSON.stringify(credential));
  fs.writeFileSync(fourth, JSON.stringify({ ...passkey, privateKey: passkey.privateKey.export({ type: 'pkcs8', format: 'pem' }) }));
} else if (command === 'get') {
  const stored = JSON.parse(fs.readFileSync(third, 'utf8')) as Omit<SoftPasskey, 'privateKey'> & { privateKey: string };
  const passkey: SoftPasskey = { ...stored, privateKey: createPrivateKey(stored.privateKey) };
  fs.writeFileSync(fourth, JSON.stringify(getAssertion(options, passkey, origin)));
  fs.writeFileSync(third, JSON.stringify({ ...stored, signCount: passkey.signCount }));
} else {
  throw new Error(`usage: soft-authenticator-cli create|get ...`);
}
