// The wire shapes of Vonage Verify v2's templates and template fragments (Vonage's OpenAPI document
// "Verify API" 1.0.1: Template, TemplateFragment, ListTemplatesResponse, ListFragmentsResponse), and
// their presenters. JSON, snake_case; `_links` hold absolute URLs, which the SDK never follows (its
// listAll* generators count pages themselves while `_links.next` is present).
import { Type, type Static } from 'typebox';
import { vonageResourceId } from '../../../domain/vonage-ids.js';
import type { LocaleText } from '../../../domain/template-locales.js';
import { vonageText } from '../../../service/vonage-templates.js';
import type { SmsVoiceTemplateRecord } from '../../../store/store.js';

export const TemplateParams = Type.Object({
  template_id: Type.String({ maxLength: 64, description: 'A template id (a UUID).' }),
});

export const FragmentParams = Type.Object({
  template_id: Type.String({ maxLength: 64, description: 'A template id (a UUID).' }),
  template_fragment_id: Type.String({ maxLength: 64, description: 'A fragment id (a UUID).' }),
});

export const PAGE_SIZE_DEFAULT = 10;

// Query strings arrive as text (no coercion): the patterns bound them, pageOfItems reads the numbers.
export const PageQuery = Type.Object({
  page: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,5}$', description: 'The page, from 1.' })),
  page_size: Type.Optional(Type.String({ pattern: '^([1-9][0-9]?|100)$', description: `Items per page, 1 to 100 (${PAGE_SIZE_DEFAULT}).` })),
});

const TemplateName = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$', description: 'Unique among the application\'s templates.' });

export const CreateTemplateBody = Type.Object({ name: TemplateName }, { additionalProperties: false });

export const UpdateTemplateBody = Type.Object({
  name: Type.Optional(TemplateName),
  // Required: the SDK's updateTemplate always sends it (false unless isDefault is set).
  is_default: Type.Boolean({ description: 'The template a start without template_id sends with; a new default stops being another\'s.' }),
}, { additionalProperties: false });

const FragmentText = Type.String({ minLength: 1, maxLength: 1600, description: 'The text: `${code}` (required), `${brand}`, `${time-limit}`, `${time-limit-unit}`.' });

export const CreateFragmentBody = Type.Object({
  channel: Type.Union([Type.Literal('sms'), Type.Literal('voice')]),
  locale: Type.String({ minLength: 2, maxLength: 35, description: 'A BCP-47 tag (en-us, es-mx); `_` is taken for `-`.' }),
  text: FragmentText,
}, { additionalProperties: false });

export const UpdateFragmentBody = Type.Object({ text: FragmentText }, { additionalProperties: false });

const Link = Type.Object({ href: Type.String() });

export const TemplateSchema = Type.Object({
  template_id: Type.String(),
  name: Type.String(),
  is_default: Type.Boolean(),
  _links: Type.Object({ self: Link, fragments: Link }),
}, { additionalProperties: false, title: 'VonageTemplate', description: 'A template: a named SMS/voice message template of the application.' });

export const FragmentSchema = Type.Object({
  template_fragment_id: Type.String(),
  channel: Type.String({ description: 'sms or voice; `all` for a text added through /api/v1 for every channel.' }),
  locale: Type.String(),
  text: Type.String(),
  date_updated: Type.String(),
  date_created: Type.String(),
  _links: Type.Object({ self: Link, template: Link }),
}, { additionalProperties: false, title: 'VonageTemplateFragment', description: 'A fragment: the template\'s text of one channel and locale.' });

const PageLinks = Type.Object({
  self: Link, first: Link, last: Link, next: Type.Optional(Link), prev: Type.Optional(Link),
}, { description: '`next` only while a page follows: the SDK\'s listAll* stops where it is absent.' });

const pageOf = <T extends ReturnType<typeof Type.Object>>(key: string, item: T, title: string, description: string) => Type.Object({
  page_size: Type.Integer(), page: Type.Integer(), total_pages: Type.Integer(), total_items: Type.Integer(),
  _embedded: Type.Object({ [key]: Type.Array(item) }), _links: PageLinks,
}, { additionalProperties: false, title, description });

export const TemplatePageSchema = pageOf('templates', TemplateSchema, 'VonageTemplatePage', 'A page of the application\'s templates.');
export const FragmentPageSchema = pageOf('template_fragments', FragmentSchema, 'VonageTemplateFragmentPage', 'A page of the template\'s fragments.');

const templatesUrl = (origin: string) => `${origin}/v2/verify/templates`;
const templateUrl = (origin: string, id: string) => `${templatesUrl(origin)}/${vonageResourceId(id)}`;

export function presentTemplate(origin: string, t: SmsVoiceTemplateRecord): Static<typeof TemplateSchema> {
  return {
    template_id: vonageResourceId(t.id), name: t.name ?? '', is_default: t.isDefault === true,
    _links: { self: { href: templateUrl(origin, t.id) }, fragments: { href: `${templateUrl(origin, t.id)}/template_fragments` } },
  };
}

export function presentFragment(origin: string, templateId: string, f: LocaleText): Static<typeof FragmentSchema> {
  return {
    template_fragment_id: vonageResourceId(f.id), channel: f.channel ?? 'all', locale: f.locale, text: vonageText(f.text),
    date_updated: new Date(f.updatedAt).toISOString(), date_created: new Date(f.createdAt).toISOString(),
    _links: { self: { href: `${templateUrl(origin, templateId)}/template_fragments/${vonageResourceId(f.id)}` }, template: { href: templateUrl(origin, templateId) } },
  };
}

/** One page of `items` with Vonage's page fields and links (`url` is the list's URL without a query). */
export function pageOfItems<T, R>(url: string, items: readonly T[], query: Static<typeof PageQuery>, present: (item: T) => R) {
  const pageSize = query.page_size === undefined ? PAGE_SIZE_DEFAULT : Number(query.page_size);
  const page = query.page === undefined ? 1 : Number(query.page);
  const totalPages = Math.max(1, Math.ceil(items.length / pageSize));
  const link = (p: number) => ({ href: `${url}?page=${p}&page_size=${pageSize}` });
  return {
    page_size: pageSize, page, total_pages: totalPages, total_items: items.length,
    embedded: items.slice((page - 1) * pageSize, page * pageSize).map(present),
    _links: { self: link(page), first: link(1), last: link(totalPages), ...(page < totalPages ? { next: link(page + 1) } : {}), ...(page > 1 ? { prev: link(page - 1) } : {}) },
  };
}

export { templatesUrl, templateUrl };
