import { html, type Html, type Renderable } from './html.js';
import { assetHref } from './assets.js';
import type { PageContext } from './page-context.js';

export type Section = 'workspaces' | 'simulator' | 'emails' | 'audit' | 'health' | 'clock';

export interface PageShape {
  title: string;
  section: Section;
  body: Renderable;
  /** Links above the title, outermost first. */
  trail?: { label: string; href: string }[];
  /** Beside the title: the page's main actions. */
  actions?: Renderable;
  lead?: Renderable;
}

const NAV: { section: Section; label: string; href: string }[] = [
  { section: 'workspaces', label: 'Workspaces', href: '/' },
  { section: 'simulator', label: 'Simulator', href: '/simulator' },
  { section: 'emails', label: 'E-mails', href: '/emails' },
  { section: 'audit', label: 'Audit', href: '/audit' },
  { section: 'health', label: 'Health', href: '/health' },
  { section: 'clock', label: 'Clock', href: '/clock' },
];

const head = (title: string): Html => html`<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Hiring-test internal</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${assetHref('app.css')}">
<script src="${assetHref('app.js')}" defer></script>
</head>`;

const brand = html`<a class="brand" href="/"><span class="brand-mark" aria-hidden="true">HT</span> Hiring-test <span class="brand-sub">internal</span></a>`;

const navigation = (context: PageContext, current: Section): Html => html`<nav class="nav" aria-label="Main">
<ul>${NAV.filter((item) => item.section !== 'clock' || context.clockEnabled).map((item) => html`<li><a href="${item.href}"${item.section === current ? html` aria-current="page"` : ''}>${item.label}</a></li>`)}</ul>
<form method="post" action="/sign-out" class="sign-out"><input type="hidden" name="_csrf" value="${context.csrf}"><button type="submit" class="button quiet small">Sign out</button></form>
</nav>`;

export const flashBanner = (flash: PageContext['flash']): Html =>
  flash
    ? html`<div class="flash ${flash.kind}" role="${flash.kind === 'error' ? 'alert' : 'status'}">${flash.message}</div>`
    : html``;

const trail = (items: PageShape['trail']): Html =>
  items?.length
    ? html`<nav class="trail" aria-label="Breadcrumb"><ol>${items.map((item) => html`<li><a href="${item.href}">${item.label}</a></li>`)}</ol></nav>`
    : html``;

/** The frame of every signed-in page: skip link, navigation, flash message, title, content. */
export const layout = (context: PageContext, page: PageShape): Html => html`<!doctype html>
<html lang="en">
${head(page.title)}
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top"><div class="top-inner">${brand}${navigation(context, page.section)}</div></header>
<main id="main" tabindex="-1">
${flashBanner(context.flash)}
${trail(page.trail)}
<div class="page-head"><h1>${page.title}</h1>${page.actions ? html`<div class="page-actions">${page.actions}</div>` : ''}</div>
${page.lead ? html`<p class="lead">${page.lead}</p>` : ''}
${page.body}
</main>
</body>
</html>`;

/** Pages shown without a session (sign-in, refusals). */
export const bareLayout = (title: string, body: Renderable): Html => html`<!doctype html>
<html lang="en">
${head(title)}
<body class="bare">
<main id="main" class="bare-main">
<div class="bare-brand">${brand}</div>
${body}
</main>
</body>
</html>`;
