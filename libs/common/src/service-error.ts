/**
 * An error a user caused or should be told about, with the HTTP status the API answers it with. The API's
 * single exception filter turns every one into `{"error": message}`.
 */
export class ServiceError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }

  static badRequest(message: string): ServiceError {
    return new ServiceError(400, message);
  }

  static notFound(message: string): ServiceError {
    return new ServiceError(404, message);
  }
}
