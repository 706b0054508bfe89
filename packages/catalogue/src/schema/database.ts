import type { SoundType } from '@earshot/core';
import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';
import type { DescriptorValues } from './descriptors.ts';
import type { GenAiPreference } from './gen-ai-preference.ts';
import type { LicenseName } from './licenses.ts';

/** The table types Kysely checks every query against. Mirrors src/migrations/. */

export type ProcessingState = 'Queued' | 'Processing' | 'Failed' | 'Processed';
export type ModerationState = 'pending_description' | 'pending_moderation' | 'ok' | 'rejected';
export type CredentialStatus = 'approved' | 'pending' | 'rejected' | 'revoked';
export type RateLimitLevel = 0 | 1 | 2 | 3 | 99;

/** A timestamp column filled by the database unless given. */
type CreatedAt = ColumnType<Date, Date | string | undefined, Date | string>;
type Timestamp = ColumnType<Date, Date | string, Date | string>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
type Defaulted<T> = ColumnType<T, T | undefined, T>;
/** Computed by PostgreSQL (GENERATED ALWAYS): readable, never written. */
type Computed<T> = ColumnType<T, never, never>;

export interface UsersTable {
  id: Generated<number>;
  username: string;
  email: Defaulted<string>;
  password_hash: string | null;
  about: Defaulted<string>;
  homepage: Defaulted<string>;
  signature: Defaulted<string>;
  avatar_path: string | null;
  date_joined: CreatedAt;
  is_moderator: Defaulted<boolean>;
  /** Trusted uploaders' sounds skip moderation. */
  is_trusted: Defaulted<boolean>;
  /** Their preference on generative-AI training (schema/gen-ai-preference.ts). */
  gen_ai_preference: Defaulted<GenAiPreference>;
  /** Their solo-speech sounds are `no-gen-ai` whatever the preference. */
  gen_ai_speech_opt_out: Defaulted<boolean>;
}

export interface ApiCredentialsTable {
  id: Generated<number>;
  user_id: number;
  client_id: string;
  /**
   * SHA-256 digest (hex) of the client secret, which is also the API key of the token strategy;
   * the key itself is shown once, when it is made, and never stored.
   */
  client_secret_digest: string;
  /** The key's first characters, shown masked on the credentials page. */
  client_secret_hint: Defaulted<string>;
  name: string;
  description: Defaulted<string>;
  url: Defaulted<string>;
  redirect_uri: string;
  status: Defaulted<CredentialStatus>;
  rate_limit_level: Defaulted<RateLimitLevel>;
  allow_password_grant: Defaulted<boolean>;
  created: CreatedAt;
}

export interface OauthGrantsTable {
  id: Generated<number>;
  code: string;
  credential_id: number;
  user_id: number;
  redirect_uri: string;
  scope: string;
  code_challenge: string | null;
  code_challenge_method: 'plain' | 'S256' | null;
  created: CreatedAt;
  expires_at: Timestamp;
  used_at: NullableTimestamp;
}

export interface OauthTokensTable {
  id: Generated<number>;
  credential_id: number;
  user_id: number;
  access_token: string;
  refresh_token: string;
  scope: string;
  /** The scopes the user consented to for the application since the pair was last revoked. */
  granted_scope: Generated<string>;
  created: CreatedAt;
  expires_at: Timestamp;
  revoked_at: NullableTimestamp;
}

/** Refresh tokens already rotated away (digests), kept to recognize a replay (RFC 6749 §10.4). */
export interface OauthRetiredRefreshTokensTable {
  refresh_token: string;
  token_id: number;
  retired_at: Timestamp;
}

export interface PendingUploadsTable {
  id: Generated<number>;
  user_id: number;
  filename: string;
  stored_path: string;
  filesize: number;
  created: CreatedAt;
  /** Migration 20261126010000; null for files pending before it. */
  md5: ColumnType<string | null, string | null | undefined, string | null>;
  /** CRC-32 of the file (migration 20261128130000); null for files pending before it. */
  crc32: ColumnType<number | null, number | null | undefined, number | null>;
}

export interface PacksTable {
  id: Generated<number>;
  user_id: number;
  name: string;
  description: Defaulted<string>;
  created: CreatedAt;
  num_downloads: Defaulted<number>;
}

