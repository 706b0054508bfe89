import { describe, expect, it } from 'vitest';
import type { ModerationState, ProcessingState } from '../../schema/database.ts';
import {
  allows,
  IllegalTransitionError,
  nextStatus,
  SOUND_TRANSITIONS,
  type SoundStatus,
  type SoundTransition,
} from './transitions.ts';

const PROCESSING: ProcessingState[] = ['Queued', 'Processing', 'Failed', 'Processed'];
const MODERATION: ModerationState[] = ['pending_description', 'pending_moderation', 'ok', 'rejected'];
const EVERY_STATUS: SoundStatus[] = PROCESSING.flatMap((processing) =>
  MODERATION.map((moderation) => ({ processing, moderation })),
);

/** The processing states each transition may leave from, written out by hand (not read from the table). */
const LEAVES_FROM: Record<Exclude<SoundTransition, 'queue' | 'approve' | 'reject'>, ProcessingState[]> = {
  start: ['Queued', 'Processing'],
  progress: ['Processing'],
  advance: ['Processing'],
  fail: ['Queued', 'Processing'],
  finish: ['Processing'],
  reprocess: ['Queued', 'Processing', 'Failed', 'Processed'],
};

describe('the sound state machine', () => {
  it('queues only a sound being created, into Queued', () => {
    expect(allows('queue', undefined)).toBe(true);
    expect(nextStatus('queue', undefined)).toEqual({ processing: 'Queued' });
    for (const status of EVERY_STATUS) expect(allows('queue', status), JSON.stringify(status)).toBe(false);
  });

  it.each(Object.entries(LEAVES_FROM))('%s leaves from %j only, whatever the moderation', (name, from) => {
    const transition = name as SoundTransition;
    for (const status of EVERY_STATUS) {
      expect(allows(transition, status), `${transition} from ${JSON.stringify(status)}`).toBe(
        from.includes(status.processing),
      );
    }
    expect(allows(transition, undefined)).toBe(false);
  });

  it('moves processing where the pipeline expects it and leaves moderation alone', () => {
    const at = (processing: ProcessingState): SoundStatus => ({
      processing,
      moderation: 'pending_moderation',
    });
    expect(nextStatus('start', at('Queued'))).toEqual(at('Processing'));
    expect(nextStatus('start', at('Processing'))).toEqual(at('Processing'));
    expect(nextStatus('advance', at('Processing'))).toEqual(at('Processing'));
    expect(nextStatus('fail', at('Processing'))).toEqual(at('Failed'));
    expect(nextStatus('finish', at('Processing'))).toEqual(at('Processed'));
    expect(nextStatus('reprocess', at('Failed'))).toEqual(at('Queued'));
    expect(nextStatus('reprocess', at('Processed'))).toEqual(at('Queued'));
  });

  it('approves and rejects only a sound waiting for a moderator, in any processing state', () => {
    for (const status of EVERY_STATUS) {
      const waiting = status.moderation === 'pending_moderation';
      expect(allows('approve', status)).toBe(waiting);
      expect(allows('reject', status)).toBe(waiting);
    }
    expect(nextStatus('approve', { processing: 'Queued', moderation: 'pending_moderation' })).toEqual({
      processing: 'Queued',
      moderation: 'ok',
    });
    expect(nextStatus('reject', { processing: 'Processed', moderation: 'pending_moderation' })).toEqual({
      processing: 'Processed',
      moderation: 'rejected',
    });
  });

  it('refuses with an error that names the move and the state (409), or 404 without a sound', () => {
    const refused = () => nextStatus('finish', { processing: 'Failed', moderation: 'ok' }, 7);
    expect(refused).toThrow(IllegalTransitionError);
    expect(refused).toThrow('Cannot finish sound 7: it is Failed and ok.');
    try {
      refused();
    } catch (err) {
      expect(err).toMatchObject({ status: 409, code: 'illegal_transition' });
    }
    expect(() => nextStatus('approve', undefined, 8)).toThrow(
      expect.objectContaining({ status: 404, code: 'not_found' }),
    );
  });

  it('has a rule for every named transition', () => {
    expect(Object.keys(SOUND_TRANSITIONS).sort()).toEqual(
      ['advance', 'approve', 'fail', 'finish', 'progress', 'queue', 'reject', 'reprocess', 'start'].sort(),
    );
  });
});
