/**
 * Stored JSON holds this character where the service's APP_URL goes: links stay right when
 * APP_URL changes, without a rebuild. JSON.stringify escapes every control character, so a raw
 * U+0001 in stored JSON can only be this marker, never data.
 */
export const APP_URL_MARK = '\u0001';

/** `JSON.stringify(link)` for a link built on APP_URL_MARK, with the marker left raw. */
export const markedLinkJson = (link: string): string => {
  if (!link.startsWith(APP_URL_MARK)) throw new Error('a marked link starts with APP_URL_MARK');
  // JSON.stringify writes the marker as the six characters \u0001 right after the opening quote.
  return `"${APP_URL_MARK}${JSON.stringify(link).slice(7)}`;
};

/** Replaces the markers of served JSON with APP_URL, escaped as JSON string content. */
export const fillAppUrl = (json: string, appUrl: string): string => {
  if (!json.includes(APP_URL_MARK)) return json;
  return json.split(APP_URL_MARK).join(JSON.stringify(appUrl).slice(1, -1));
};

/** What served JSON is sent as (Fastify sends a string of this type as is). */
export const SERVED_CONTENT_TYPE = 'application/json; charset=utf-8';

/** `{"data":[…rows],"meta":{…}}` assembled from stored JSON text, as the list endpoints answer. */
export const servedList = (rows: readonly string[], meta: Readonly<Record<string, unknown>> | null, appUrl: string): string => {
  const data = `{"data":[${rows.join(',')}]`;
  return fillAppUrl(meta === null ? `${data}}` : `${data},"meta":${JSON.stringify(meta)}}`, appUrl);
};

/** `{"data":{…}}` around one row's stored JSON text. */
export const servedItem = (row: string, appUrl: string): string => fillAppUrl(`{"data":${row}}`, appUrl);
