import { BadRequest } from './bad-request.js';

/**
 * The request target as a URL, or a 400 when it cannot be read unambiguously. The WHATWG parser
 * keeps a malformed escape (a `%` not followed by two hex digits, escapes that do not spell UTF-8)
 * as it is in the path, where `decodeURIComponent` then throws, and URLSearchParams turns it into
 * U+FFFD, so a query value would silently become another value: both are refused here, naming the
 * path or the query parameter.
 */
const ORIGIN = 'http://dashboard.invalid';
const SHOWN_LENGTH = 200;

export function parseRequestTarget(target: string): URL {
  // Origin-form only: an absolute URL is what a proxy is sent, and the dashboard is not one. Behind
  // a fixed origin the parser takes any path, and a target starting "//" is a path, not an authority.
  if (!target.startsWith('/')) throw new BadRequest(`must be a path starting with "/", got "${shown(target)}"`, 'path');
  const url = new URL(`${ORIGIN}${target}`);
  if (url.pathname.split('/').some((segment) => !decodes(segment))) throw malformed('path', url.pathname);
  for (const pair of url.search.slice(1).split('&')) {
    const equals = pair.indexOf('=');
    const name = equals === -1 ? pair : pair.slice(0, equals);
    if (!decodes(name)) throw malformed('query', pair);
    if (equals !== -1 && !decodes(pair.slice(equals + 1))) throw malformed(decodeQueryPart(name) || 'query', pair.slice(equals + 1));
  }
  return url;
}

function decodes(text: string): boolean {
  try {
    decodeURIComponent(text);
    return true;
  } catch {
    return false;
  }
}

/** A query name or value as URLSearchParams reads it (`+` is a space), but throwing on a malformed escape. */
function decodeQueryPart(text: string): string {
  return decodeURIComponent(text.replace(/\+/g, ' '));
}

function malformed(field: string, text: string): BadRequest {
  return new BadRequest(`malformed percent-encoding in "${shown(text)}" (a % must start a %XX escape, and the escapes must spell UTF-8)`, field);
}

function shown(text: string): string {
  return text.length <= SHOWN_LENGTH ? text : `${text.slice(0, SHOWN_LENGTH)}…`;
}
