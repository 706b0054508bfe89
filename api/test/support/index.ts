// Test helpers of @earshot/api, imported as `@earshot/api/testing`; never re-exported from the
// production index.ts. `moderate-process.ts` is a child-process script started by path, not exported.

export { type AnalyzedSound, addAnalyzedSounds } from './analyzed.ts';
export { bearerGrant, bearerToken } from './bearer.ts';
export { CHROMIUM_PATH, chromiumAvailable, launchChromium, saveScreenshot } from './browser.ts';
export {
  memoryCatalogue,
  memoryDescriptors,
  type RecordingSearchEngine,
  recordingSearchEngine,
} from './ports.ts';
export { serveRoutes } from './routes.ts';
export { BASE_TIME, SEED_SOUNDS, type Seeded, type SeedSound, seedCatalogue } from './seed.ts';
export { type ServeProcess, startServeProcess } from './serve-process.ts';
export { startTestServer, type TestServer } from './server.ts';
export { addWebUser, WEB_PASSWORD, WebClient, type WebResponse } from './web-client.ts';
