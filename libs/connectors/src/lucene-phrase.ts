/**
 * A value as one quoted phrase of Lucene's query syntax, which Elasticsearch's query string (Zenodo) and Solr
 * (Dataverse) both read: quotes and backslashes inside are escaped, so any characters search as themselves.
 */
export function lucenePhrase(value: string): string {
  return `"${value.replace(/["\\]/g, '\\$&')}"`;
}