export interface SoundsTable {
  id: Generated<number>;
  user_id: number;
  pack_id: number | null;
  name: string;
  description: Defaulted<string>;
  /** Normalized tags (lower case), in the order given; mirrored by sound_tags. */
  tags: Defaulted<string[]>;
  license: LicenseName;
  category: string | null;
  subcategory: string | null;
  category_code: string | null;
  category_is_user_provided: Defaulted<boolean>;
  geotag_lat: number | null;
  geotag_lon: number | null;
  geotag_zoom: number | null;
  is_geotagged: Computed<boolean>;
  is_explicit: Defaulted<boolean>;
  is_remix: Defaulted<boolean>;
  was_remixed: Defaulted<boolean>;
  original_filename: string;
  /** Relative to DATA_DIR. */
  original_path: string;
  /** Generated files (previews, images, analysis) by kind, relative to DATA_DIR. */
  media_paths: Defaulted<Record<string, string>>;
  type: SoundType | null;
  channels: number | null;
  filesize: number | null;
  bitrate: number | null;
  bitdepth: number | null;
  duration: number | null;
  samplerate: number | null;
  md5: string | null;
  /** CRC-32 of the original (migration 20261128130000): a pack's zip needs no pass of its own. */
  crc32: ColumnType<number | null, number | null | undefined, number | null>;
  created: CreatedAt;
  num_downloads: Defaulted<number>;
  /** 0–5. */
  avg_rating: Defaulted<number>;
  num_ratings: Defaulted<number>;
  num_comments: Defaulted<number>;
  processing_state: Defaulted<ProcessingState>;
  processing_stage: string | null;
  /** 0–1 within the current attempt. */
  processing_progress: Defaulted<number>;
  processing_attempts: Defaulted<number>;
  processing_error: string | null;
  processing_updated: CreatedAt;
  moderation_state: Defaulted<ModerationState>;
  moderated_at: NullableTimestamp;
  moderated_by: number | null;
  /** Why the sound was rejected (null unless rejected); migration 20261125010000. */
  moderation_reason: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface TagsTable {
  id: Generated<number>;
  name: string;
}

export interface SoundTagsTable {
  sound_id: number;
  tag_id: number;
}

export interface SoundRemixesTable {
  sound_id: number;
  source_id: number;
}

export interface CommentsTable {
  id: Generated<number>;
  sound_id: number;
  user_id: number;
  comment: string;
  created: CreatedAt;
}

export interface RatingsTable {
  sound_id: number;
  user_id: number;
  /** 0–5. */
  rating: number;
  created: CreatedAt;
}

export interface BookmarkCategoriesTable {
  id: Generated<number>;
  user_id: number;
  name: string;
  created: CreatedAt;
}

export interface BookmarksTable {
  id: Generated<number>;
  user_id: number;
  sound_id: number;
  /** Null: uncategorized. */
  category_id: number | null;
  name: string;
  created: CreatedAt;
}

export interface DownloadsTable {
  id: Generated<number>;
  user_id: number | null;
  sound_id: number | null;
  pack_id: number | null;
  created: CreatedAt;
}

/** One row: the change counter (repositories/catalogue-version.ts). */
export interface CatalogueVersionTable {
  id: number;
  version: number;
}

type DescriptorColumns = { [K in keyof DescriptorValues]-?: Exclude<DescriptorValues[K], undefined> };

export interface SoundDescriptorsTable extends DescriptorColumns {
  sound_id: number;
  /** Consolidated flat record (variant B analysis endpoint). */
  analysis_b: Defaulted<Record<string, unknown>>;
  /** Full Essentia-layout tree (variant A, v1 analysis paths, dotted content filters). */
  analysis_a: Defaulted<Record<string, unknown>>;
  analyzer: Defaulted<string>;
  updated: CreatedAt;
}

export interface SoundSimilarityVectorsTable {
  sound_id: number;
  space: string;
  vector: number[];
  dims: Computed<number>;
  updated: CreatedAt;
}

/**
 * Range of one numeric leaf of the variant-A tree over the values visible sounds have had, widened
 * by triggers (migrations/*-descriptor-ranges.ts).
 */
export interface DescriptorRangesTable {
  /** As content filters name it: `lowlevel.spectral_centroid.mean`, `lowlevel.mfcc.mean[3]`. */
  name: string;
  min: number;
  max: number;
}

/** A browser session of the web pages (repositories/web-sessions.ts). */
export interface WebSessionsTable {
  /** SHA-256 of the session id the cookie carries; the id itself is never stored. */
  id_digest: Buffer;
  /** Null: a visitor who has not signed in (the session only carries a CSRF token). */
  user_id: number | null;
  csrf_token: string;
  created: Date;
  last_seen: Date;
  /** The earlier of the idle and the absolute expiry, moved on when the session is used. */
  expires_at: Date;
}

/** Who runs a sound's processing now (one process at a time; see the sound-leases migration). */
export interface SoundLeasesTable {
  sound_id: number;
  owner: string;
  epoch: number;
  expires_at: Date;
}

/** Who runs a catalogue-wide task now (see the task-leases migration). */
export interface TaskLeasesTable {
  name: string;
  owner: string;
  epoch: number;
  expires_at: Date;
}

/** The current category model of a similarity space (see the category-models migration). */
export interface CategoryModelsTable {
  space: string;
  /** The model as core's trainCategoryModel made it; read back through parseCategoryModel. */
  model: Record<string, unknown>;
  labelled_sounds: number;
  trained_at: CreatedAt;
}

/** What a sound last changed for the public (migration `*-sound-changes`); tombstones stay. */
export interface SoundChangesTable {
  sound_id: number;
  /** The number its transaction took at commit (null only until then); bigint, read as text. */
  seq: string | null;
  kind: SoundChangeKind;
  changed_at: Date;
}

export type SoundChangeKind = 'created' | 'edited' | 'approved' | 'removed';

/** What happened to a user's own sound (migration `*-user-events`). */
export const USER_EVENT_KINDS = [
  'processed',
  'processing_failed',
  'approved',
  'rejected',
  'commented',
  'rated',
  'bookmarked',
] as const;
export type UserEventKind = (typeof USER_EVENT_KINDS)[number];

/** One event about a user's sound, written by the change's own transaction; never changed. */
export interface UserEventsTable {
  id: ColumnType<string, never, never>;
  user_id: number;
  sound_id: number;
  kind: UserEventKind;
  data: Record<string, unknown>;
  created: CreatedAt;
  /** The number its transaction took at commit (null only until then); bigint, read as text. */
  seq: string | null;
}

/** A webhook: a credential's URL, its signing secret, the kinds it wants and how far it has delivered. */
export interface WebhooksTable {
  id: Generated<number>;
  user_id: number;
  client_id: string;
  url: string;
  secret: string;
  kinds: UserEventKind[];
  created: CreatedAt;
  after_seq: string;
  after_event: string;
  failures: Defaulted<number>;
  next_attempt_at: CreatedAt;
  last_error: string | null;
  leased_until: NullableTimestamp;
  lease_token: string | null;
  /** When the current run of failures began (null while it delivers). */
  failing_since: NullableTimestamp;
  /** When it was switched off for failing too long (null: on). */
  disabled_at: NullableTimestamp;
  disabled_reason: string | null;
}

/** One attempt to deliver one event (the delivery log its owner reads). */
export interface WebhookDeliveriesTable {
  id: ColumnType<string, never, never>;
  webhook_id: number;
  event_id: string;
  attempt: number;
  ok: boolean;
  status: number | null;
  error: string | null;
  duration_ms: number;
  at: CreatedAt;
}

export interface Database {
  users: UsersTable;
  api_credentials: ApiCredentialsTable;
  oauth_grants: OauthGrantsTable;
  oauth_tokens: OauthTokensTable;
  oauth_retired_refresh_tokens: OauthRetiredRefreshTokensTable;
  pending_uploads: PendingUploadsTable;
  packs: PacksTable;
  sounds: SoundsTable;
  tags: TagsTable;
  sound_tags: SoundTagsTable;
  sound_remixes: SoundRemixesTable;
  comments: CommentsTable;
  ratings: RatingsTable;
  bookmark_categories: BookmarkCategoriesTable;
  bookmarks: BookmarksTable;
  downloads: DownloadsTable;
  catalogue_version: CatalogueVersionTable;
  sound_descriptors: SoundDescriptorsTable;
  sound_similarity_vectors: SoundSimilarityVectorsTable;
  descriptor_ranges: DescriptorRangesTable;
  web_sessions: WebSessionsTable;
  sound_leases: SoundLeasesTable;
  task_leases: TaskLeasesTable;
  category_models: CategoryModelsTable;
  sound_changes: SoundChangesTable;
  user_events: UserEventsTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
}

export type User = Selectable<UsersTable>;
export type ApiCredential = Selectable<ApiCredentialsTable>;
export type OauthGrant = Selectable<OauthGrantsTable>;
export type OauthToken = Selectable<OauthTokensTable>;
export type PendingUpload = Selectable<PendingUploadsTable>;
export type Pack = Selectable<PacksTable>;
export type Sound = Selectable<SoundsTable>;
export type NewSoundRow = Insertable<SoundsTable>;
export type SoundUpdate = Updateable<SoundsTable>;
export type Comment = Selectable<CommentsTable>;
export type BookmarkCategory = Selectable<BookmarkCategoriesTable>;
export type Bookmark = Selectable<BookmarksTable>;
export type SoundDescriptors = Selectable<SoundDescriptorsTable>;
export type WebSession = Selectable<WebSessionsTable>;
