import { escapeHtml, html, type Html, type Renderable, trusted } from './html.js';
import type { PageContext } from './page-context.js';

export const csrfField = (context: PageContext): Html => html`<input type="hidden" name="_csrf" value="${context.csrf}">`;

export type Tone = 'ok' | 'warn' | 'bad' | 'info' | 'muted';

export const badge = (text: string, tone: Tone): Html => html`<span class="badge ${tone}">${text}</span>`;

/** A one-button form: the action changes the world, so it is a POST with the session's token. */
export const actionButton = (
  context: PageContext,
  action: string,
  label: string,
  options: { style?: 'primary' | 'danger' | 'quiet'; confirm?: string; small?: boolean; hidden?: Record<string, string> } = {},
): Html => html`<form method="post" action="${action}" class="inline"${options.confirm ? html` data-confirm="${options.confirm}"` : ''}>${csrfField(context)}${Object.entries(options.hidden ?? {}).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}<button type="submit" class="button ${options.style ?? ''}${options.small ? ' small' : ''}">${label}</button></form>`;

/** When a value was written, readable at a glance, exact on hover and for machines. */
export const timeOf = (iso: string | null | undefined): Html => {
  if (!iso) return html`<span class="muted">—</span>`;
  const readable = iso.replace('T', ' ').replace(/\.\d{3}Z$/, ' UTC');
  return html`<time datetime="${iso}" title="${iso}">${readable}</time>`;
};

const JSON_TOKEN = /("(?:\\.|[^"\\])*")(\s*:)?|\b(true|false|null)\b|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/g;

/** Pretty-printed JSON with light colouring: tokens are found in the raw text, and every piece is escaped. */
export const jsonBlock = (value: unknown, label?: string): Html => {
  const text = JSON.stringify(value, null, 2) ?? 'undefined';
  let out = '';
  let last = 0;
  for (const match of text.matchAll(JSON_TOKEN)) {
    const [whole, string, colon, literal, number] = match;
    const start = match.index ?? 0;
    out += escapeHtml(text.slice(last, start));
    if (string !== undefined) out += `<span class="${colon ? 'j-key' : 'j-str'}">${escapeHtml(string)}</span>${colon ?? ''}`;
    else if (literal !== undefined) out += `<span class="j-lit">${literal}</span>`;
    else if (number !== undefined) out += `<span class="j-num">${number}</span>`;
    else out += escapeHtml(whole);
    last = start + whole.length;
  }
  out += escapeHtml(text.slice(last));
  return html`<pre class="json"${label ? html` aria-label="${label}"` : ''} tabindex="0"><code>${trusted(out)}</code></pre>`;
};

/** A value someone will paste elsewhere: shown in full, with a button that copies it. */
export const copyable = (id: string, value: string, label: string): Html => html`<div class="copyable">
<code id="${id}">${value}</code>
<button type="button" class="button small" data-copy="${id}" aria-label="Copy ${label}">Copy</button>
</div>`;

export const table = (caption: string, headers: string[], rows: Renderable[][], options: { empty?: string; captionHidden?: boolean } = {}): Html =>
  rows.length === 0
    ? html`<p class="empty">${options.empty ?? 'Nothing yet.'}</p>`
    : html`<div class="table-wrap"><table>
<caption${options.captionHidden ? html` class="visually-hidden"` : ''}>${caption}</caption>
<thead><tr>${headers.map((header) => html`<th scope="col">${header}</th>`)}</tr></thead>
<tbody>${rows.map((row) => html`<tr>${row.map((cell, index) => html`<td data-label="${headers[index] ?? ''}"><div class="cell">${cell}</div></td>`)}</tr>`)}</tbody>
</table></div>`;

export const facts = (pairs: [string, Renderable][]): Html =>
  html`<dl class="facts">${pairs.map(([term, value]) => html`<div><dt>${term}</dt><dd>${value}</dd></div>`)}</dl>`;

export const code = (value: string): Html => html`<code>${value}</code>`;

export const modeBadge = (mode: string): Html => badge(mode, mode === 'live' ? 'info' : 'warn');
