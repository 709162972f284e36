export * from './normalize-keywords';
export * from './keyword-enhancer';
export * from './wordnet/wordnet-keyword-enhancer';
export * from './scigraph-keyword-enhancer';
export * from './keywords.module';
export * from './resource-keywords';
