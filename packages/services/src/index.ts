// @earshot/services: the use cases the API, the CLI and the workers share — accounts, credentials,
// intake and import, moderation, reprocessing, and the file layout of a sound. The pipeline is
// reached through the ProcessingQueue port, which @earshot/workers implements.

export { createUser, MIN_PASSWORD_LENGTH, type SignUpOutcome, signUp } from './accounts.ts';
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
} from './credentials.ts';
export { DEMO_USERNAME, type DemoAccount, ensureDemoAccount } from './demo-account.ts';
export { downloadName, originalMediaType } from './downloads/download-names.ts';
export { Downloads, type OriginalFile, type PackArchive } from './downloads/downloads.ts';
export { README_NAME } from './downloads/pack-zip.ts';
export {
  collectFiles,
  type ImportOptions,
  type ImportOutcome,
  type QueuedFile,
  queueImports,
  waitForSounds,
} from './intake/bulk-import.ts';
export { type DemoImportOptions, importDemoFixtures } from './intake/demo.ts';
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
} from './moderation.ts';
export * from './oauth2/index.ts';
export { ProcessingCounts } from './processing-counts.ts';
export type { ProcessingQueue } from './processing-queue.ts';
export { AlreadyProcessingError, reprocess, reprocessFailed } from './reprocess.ts';
export {
  type ExampleMatch,
  type ExampleSearchResult,
  readExample,
  searchByExample,
} from './search-by-example.ts';
export { type SignInOutcome, type SignInRequest, signIn } from './sign-in.ts';
export {
  SIGN_IN_LIMITS,
  SIGN_UP_LIMIT,
  type SignInAttempt,
  type SignInThrottle,
  signInThrottle,
  type ThrottleScope,
} from './sign-in-throttle.ts';
export {
  logSimilarityFailure,
  SimilarityLoading,
  SimilarityState,
  type SimilarityStateOptions,
  similaritySnapshotDir,
} from './similarity-state.ts';
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
export { replaceFile, SoundStorage } from './sound-files.ts';
export { NotYourSoundToDeleteError, removeSound, SoundBusyError } from './sounds/delete-sound.ts';
export { editOwnSound, NotYourSoundError } from './sounds/edit-sound.ts';
export {
  endWebSession,
  type ResumedWebSession,
  resumeWebSession,
  SIGNED_IN_LIFETIME,
  startSignedInSession,
  startVisitorSession,
  VISITOR_LIFETIME,
} from './web-sessions.ts';
