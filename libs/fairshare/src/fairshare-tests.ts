/**
 * The FAIRshare tests a user can choose from: the FAIR Evaluator's maturity-indicator tests that the original
 * PresQT service offered (its collection 16), by the Evaluator's metric number. The descriptions are ours.
 */
export interface FairshareTest {
  test_id: number;
  test_name: string;
  description: string;
}

export const FAIRSHARE_TESTS: readonly FairshareTest[] = [
  {
    test_id: 1,
    test_name: 'FAIR Metrics Gen2 - Unique Identifier',
    description:
      "Whether the resource's identifier follows a known scheme of globally unique identifiers (a URL, a DOI, ...).",
  },
  {
    test_id: 2,
    test_name: 'FAIR Metrics Gen2 - Identifier Persistence',
    description:
      'Whether that identifier belongs to a scheme that promises persistence (DOI, PURL, w3id, ARK, ...).',
  },
  {
    test_id: 4,
    test_name: 'FAIR Metrics Gen2 - Structured Metadata',
    description:
      'Whether a machine finds structured metadata for the resource (embedded JSON-LD, RDFa, RDF by content negotiation, ...).',
  },
  {
    test_id: 5,
    test_name: 'FAIR Metrics Gen2 - Grounded Metadata',
    description:
      'Whether the metadata terms resolve to definitions of their meaning (linked data rather than plain keys).',
  },
  {
    test_id: 6,
    test_name: 'FAIR Metrics Gen2 - Data Identifier Explicitly In Metadata',
    description: 'Whether the metadata names the identifier of the data it describes.',
  },
  {
    test_id: 7,
    test_name: 'FAIR Metrics Gen2 - Metadata Identifier Explicitly In Metadata',
    description: 'Whether the metadata names its own identifier.',
  },
  {
    test_id: 8,
    test_name: 'FAIR Metrics Gen2 - Searchable in major search engine',
    description: 'Whether a major web search engine finds the resource.',
  },
  {
    test_id: 10,
    test_name: 'FAIR Metrics Gen2 - Uses open free protocol for metadata retrieval',
    description:
      'Whether the metadata can be retrieved through an open, free protocol (such as HTTP) from its identifier.',
  },
  {
    test_id: 13,
    test_name: 'FAIR Metrics Gen2 - Metadata Persistence',
    description: 'Whether the metadata states a persistence policy.',
  },
  {
    test_id: 17,
    test_name: 'FAIR Metrics Gen2 - Data Knowledge Representation Language (strong)',
    description:
      'Whether the data is expressed in a formal, ontology-grounded knowledge representation language.',
  },
  {
    test_id: 19,
    test_name: 'FAIR Metrics Gen2 - Metadata uses FAIR vocabularies (strong)',
    description: 'Whether the terms of the linked-data metadata resolve to linked (FAIR) data themselves.',
  },
  {
    test_id: 22,
    test_name: 'FAIR Metrics Gen2 - Metadata Includes License',
    description: 'Whether the metadata points explicitly to a license.',
  },
];

export const FAIRSHARE_TEST_IDS: readonly number[] = FAIRSHARE_TESTS.map((test) => test.test_id);
