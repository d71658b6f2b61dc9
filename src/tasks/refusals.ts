import { asBatonError } from '../store/handle-command.js';

/** Run `body`, rethrowing pure refusals as BatonErrors. */
export async function refusalsAsErrors<T>(body: () => Promise<T> | T): Promise<T> {
  try {
    return await body();
  } catch (error) {
    throw asBatonError(error);
  }
}
