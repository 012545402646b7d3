/** m = clipMessage(message): a message with the user's text in it, kept to a readable length. */

/** The longest message an error carries; past it, the message is cut (clipMessage). */
export const MESSAGE_LIMIT = 2000;

/**
 * A message with the user's text in it, kept readable: a run of more than 200 characters without a
 * space (a name, a cell, a value of thousands of brackets) is shortened to its first 60 characters
 * and its length, and the whole to MESSAGE_LIMIT characters.
 */
export function clipMessage(message: string): string {
  let m = message.length > 200 ? message.replace(/\S{201,}/g, (run) => `${run.slice(0, 60)}… (${run.length.toLocaleString('en-US')} characters)`) : message;
  if (m.length > MESSAGE_LIMIT) m = `${m.slice(0, MESSAGE_LIMIT)}… (${m.length.toLocaleString('en-US')} characters)`;
  return m;
}
