// Apart from the scripts' registry, so that classifying an error never pulls
// the scripts' text into a bundle (the Slack ack path classifies errors too).
import { ResponderError } from '../runtime/errors.ts';

/** A value a host script's own rules refuse: the same value is refused every time. */
export class ScriptParameterError extends ResponderError {
  readonly failure = 'fatal';
  override name = 'ScriptParameterError';
}
