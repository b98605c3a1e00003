// What every sandbox page shares: escaping of each printed value (titles and names come from
// merchants) and headers that keep the page to itself.
import {printable} from '../protocol/printable.js'

const ENTITIES: Record<string, string> = {'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;'}

/** A value for HTML text or an attribute: control characters shown as `\u001b` (a page fetched to a terminal must not drive it), then entities. */
export const escapeHtml = (value: unknown) => printable(String(value ?? '')).replace(/[&<>"']/g, (c) => ENTITIES[c])

/** Headers for an HTML page with the given content security policy. */
export function pageHeaders(contentSecurityPolicy: string): Record<string, string> {
  return {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    // same-origin, not no-referrer: under no-referrer a browser sends `Origin: null` on the
    // page's own form posts, and pagePostRefusal (guard.ts) refuses those as cross-origin.
    // same-origin still sends no referrer (and a null Origin) to any other site.
    'referrer-policy': 'same-origin',
    'content-security-policy': contentSecurityPolicy,
  }
}
