/** The session operations of this connector, each given the session first (SessionOperations). */
export { listResources } from './listing';
export { getResource } from './detail';
export { walk } from './walking';
export { createProject, openWriter } from './writing';
export { keywords, setKeywords } from './keywords';
