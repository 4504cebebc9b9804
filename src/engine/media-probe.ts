import { invalidField, WorkError } from '../lib/errors.ts';
import { type ProbeResult, probeMedia } from '../lib/ffmpeg.ts';
import type { InputCopies } from './inputs.ts';

/**
 * Copies a user's media file into our storage at request time (the request's input copy, which is
 * what the work will read) and measures that copy (duration, size, streams), for rules and prices
 * that depend on the file itself. Any failure is a 400 naming the field.
 */
export async function probeUserMedia(
  deps: { inputs: InputCopies },
  field: string,
  url: string,
  expect: 'video' | 'audio',
): Promise<ProbeResult> {
  let probe: ProbeResult;
  try {
    probe = await probeMedia(await deps.inputs.read(field, url));
  } catch (err) {
    const reason = err instanceof WorkError ? err.message : 'could not be read';
    throw invalidField(field, `is not a readable ${expect} file (${reason})`);
  }
  if (expect === 'video' && !probe.hasVideo) throw invalidField(field, 'has no video stream');
  if (expect === 'audio' && !probe.hasAudio) throw invalidField(field, 'has no audio stream');
  if (!(probe.durationSeconds > 0)) throw invalidField(field, 'has no measurable duration');
  return probe;
}
