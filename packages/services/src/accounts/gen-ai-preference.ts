import { type Db, GEN_AI_PREFERENCES, isGenAiPreference, setGenAiPreference } from '@earshot/catalogue';
import { ValidationError } from '@earshot/common';

/** What a user's settings form says about generative AI (schema/gen-ai-preference.ts). */
export interface GenAiPreferenceChange {
  preference: string;
  speechOptOut: boolean;
}

/** Sets a user's generative-AI preference and speech opt-out; an unknown preference is a 400 naming the four. */
export async function changeGenAiPreference(
  db: Db,
  userId: number,
  change: GenAiPreferenceChange,
): Promise<void> {
  if (!isGenAiPreference(change.preference)) {
    throw new ValidationError(
      `Unknown generative AI preference "${change.preference}"; use one of ${GEN_AI_PREFERENCES.join(', ')}.`,
    );
  }
  await setGenAiPreference(db, userId, change.preference, change.speechOptOut);
}
