/** Markup that is already safe to send: produced by `html`, never by concatenating request data. */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

export type Renderable = Html | string | number | boolean | null | undefined | readonly Renderable[];

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export const escapeHtml = (value: string): string => value.replace(/[&<>"']/g, (char) => ESCAPES[char] ?? char);

const render = (value: Renderable): string => {
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
};

/**
 * Every interpolated value is escaped unless it is itself `Html`: request data and stored data
 * can only reach a page as text, so a name or an e-mail address cannot become markup.
 */
export const html = (strings: TemplateStringsArray, ...values: Renderable[]): Html => {
  let text = strings[0] ?? '';
  values.forEach((value, index) => {
    text += render(value) + (strings[index + 1] ?? '');
  });
  return new Html(text);
};

/** For values that are markup by construction (e.g. pretty-printed JSON already escaped). */
export const trusted = (text: string): Html => new Html(text);

