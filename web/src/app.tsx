// The console's shell: sign-in until there is a session, then the navigation and the page of the
// current route. Focus moves to the page's heading on every navigation, for keyboard and screen
// reader users.
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ComponentChildren } from 'preact';
import { SessionContext } from './context.js';
import { Link, match, navigate, useLocation } from './router.js';
import { FactorsPage } from './pages/factors.js';
import { signIn, signOut, storedKey, type Session } from './session.js';
import { SignIn } from './pages/sign-in.js';
import { Dashboard } from './pages/dashboard.js';
import { Applications } from './pages/applications.js';
import { ApplicationPage } from './pages/application.js';
import { TemplatePage } from './pages/template.js';
import { EmailTemplates } from './pages/email-templates.js';
import { EmailTemplatePage } from './pages/email-template.js';
import { SendPin } from './pages/send.js';
import { InboxPage } from './pages/inbox.js';
import { Verifications } from './pages/pins.js';
import { PinPage } from './pages/pin.js';
import { ApiKeys } from './pages/keys.js';
import { Webhooks } from './pages/webhooks.js';
import { TestNumbers } from './pages/test-numbers.js';
import { SpendPage } from './pages/spend.js';
import { Routes } from './pages/routes.js';
import { VonageApplications } from './pages/vonage-applications.js';
import { Passkeys } from './pages/passkeys.js';
import { Fraud } from './pages/fraud.js';

const NAV: Array<{ href: string; label: string; section: string }> = [
  { href: '/', label: 'Dashboard', section: '' },
  { href: '/applications', label: 'Applications', section: 'applications' },
  { href: '/email-templates', label: 'Email templates', section: 'email-templates' },
  { href: '/send', label: 'Send a test PIN', section: 'send' },
  { href: '/inbox', label: 'Inbox', section: 'inbox' },
  { href: '/pins', label: 'Verifications', section: 'pins' },
  { href: '/keys', label: 'API keys', section: 'keys' },
  { href: '/webhooks', label: 'Webhooks', section: 'webhooks' },
  { href: '/test-numbers', label: 'Test numbers', section: 'test-numbers' },
  { href: '/routes', label: 'Routes', section: 'routes' },
  { href: '/vonage-applications', label: 'Vonage applications', section: 'vonage-applications' },
  { href: '/spend', label: 'Spend', section: 'spend' },
  { href: '/passkeys', label: 'Passkeys', section: 'passkeys' },
  { href: '/fraud', label: 'Fraud', section: 'fraud' },
];

function route(path: string): { title: string; page: ComponentChildren } {
  let m: Record<string, string> | null;
  if (path === '/') return { title: 'Dashboard', page: <Dashboard /> };
  if (path === '/applications') return { title: 'Applications', page: <Applications /> };
  if ((m = match('/applications/:appId/templates/new', path))) return { title: 'New message template', page: <TemplatePage appId={m['appId']!} /> };
  if ((m = match('/applications/:appId/templates/:msgId', path))) return { title: 'Message template', page: <TemplatePage appId={m['appId']!} msgId={m['msgId']!} /> };
  if ((m = match('/applications/:appId/factors', path))) return { title: 'Users\' factors', page: <FactorsPage appId={m['appId']!} /> };
  if ((m = match('/applications/:appId/factors/:identity', path))) return { title: 'Factors', page: <FactorsPage key={m['identity']} appId={m['appId']!} identity={m['identity']!} /> };
  if ((m = match('/applications/:appId', path))) return { title: 'Application', page: <ApplicationPage appId={m['appId']!} /> };
  if (path === '/email-templates') return { title: 'Email templates', page: <EmailTemplates /> };
  if (path === '/email-templates/new') return { title: 'New email template', page: <EmailTemplatePage /> };
  if ((m = match('/email-templates/:id', path))) return { title: 'Email template', page: <EmailTemplatePage id={Number(m['id'])} /> };
  if (path === '/send') return { title: 'Send a test PIN', page: <SendPin /> };
  if (path === '/inbox') return { title: 'Inbox', page: <InboxPage /> };
  if (path === '/pins') return { title: 'Verifications', page: <Verifications /> };
  if ((m = match('/pins/:pinId', path))) return { title: 'PIN', page: <PinPage pinId={m['pinId']!} /> };
  if (path === '/keys') return { title: 'API keys', page: <ApiKeys /> };
  if (path === '/webhooks') return { title: 'Webhooks', page: <Webhooks /> };
  if (path === '/test-numbers') return { title: 'Test numbers', page: <TestNumbers /> };
  if (path === '/routes') return { title: 'Routes', page: <Routes /> };
  if (path === '/vonage-applications') return { title: 'Vonage applications', page: <VonageApplications /> };
  if (path === '/spend') return { title: 'Spend and budgets', page: <SpendPage /> };
  if (path === '/passkeys') return { title: 'Passkeys', page: <Passkeys /> };
  if (path === '/fraud') return { title: 'Fraud', page: <Fraud /> };
  return { title: 'Not found', page: <section><h1 tabIndex={-1}>Page not found</h1><p>There is no console page at this address. <Link href="/">Go to the dashboard</Link>.</p></section> };
}

