import type { ConnectorSession } from './connector';

type Methods = Omit<ConnectorSession, 'username'>;

/** A session method written as a function of what one user's session keeps (`session`) and its arguments. */
type Operation<Session, Method> = Method extends (...args: infer Args) => infer Result
  ? (session: Session, ...args: Args) => Result
  : never;

/**
 * A connector's session operations: one function for each method of ConnectorSession, given the session first.
 * An optional method (`claimedProject`) is in the table exactly where the connector has it, as its
 * capabilities declare.
 */
export type SessionOperations<Session> = {
  [Name in keyof Methods]: Operation<Session, NonNullable<Methods[Name]>>;
};

/** The ConnectorSession of one user: each of `operations` given `session` and the method's arguments. */
export function bindSession<Session>(
  username: string,
  session: Session,
  operations: SessionOperations<Session>,
): ConnectorSession {
  const methods = Object.entries(operations).map(([name, operation]: [string, unknown]) => [
    name,
    (...args: unknown[]) =>
      (operation as (session: Session, ...args: unknown[]) => unknown)(session, ...args),
  ]);
  return { username, ...Object.fromEntries(methods) } as ConnectorSession;
}
