// twofa vonage-apps list | set-key | set-callback | rotate-secret | show | remove: Vonage
// applications, the twofa applications whose Vonage Verify calls (/v2/verify) log in with a JWT
// signed by the private half of their public key, and whose callbacks go to their callback URL signed
// with their signature secret (docs/vonage-verify.md).
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
    .description('Manage Vonage applications: the public key a twofa application\'s Vonage Verify JWTs are checked with, its callback URL and signature secret')
    .addHelpText('after', `
Examples:
  $ openssl pkey -in private.key -pubout -out public.key
  $ twofa vonage-apps set-key 8F35A1A7EB2F45528FDFFFFDAEE41BC9 public.key
  $ twofa vonage-apps set-callback 8F35A1A7EB2F45528FDFFFFDAEE41BC9 https://hooks.example.com/vonage
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

  withConnectionOptions(vonage.command('list')
    .description('List the account\'s Vonage applications and their callback URLs')
    .option('--json', 'print the server\'s answer as JSON')
    .addHelpText('after', `
Example:
  $ twofa vonage-apps list`))
    .action(async (options: ConnectionOptions & OutputOptions) => {
      const applications = await connect(options).run((client) => client.vonage.listApplications());
      if (options.json) return writeJson(applications);
      if (applications.length === 0) return writeLine('no Vonage applications (register one with: twofa vonage-apps set-key <applicationId> public.key)');
      for (const a of applications) writeLine(`${a.applicationId}  callbacks: ${a.callbackUrl ?? 'none'}`);
    });

  withConnectionOptions(vonage.command('set-callback')
    .description('Send the application\'s Verify callbacks (event, summary) to a URL, signed with its signature secret (printed when it is made); an empty URL stops them')
    .argument('<applicationId>', 'a Vonage application (set-key first)')
    .argument('<url>', 'an https URL, or "" to remove it')
    .option('--secret <secret>', 'a signature secret of your choosing (32 to 128 characters) instead of a new one')
    .option('--json', 'print the server\'s answer as JSON')
    .addHelpText('after', `
Example:
  $ twofa vonage-apps set-callback 8F35A1A7EB2F45528FDFFFFDAEE41BC9 https://hooks.example.com/vonage`))
    .action(async (applicationId: string, url: string, options: ConnectionOptions & OutputOptions & { secret?: string }) => {
      const saved = await connect(options).run((client) => client.vonage.updateApplication(applicationId, { callbackUrl: url, ...(options.secret !== undefined ? { signatureSecret: options.secret } : {}) }));
      if (options.json) return writeJson(saved);
      writeLine(saved.callbackUrl === null ? `application ${applicationId} sends no callbacks` : `application ${applicationId} sends its callbacks to ${saved.callbackUrl}`);
      if (saved.signatureSecret !== undefined) writeLine(`signature secret (shown only this once): ${saved.signatureSecret}`);
    });

  withConnectionOptions(vonage.command('rotate-secret')
    .description('Make a new signature secret for the application\'s callbacks (printed once); callbacks are signed with it from now on')
    .argument('<applicationId>', 'a Vonage application')
    .option('--json', 'print the server\'s answer as JSON')
    .addHelpText('after', `
Example:
  $ twofa vonage-apps rotate-secret 8F35A1A7EB2F45528FDFFFFDAEE41BC9`))
    .action(async (applicationId: string, options: ConnectionOptions & OutputOptions) => {
      const rotated = await connect(options).run((client) => client.vonage.rotateSignatureSecret(applicationId));
      if (options.json) return writeJson(rotated);
      writeLine(`signature secret (shown only this once): ${rotated.signatureSecret ?? ''}`);
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
