export type {
  AuthorizationOutcome,
  AuthorizationRequest,
  AuthorizationStart,
} from './authorization.ts';
export { OAUTH2_SCOPES } from './model.ts';
export {
  authorizationRedirect,
  isPermissionGrantedUrl,
  OAuth2Service,
  type OAuth2ServiceOptions,
  PERMISSION_GRANTED_PATH,
} from './service.ts';
export type { TokenRequest, TokenResponse } from './token-endpoint.ts';