export function App() {
  const [session, setSession] = useState<Session | null>(null);
  const [restoring, setRestoring] = useState(() => storedKey() !== null);
  const [menuOpen, setMenuOpen] = useState(false);
  const location = useLocation();
  const mainRef = useRef<HTMLElement>(null);

  // A reload keeps the operator signed in for as long as the tab's session storage holds the key.
  useEffect(() => {
    const key = storedKey();
    if (key === null) return;
    signIn(key).then(setSession, () => signOut()).finally(() => setRestoring(false));
  }, []);

  const { title, page } = route(location.path);
  // The page that was shown last: focus moves to a new page's heading, but not on the first page
  // after loading or signing in, where the first Tab should still reach the skip link.
  const shownPath = useRef<string | null>(null);
  useEffect(() => {
    document.title = session ? `${title} · twofa console` : 'Sign in · twofa console';
    setMenuOpen(false);
    if (!session) {
      shownPath.current = null;
      return;
    }
    const moved = shownPath.current !== null && shownPath.current !== location.path;
    shownPath.current = location.path;
    const heading = mainRef.current?.querySelector('h1');
    if (moved && heading instanceof HTMLElement) heading.focus({ preventScroll: false });
  }, [location.path, session !== null]);

  if (restoring) return <p class="muted" role="status">Signing in…</p>;
  if (!session) return <SignIn onSignedIn={(s) => { setSession(s); }} />;

  const section = location.path.split('/')[1] ?? '';
  return (
    <SessionContext.Provider value={session}>
      <a class="skip-link" href="#main">Skip to content</a>
      <header class="topbar">
        <div class="brand"><span aria-hidden="true">◆</span> twofa <span class="muted">console</span></div>
        <button type="button" class="menu-toggle" aria-expanded={menuOpen ? 'true' : 'false'} aria-controls="main-nav" onClick={() => setMenuOpen(!menuOpen)}>Menu</button>
        <nav id="main-nav" aria-label="Console" class={menuOpen ? 'open' : ''}>
          <ul>
            {NAV.map((item) => (
              <li key={item.href}>
                <Link href={item.href} aria-current={item.section === section ? 'page' : undefined}>{item.label}</Link>
              </li>
            ))}
          </ul>
        </nav>
        <div class="account">
          <span title="Account">{session.me.accountName}</span>
          <button type="button" class="secondary" onClick={() => { signOut(); setSession(null); navigate('/', { replace: true }); }}>Sign out</button>
        </div>
      </header>
      <main id="main" ref={mainRef} tabIndex={-1}>
        {page}
      </main>
    </SessionContext.Provider>
  );
}
