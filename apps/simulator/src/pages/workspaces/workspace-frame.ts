import { badge } from '../shared/components.js';
import { html, type Html } from '../shared/html.js';
import type { PageShape } from '../shared/layout.js';
import type { WorkspaceDocument } from '#read-models';

export type WorkspaceTab = 'overview' | 'assessments' | 'webhook' | 'billing';

const TABS: { tab: WorkspaceTab; label: string; suffix: string }[] = [
  { tab: 'overview', label: 'Keys & tests', suffix: '' },
  { tab: 'assessments', label: 'Assessments', suffix: '/assessments' },
  { tab: 'webhook', label: 'Webhook', suffix: '/webhook' },
  { tab: 'billing', label: 'Billing', suffix: '/billing' },
];

export const workspacePath = (workspaceId: string, tab: WorkspaceTab = 'overview'): string =>
  `/workspaces/${encodeURIComponent(workspaceId)}${TABS.find((item) => item.tab === tab)?.suffix ?? ''}`;

export const verifiedBadge = (verified: boolean): Html => (verified ? badge('verified', 'ok') : badge('unverified', 'warn'));

const tabs = (workspace: WorkspaceDocument, current: WorkspaceTab): Html => html`<nav class="tabs" aria-label="Workspace">
<ul>${TABS.map((item) => html`<li><a href="${workspacePath(workspace.id, item.tab)}"${item.tab === current ? html` aria-current="page"` : ''}>${item.label}</a></li>`)}</ul>
</nav>`;

/** Every page of one workspace: the same title, trail and tabs, so moving between them keeps one's place. */
export const workspacePage = (workspace: WorkspaceDocument, tab: WorkspaceTab, body: Html, actions?: Html): PageShape => ({
  title: workspace.name,
  section: 'workspaces',
  trail: [{ label: 'Workspaces', href: '/' }],
  actions: html`${verifiedBadge(workspace.verified)} <code class="muted">${workspace.id}</code>${actions ? html` ${actions}` : ''}`,
  body: html`${tabs(workspace, tab)}${body}`,
});
