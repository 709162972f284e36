import type { ConnectorSession } from './connector';

type Methods = Omit<ConnectorSession, 'username'>;

/** A session method written as a function of what one user's session keeps (`session`) and its arguments. */
type Operation<Session, Method> = Method extends (...args: infer Args) => infer Result
  ? (session: Session, ...args: Args) => Result
  : never;

/**
 * A connector's session operations, as its folder's `operations.ts` gathers them: one function for each method
 * of ConnectorSession, given the session first. An optional method (`claimedProject`) is there exactly where
 * the connector has it, as its capabilities declare.
 */
export type SessionOperations<Session> = {
  [Name in keyof Methods]: Operation<Session, NonNullable<Methods[Name]>>;
};

/** Each method of ConnectorSession: a record, so that the compiler holds the list to the interface. */
const METHODS: Record<keyof Methods, true> = {
  listResources: true,
  getResource: true,
  walk: true,
  createProject: true,
  claimedProject: true,
  openWriter: true,
  keywords: true,
  setKeywords: true,
};

/**
 * The ConnectorSession of one user: each method calls its operation with `session` and every argument it is
 * given. Whatever else `operations` holds is left out.
 */
export function bindSession<Session>(
  username: string,
  session: Session,
  operations: SessionOperations<Session>,
): ConnectorSession {
  const bound: Record<string, unknown> = { username };
  for (const name of Object.keys(METHODS) as (keyof Methods)[]) {
    const operation = operations[name] as ((session: Session, ...args: unknown[]) => unknown) | undefined;
    if (operation) bound[name] = (...args: unknown[]) => operation(session, ...args);
  }
  return bound as unknown as ConnectorSession;
}
