import type { FuzzRequest } from './generate.ts';
import type { FuzzResponse } from './send.ts';
import type { FuzzTarget } from './targets.ts';

/** Text that would be a stack trace or an internal detail in a response body. */
const LEAKS: [string, RegExp][] = [
  ['a stack frame', /\n\s+at [^\n]+:\d+:\d+/],
  ['a source path', /\/(node_modules|packages|src)\/[^\s"']+\.(ts|js)\b/],
  ['a database error', /\b(syntax error at or near|violates|out of range for type|invalid input syntax)\b/i],
  ['a password hash', /\bscrypt\$/],
];

/**
 * Why a response breaks the rules of issue 19, or undefined: no 5xx, no hang, every 4xx of a JSON
 * route explains itself with `detail`, no stack trace or secret in any body.
 */
export function violation(
  req: FuzzRequest,
  res: FuzzResponse,
  kind: FuzzTarget['kind'],
  secrets: string[],
): string | undefined {
  if (res.status === 0 && /timeout/.test(res.body)) return 'no answer within the time limit';
  if (res.status >= 500) return `status ${res.status}`;
  for (const [what, pattern] of LEAKS) if (pattern.test(res.body)) return `the body holds ${what}`;
  for (const secret of secrets) if (secret && res.body.includes(secret)) return 'the body holds a secret';
  if (res.status >= 400 && res.status < 500 && kind === 'api' && req.method !== 'HEAD' && res.body !== '') {
    const html = res.contentType.includes('text/html');
    if (!html && !res.body.includes('detail')) return `a ${res.status} without a detail`;
  }
  return undefined;
}

/** How to send the failing request again, by hand or with the suite. */
export function describeFailure(seed: number, req: FuzzRequest, res: FuzzResponse, why: string): string {
  const body = req.body
    ? ` body(${req.body.length} B)=${JSON.stringify(req.body.subarray(0, 300).toString('latin1'))}`
    : '';
  return [
    `${why} — seed ${seed}, request ${req.index} (replay: FUZZ_SEED=${seed} FUZZ_ONLY=${req.index})`,
    `  route ${req.target}`,
    `  ${req.method} ${JSON.stringify(req.path).slice(0, 600)} headers=${JSON.stringify(req.headers).slice(0, 400)}${body}`,
    `  → ${res.status} ${res.contentType} ${JSON.stringify(res.body.slice(0, 400))}`,
  ].join('\n');
}
