import http from 'node:http';
import Router from '@koa/router';

/**
 * A router that knows every HTTP method, so that a method a resource does not allow (TRACE,
 * PROPFIND, …) is a 405 naming the allowed ones rather than a 501 "not implemented".
 */
export function newRouter(): Router {
  return new Router({ methods: [...http.METHODS] });
}
