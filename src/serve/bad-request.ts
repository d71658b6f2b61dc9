/** A request the dashboard refuses with 400 `INVALID_INPUT`: the message names the field at fault. */
export class BadRequest extends Error {
  constructor(
    message: string,
    readonly field: string,
  ) {
    super(message);
  }
}
