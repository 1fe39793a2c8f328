// twofa vonage-apps set-key | show | remove: the public keys of Vonage applications, the twofa
// applications whose Vonage Verify calls (/v2/verify) log in with a JWT signed by the private half
// (docs/vonage-verify.md).
import fs from 'node:fs';
import type { Command } from 'commander';
import { UsageError } from './cli-errors.js';
import { connect, withConnectionOptions, type ConnectionOptions } from './connection.js';
import { writeJson, writeLine } from './output.js';

interface OutputOptions {
  json?: boolean;
}

function readPublicKey(file: string): string {
  if (!fs.existsSync(file)) throw new UsageError(`no such file: ${file} (the PEM of an RSA public key, e.g. from: openssl pkey -in private.key -pubout)`);
  return fs.readFileSync(file, 'utf8');
}

export function registerVonageCommands(program: Command): void {
  const vonage = program.command('vonage-apps')
    .description('Manage Vonage applications: the public key a twofa application\'s Vonage Verify JWTs are checked with')
    .addHelpText('after', `
Examples:
  $ openssl pkey -in private.key -pubout -out public.key
  $ twofa vonage-apps set-key 8F35A1A7EB2F45528FDFFFFDAEE41BC9 public.key
  $ twofa vonage-apps show 8F35A1A7EB2F45528FDFFFFDAEE41BC9
  $ twofa vonage-apps remove 8F35A1A7EB2F45528FDFFFFDAEE41BC9`);

  withConnectionOptions(vonage.command('set-key')
    .description('Register (or replace) the RSA public key of the application\'s JWTs; the JWTs of a replaced key no longer log in')
    .argument('<applicationId>', 'the twofa application, which is the JWTs\' application_id')
    .argument('<publicKeyFile>', 'a PEM file (-----BEGIN PUBLIC KEY-----)')
    .option('--json', 'print the server\'s answer as JSON')
    .addHelpText('after', `
Example:
  $ openssl pkey -in private.key -pubout -out public.key
  $ twofa vonage-apps set-key 8F35A1A7EB2F45528FDFFFFDAEE41BC9 public.key`))
    .action(async (applicationId: string, file: string, options: ConnectionOptions & OutputOptions) => {
      const publicKey = readPublicKey(file);
      const saved = await connect(options).run((client) => client.vonage.updateApplication(applicationId, { publicKey }));
      if (options.json) return writeJson(saved);
      writeLine(`application ${saved.applicationId} takes Vonage JWTs signed by the private half of ${file}`);
    });

  withConnectionOptions(vonage.command('show')
    .description('Print the public key the application\'s JWTs are checked with')
    .argument('<applicationId>', 'the twofa application')
    .option('--json', 'print the server\'s answer as JSON')
    .addHelpText('after', `
Example:
  $ twofa vonage-apps show 8F35A1A7EB2F45528FDFFFFDAEE41BC9`))
    .action(async (applicationId: string, options: ConnectionOptions & OutputOptions) => {
      const shown = await connect(options).run((client) => client.vonage.getApplication(applicationId));
      if (options.json) return writeJson(shown);
      writeLine(shown.publicKey.trimEnd());
    });

  withConnectionOptions(vonage.command('remove')
    .description('Remove the key: the application\'s JWTs no longer log in (Basic logins still do)')
    .argument('<applicationId>', 'the twofa application')
    .option('--json', 'print {"removed": applicationId} as JSON')
    .addHelpText('after', `
Example:
  $ twofa vonage-apps remove 8F35A1A7EB2F45528FDFFFFDAEE41BC9`))
    .action(async (applicationId: string, options: ConnectionOptions & OutputOptions) => {
      await connect(options).run((client) => client.vonage.deleteApplication(applicationId));
      if (options.json) return writeJson({ removed: applicationId });
      writeLine(`removed the Vonage key of application ${applicationId}`);
    });
}
