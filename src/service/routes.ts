// Use cases of routes (docs/routing.md): explaining the route a number takes, reloading the table,
// listing it, the applications' own senders per country (their brand; never the transports), and
// crediting a verified PIN to the transport that delivered it (the cheapest strategy's conversion).
import { normalizePhoneNumber } from '../domain/destinations.js';
import { fail, invalid, ok, type Result } from '../domain/errors.js';
import type { RouteRule } from '../domain/routes.js';
import { SENDER_KINDS, validateSenderOfKind, type SenderKind } from '../domain/sender-ids.js';
import type { RoutePlan } from '../delivery/routing/route-table.js';
import { isRoutedChannel, type Routing } from '../delivery/routing/routing.js';
import type { ApplicationSender } from '../store/route-store.js';
import type { Channel } from '../store/store.js';
import type { Principal, ServiceContext } from './context.js';
import { inUnitOfWork } from './unit-of-work.js';

function routingOf(ctx: ServiceContext): Result<Routing> {
  return ctx.routing === undefined
    ? fail('ROUTES_NOT_CONFIGURED', 'no named transports are configured (TWOFA_TRANSPORT_<NAME>=<dsn>), so there is no routes table; see docs/routing.md')
    : ok(ctx.routing);
}

export interface RoutesView {
  transports: string[];
  rules: RouteRule[];
}

export function listRoutes(ctx: ServiceContext): Result<RoutesView> {
  const routing = routingOf(ctx);
  if (!routing.ok) return routing;
  return ok({ transports: routing.value.transportNames, rules: [...routing.value.table.rules] });
}

/** Reads the configured table again on this node; an invalid table is refused whole and the current one stays. */
export function reloadRoutes(ctx: ServiceContext): Result<RoutesView> {
  const routing = routingOf(ctx);
  if (!routing.ok) return routing;
  const reloaded = routing.value.reload();
  if (!reloaded.ok) return fail('ROUTES_INVALID', reloaded.error);
  return ok({ transports: routing.value.transportNames, rules: [...reloaded.rules] });
}

export interface ExplainQuery {
  channel: string;
  to: string;
  /** An application of the caller's account: its own sender for the country is then shown as it applies. */
  applicationId?: string | undefined;
}

export async function explainRoute(ctx: ServiceContext, principal: Principal, query: ExplainQuery): Promise<Result<RoutePlan>> {
  const routing = routingOf(ctx);
  if (!routing.ok) return routing;
  if (!isRoutedChannel(query.channel as Channel)) return invalid({ channel: ['must be sms, voice, whatsapp or telegram (email is not routed)'] });
  const to = normalizePhoneNumber(query.to);
  if (!to.ok) return invalid({ to: [to.error] });
  if (query.applicationId !== undefined) {
    const app = await ctx.store.getApplication(principal.accountId, query.applicationId);
    if (!app) return fail('APPLICATION_NOT_FOUND', `application ${query.applicationId} not found`);
  }
  return ok(await routing.value.explain(query.channel as Channel, to.value, query.applicationId));
}

/**
 * Credits a verified PIN to the named transport that first delivered it, when a rule routes its
 * number (others were never counted as sent); a lost credit errs towards a lower conversion.
 */
export async function countRoutedVerification(ctx: ServiceContext, pin: { id: string; channel: Channel; destination: string }): Promise<void> {
  if (ctx.routing === undefined || !ctx.routing.routes(pin.channel, pin.destination)) return;
  try {
    await ctx.store.routes.countRoutedVerification(pin.id, ctx.clock());
  } catch {
    // The verification stands: only the figure of one PIN is lost.
  }
}

export interface SenderInput {
  id: string;
  kind: string;
}

export async function listApplicationSenders(ctx: ServiceContext, principal: Principal, applicationId: string): Promise<Result<ApplicationSender[]>> {
  const app = await ctx.store.getApplication(principal.accountId, applicationId);
  if (!app) return fail('APPLICATION_NOT_FOUND', `application ${applicationId} not found`);
  return ok(await ctx.store.routes.listApplicationSenders(app.id));
}

/**
 * Sets the application's sender for a country: it goes before the template's senderId and the
 * route's sender (never before one given with the request), and a country that rejects its kind
 * still gets the route's fallback sender.
 */
export async function putApplicationSender(ctx: ServiceContext, principal: Principal, applicationId: string, country: string, input: SenderInput): Promise<Result<ApplicationSender>> {
  const app = await ctx.store.getApplication(principal.accountId, applicationId);
  if (!app) return fail('APPLICATION_NOT_FOUND', `application ${applicationId} not found`);
  const code = country.toUpperCase();
  const errors: Record<string, string[]> = {};
  if (!/^[A-Z]{2}$/.test(code)) errors['country'] = ['must be an ISO 3166-1 alpha-2 code such as IN or US'];
  if (!SENDER_KINDS.includes(input.kind as SenderKind)) errors['kind'] = [`must be one of ${SENDER_KINDS.join(', ')}`];
  else {
    const problem = validateSenderOfKind(input.id, input.kind as SenderKind);
    if (problem !== null) errors['id'] = [problem];
  }
  if (Object.keys(errors).length > 0) return invalid(errors);
  const sender: ApplicationSender = { country: code, id: input.id, kind: input.kind as SenderKind, updatedAt: ctx.clock() };
  return inUnitOfWork(ctx, principal, async (unit) => {
    await ctx.store.routes.putApplicationSender(principal.accountId, app.id, sender);
    unit.audit({ event: 'config.sender.update', applicationId: app.id, reason: `${code}=${sender.id} (${sender.kind})` });
    return ok(sender);
  });
}

export async function deleteApplicationSender(ctx: ServiceContext, principal: Principal, applicationId: string, country: string): Promise<Result<{ deleted: true }>> {
  const app = await ctx.store.getApplication(principal.accountId, applicationId);
  if (!app) return fail('APPLICATION_NOT_FOUND', `application ${applicationId} not found`);
  const code = country.toUpperCase();
  return inUnitOfWork(ctx, principal, async (unit) => {
    if (!(await ctx.store.routes.deleteApplicationSender(app.id, code))) return fail('SENDER_NOT_FOUND', `application ${applicationId} has no sender of its own for ${code}`);
    unit.audit({ event: 'config.sender.delete', applicationId: app.id, reason: code });
    return ok({ deleted: true as const });
  });
}

