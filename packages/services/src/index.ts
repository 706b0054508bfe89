// @earshot/services: the use cases the API, the CLI and the workers share — accounts, credentials,
// intake and import, moderation, reprocessing, search, the file layout of a sound, and the counting
// behind rate limits (the API's per-credential limits, the sign-in throttle). The pipeline is
// reached through the ProcessingQueue port, which @earshot/workers implements.

export { createUser, MIN_PASSWORD_LENGTH, type SignUpOutcome, signUp } from './accounts/accounts.ts';
export {
  type ApiCredentialRequest,
  applyForCredential,
  CREDENTIAL_LIMITS,
  type CreatedCredential,
  type CredentialApplication,
  type CredentialFieldErrors,
  CredentialLimitReached,
  type CredentialSummary,
  checkCredentialApplication,
  createApiCredential,
  listUserCredentials,
  maskedKey,
  regenerateApiKey,
  regenerateApiKeyOf,
  revokeApiCredential,
  setApiCredentialLevel,
} from './accounts/credentials.ts';
export { DEMO_USERNAME, type DemoAccount, ensureDemoAccount } from './accounts/demo-account.ts';
export { changeGenAiPreference, type GenAiPreferenceChange } from './accounts/gen-ai-preference.ts';
export { type SignInOutcome, type SignInRequest, signIn } from './accounts/sign-in.ts';
export {
  SIGN_IN_LIMITS,
  SIGN_UP_LIMIT,
  type SignInAttempt,
  type SignInThrottle,
  signInThrottle,
  type ThrottleScope,
} from './accounts/sign-in-throttle.ts';
export {
  endWebSession,
  type ResumedWebSession,
  resumeWebSession,
  SIGNED_IN_LIFETIME,
  startSignedInSession,
  startVisitorSession,
  VISITOR_LIFETIME,
} from './accounts/web-sessions.ts';
export {
  type CategoryTraining,
  estimateSoundCategory,
  retrainCategoryModel,
} from './categories/category-estimates.ts';
export {
  CREDITS_JSON_NAME,
  creditsJson,
  creditsText,
  type SoundCredit,
  soundCredit,
  soundPageUrl,
} from './downloads/credits.ts';
export { downloadName, originalMediaType } from './downloads/download-names.ts';
export { Downloads, type OriginalFile, type PackArchive } from './downloads/downloads.ts';
export { README_NAME } from './downloads/pack-zip.ts';
export {
  type ExportInfo,
  exportLine,
  exportsDir,
  latestExport,
  writeCatalogueExport,
} from './export/catalogue-export.ts';
export {
  DEFAULT_EXPORT_SCHEDULE,
  EXPORT_TASK,
  ExportBusyError,
  type ExportDue,
  type ExportSchedule,
  exportDue,
  refreshCatalogueExport,
  runCatalogueExport,
} from './export/export-schedule.ts';
export {
  collectFiles,
  type ImportOptions,
  type ImportOutcome,
  type QueuedFile,
  queueImports,
  waitForSounds,
} from './intake/bulk-import.ts';
export {
  DESCRIPTION_FIELDS,
  DescriptionError,
  type DescriptionField,
  type RawDescription,
  type SoundDescription,
  validateDescription,
} from './intake/description-fields.ts';
export { readSidecar, type SidecarMetadata } from './intake/sidecar.ts';
export {
  assertLicense,
  DuplicateUploadError,
  type NewSoundInput,
  SoundIntake,
} from './intake/sound-intake.ts';
export { type ReceivedFile, UploadReceiver, UploadTooLargeError } from './intake/upload-receiver.ts';
export { type PendingUploadsRecord, SoundUploads, type UploadOutcome } from './intake/uploads.ts';
export {
  listPendingModeration,
  MODERATION_REASON_MAX,
  type ModerationEntry,
  type ModerationOptions,
  moderate,
} from './moderation/moderation.ts';
export * from './oauth2/index.ts';
export { ProcessingCounts } from './processing/processing-counts.ts';
export type { ProcessingQueue } from './processing/processing-queue.ts';
export {
  AlreadyProcessingError,
  reprocess,
  reprocessFailed,
  reprocessStale,
} from './processing/reprocess.ts';
export {
  type SlidingWindowLimiter,
  type SlidingWindowLimiterOptions,
  type SlidingWindowVerdict,
  slidingWindowLimiter,
} from './rate-limiting/sliding-window-limiter.ts';
export {
  type FilterRequest,
  type FilterSets,
  filterNarrows,
  filterSetsFromCatalogue,
} from './search/filter-sets.ts';
export {
  type ExampleMatch,
  type ExampleSearchOptions,
  type ExampleSearchResult,
  readExample,
  searchByExample,
} from './search/search-by-example.ts';
export {
  type SearchEngine,
  type SearchEngineOptions,
  searchEngine,
  type TextIndex,
} from './search/search-engine.ts';
export { searchIndexSnapshotStore } from './search/search-index-snapshot.ts';
export type {
  ContentSearchRequest,
  Hit,
  Hits,
  SearchExample,
  SimilarityRequest,
  TextSearchRequest,
} from './search/search-requests.ts';
export {
  logSimilarityFailure,
  SimilarityLoading,
  SimilarityState,
  type SimilarityStateOptions,
  similaritySnapshotDir,
} from './search/similarity-state.ts';
export { SUGGESTION_LIMITS, type Suggestions, suggestCompletions } from './search/suggestions.ts';
export { ThreadedTextIndex, type ThreadedTextIndexOptions } from './search/threaded-text-index.ts';
export { BookmarkCategories } from './social/bookmark-categories.ts';
export {
  BOOKMARK_NAME_MAX,
  COMMENT_MAX,
  type FeedbackInput,
  FieldErrors,
  readRating,
  SoundFeedback,
  type UserFeedback,
} from './social/sound-feedback.ts';
export { NotYourSoundToDeleteError, removeSound, SoundBusyError } from './sounds/delete-sound.ts';
export { editOwnSound, NotYourSoundError } from './sounds/edit-sound.ts';
export { replaceFile, SoundStorage } from './storage/sound-files.ts';
export * from './webhooks/index.ts';
